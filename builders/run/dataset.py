"""The rows a run sends: configs of an export folder or a Hub dataset picked by glob, read with ``datasets``.

Only the columns a run needs are read (``input`` is the prompt). The dataset's identity (the sha256
of its ``manifest.json`` and, for a Hub repo, the commit it was read at) goes into the run's meta.
"""

from __future__ import annotations

import difflib
import fnmatch
from dataclasses import dataclass, fields
from pathlib import Path

from ..base.errors import OneRulerError, one_line
from ..base.files import sha256_file
from ..export.frontmatter import configs_data_files, parse_front_matter
from ..export.layout import MANIFEST_NAME, README_NAME
from ..report.rows import local_folder, pin_revision, quiet_datasets, read_shards
from ..spec.defaults import SPLIT

@dataclass(frozen=True)
class RunRow:
    """One prompt to send: its id, config, task, text, size in the dataset's tokenizer and answer reserve."""

    id: str
    config: str
    task: str
    index: int
    input: str
    num_tokens: int
    tokenizer: str
    reserve: int


RUN_COLUMNS = tuple(f.name for f in fields(RunRow))  # the dataset columns a run reads


@dataclass(frozen=True)
class DatasetSource:
    """Where rows come from: a local export folder, or a Hub repo id at a revision (commit sha once resolved)."""

    name: str
    revision: str | None = None

    @property
    def local(self) -> Path | None:
        """The folder, for a local export (None: a Hub repo id)."""
        return local_folder(self.name)

    def download(self, filename: str) -> Path | None:
        """A file of the dataset (None: the folder or repo has no such file)."""
        if self.local is not None:
            path = self.local / filename
            return path if path.is_file() else None
        from huggingface_hub import hf_hub_download
        from huggingface_hub.errors import EntryNotFoundError

        try:
            return Path(hf_hub_download(self.name, filename, repo_type="dataset", revision=self.revision))
        except EntryNotFoundError:
            return None
        except Exception as exc:  # noqa: BLE001 - any failure to reach the repo is bad input
            raise OneRulerError(f"cannot open dataset {self.name!r}: {one_line(exc)}") from None


def resolve_source(dataset: str, revision: str | None = None) -> DatasetSource:
    """A DatasetSource; a Hub revision (branch, tag or None = main) is pinned to its commit sha."""
    return DatasetSource(dataset, pin_revision(dataset, revision, "--revision")[1])


def dataset_identity(source: DatasetSource) -> dict:
    """``{"name", "revision", "manifest_sha256"}`` (the sha256 is None when the dataset has no manifest)."""
    manifest = source.download(MANIFEST_NAME)
    return {"name": source.name, "revision": source.revision,
            "manifest_sha256": sha256_file(manifest) if manifest is not None else None}


def config_files(source: DatasetSource) -> dict[str, list[str]]:
    """Config name → its data files, from the dataset card's front matter."""
    readme = source.download(README_NAME)
    mapping = None
    if readme is not None:
        try:
            mapping = configs_data_files(parse_front_matter(readme.read_text(encoding="utf-8")))
        except Exception as exc:  # noqa: BLE001 - yaml errors and an unterminated block alike
            raise OneRulerError(f"dataset card of {source.name!r} has invalid YAML: {one_line(exc)}") from None
    if not mapping:
        raise OneRulerError(f"dataset {source.name!r} has no README.md listing its configs "
                            f"(an export folder written by `oneruler build`, or its Hub copy)")
    return mapping


def select_configs(available: list[str], patterns: list[str]) -> list[str]:
    """The configs matching any glob (all if none is given), sorted; a pattern matching nothing is an error."""
    if not patterns:
        return sorted(available)
    chosen: set[str] = set()
    for pattern in patterns:
        hits = [name for name in available if fnmatch.fnmatchcase(name, pattern)]
        if not hits:
            close = difflib.get_close_matches(pattern, available, n=1, cutoff=0.5)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise OneRulerError(f"config pattern {pattern!r} matches no config of the dataset{hint}; "
                                f"it has {len(available)} configs, e.g. {', '.join(sorted(available)[:3])}")
        chosen.update(hits)
    return sorted(chosen)


def load_run_rows(source: DatasetSource, configs: list[str], files: dict[str, list[str]],
                  limit: int | None = None, cache_dir: str | None = None) -> list[RunRow]:
    """The rows of ``configs`` (the first ``limit`` of each by index), in (config, index) order.

    An export folder's shards are read with pyarrow (as `oneruler score` reads them); a Hub repo's
    files with one ``datasets.load_dataset`` call at the pinned revision.
    """
    if limit is not None and limit < 1:
        raise OneRulerError(f"--limit must be at least 1 (got {limit})")
    wanted = sorted({f for c in configs for f in files[c]})
    if source.local is not None:
        tables = read_shards([source.local / f for f in wanted], source.name, RUN_COLUMNS)
    else:
        datasets = quiet_datasets()
        try:
            ds = datasets.load_dataset(source.name, data_files={SPLIT: wanted}, split=SPLIT,
                                       revision=source.revision, cache_dir=cache_dir, columns=list(RUN_COLUMNS))
        except Exception as exc:  # noqa: BLE001 - any failure to read the files is bad input
            raise OneRulerError(f"cannot load {len(configs)} config(s) of {source.name!r}: {one_line(exc)}") from None
        tables = [ds.data.table]
    selected, rows = set(configs), []
    for table in tables:
        missing = [c for c in RUN_COLUMNS if c not in table.column_names]
        if missing:
            raise OneRulerError(f"dataset {source.name!r} lacks column(s) {', '.join(missing)}")
        columns = table.select(list(RUN_COLUMNS)).to_pydict()
        rows += [row for row in (RunRow(*values) for values in zip(*columns.values())) if row.config in selected]
    rows.sort(key=lambda r: (r.config, r.index))
    if limit is not None:
        rows = _first_per_config(rows, limit)
    return rows


def _first_per_config(rows: list[RunRow], limit: int) -> list[RunRow]:
    count: dict[str, int] = {}
    out = []
    for r in rows:
        count[r.config] = count.get(r.config, 0) + 1
        if count[r.config] <= limit:
            out.append(r)
    return out
