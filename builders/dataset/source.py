"""``DatasetSource``: an export folder or a Hub dataset pinned to one commit, and what it declares.

A name that is an existing folder is an export; a path-like name that is not one is an error; any
other name is a Hub repo id, pinned to the commit its revision points at when the source is
opened, so that the card, the manifest and the shards of one command come from one commit.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..base.errors import OneRulerError, named_setting, one_line
from ..base.files import sha256_file
from ..export.frontmatter import configs_data_files, parse_front_matter
from ..export.layout import MANIFEST_NAME, README_NAME
from ..spec.configs import did_you_mean
from ..spec.selection import glob_matches
from . import hub


def local_folder(dataset: str) -> Path | None:
    """The export folder ``dataset`` names (None: a Hub repo id); a path-like name that is no folder is an error."""
    path = Path(dataset).expanduser()
    if path.is_dir():
        return path
    if path.is_absolute() or dataset.startswith((".", "~")) or dataset.count("/") > 1:
        raise OneRulerError(f"dataset folder not found: {dataset}")
    return None


@dataclass(frozen=True)
class DatasetIdentity:
    """What a run records of the rows it read: the name, the Hub commit (None: a folder), the manifest's sha256."""

    name: str
    revision: str | None
    manifest_sha256: str | None

    def to_dict(self) -> dict:
        """The ``dataset`` entry of a run's meta."""
        return {"name": self.name, "revision": self.revision, "manifest_sha256": self.manifest_sha256}


@dataclass(frozen=True)
class DatasetSource:
    """Where rows come from: ``folder`` (an export) or the Hub repo ``name`` at commit ``revision``.

    ``hub_cache``: where Hub files are downloaded (None: the Hugging Face cache).
    """

    name: str
    revision: str | None = None
    folder: Path | None = None
    hub_cache: str | None = None

    @classmethod
    def open(cls, name: str, revision: str | None = None, given_as: str = "revision",
             hub_cache: str | None = None) -> "DatasetSource":
        """The source ``name`` names; a Hub revision (branch, tag, sha; None: main) is pinned to its commit now.

        ``given_as``: what gave the revision, as an error names it (a setting's name such as ``revision``,
        or words such as ``a revision``).
        """
        folder = local_folder(name)
        if folder is not None:
            if revision is not None:
                what = named_setting(given_as) if given_as.isidentifier() else given_as
                raise OneRulerError(f"{what} applies to Hub datasets; {name} is a local folder")
            return cls(name, None, folder, hub_cache)
        try:
            return cls(name, hub.commit_of(name, revision), None, hub_cache)
        except hub.HubLookupFailed as exc:
            if "/" in name:  # ORG/NAME: plainly meant for the Hub
                raise
            raise OneRulerError(f"dataset {name!r}: no such folder in {Path.cwd()}, and {exc.reason}; give an "
                                f"export folder (`oneruler build --out DIR`) or a Hub dataset ORG/NAME") from None

    @classmethod
    def on_hub(cls, name: str, revision: str, hub_cache: str | None = None) -> "DatasetSource":
        """The Hub dataset ``name`` pinned to ``revision``, whatever folder of that name lies in the working directory
        (a name read from a report is a Hub repo id, never a path)."""
        return cls(name, hub.commit_of(name, revision), None, hub_cache)

    def file(self, filename: str) -> Path | None:
        """A file of the dataset as a local path (None: the dataset has no such file)."""
        if self.folder is not None:
            path = self.folder / filename
            return path if path.is_file() else None
        return hub.download(self.name, filename, self.revision, self.hub_cache)

    def shard(self, filename: str) -> Path:
        """A data file the card names, as a local path; a missing one is an error naming it."""
        path = self.file(filename)
        if path is None:
            raise OneRulerError(f"dataset {self.name!r} lacks {filename}, which its card lists")
        return path

    def identity(self) -> DatasetIdentity:
        """Name, commit and the sha256 of ``manifest.json`` (None when the dataset has none)."""
        manifest = self.file(MANIFEST_NAME)
        return DatasetIdentity(self.name, self.revision, sha256_file(manifest) if manifest is not None else None)

    def card(self) -> str | None:
        """The text of README.md (None: the dataset has none)."""
        readme = self.file(README_NAME)
        return readme.read_text(encoding="utf-8") if readme is not None else None

    def configs(self) -> dict[str, list[str]]:
        """Config name → its data files: the card's ``configs`` list, else the export layout ``data/<config>/*.parquet``."""
        text = self.card()
        mapping = None
        if text is not None:
            try:
                mapping = configs_data_files(parse_front_matter(text))
            except Exception as exc:  # noqa: BLE001 - yaml errors and an unterminated block alike
                raise OneRulerError(f"dataset card of {self.name!r} has invalid YAML: {one_line(exc)}") from None
        if mapping is None:
            mapping = layout_configs(self._files())
        if not mapping:
            raise OneRulerError(f"dataset {self.name!r} declares no configs: it has neither a README.md listing them "
                                f"nor data/<config>/*.parquet files (an export folder written by `oneruler build`, "
                                f"or its Hub copy)")
        return mapping

    def _files(self) -> list[str]:
        if self.folder is not None:
            return sorted(p.relative_to(self.folder).as_posix() for p in self.folder.glob("data/*/*.parquet"))
        return hub.repo_files(self.name, self.revision)


def layout_configs(files: list[str]) -> dict[str, list[str]]:
    """Config → files of the export layout ``data/<config>/<name>.parquet`` among ``files``."""
    mapping: dict[str, list[str]] = {}
    for name in sorted(files):
        parts = PurePosixPath(name).parts
        if len(parts) == 3 and parts[0] == "data" and parts[2].endswith(".parquet"):
            mapping.setdefault(parts[1], []).append(name)
    return mapping


def select_configs(available: list[str], patterns: list[str], what: str = "config pattern") -> list[str]:
    """The configs matching any glob (``spec/selection.py:glob_matches``; all if none is given), sorted; a pattern
    matching nothing is an error."""
    if not patterns:
        return sorted(available)
    chosen: set[str] = set()
    for pattern in patterns:
        hits = glob_matches(pattern, available)
        if not hits:
            hint = did_you_mean(pattern, available)
            raise OneRulerError(f"{what} {pattern!r} matches no config of the dataset{hint}; "
                                f"it has {len(available)} configs, e.g. {', '.join(sorted(available)[:3])}")
        chosen.update(hits)
    return sorted(chosen)
