"""The YAML front matter of an export's README: the Hub's view of the configs, read and written here only.

Written with a YAML library (libyaml when available) once per build; read with the same library.

The front matter declares every config with its data files (``configs:``) and no ``dataset_info``:
the features travel in every shard's Parquet schema (its family's, ``builders.spec.schema.features_of``: the Arrow schema
carries the ``huggingface`` metadata that ``datasets`` and the Hub viewer read), and split sizes are
computed by the viewer. Repeating the same features 952 times made the README 1.25 MB, which
``datasets`` parses with PyYAML's pure-Python loader on every ``load_dataset`` (about 5 s).
"""

from __future__ import annotations

import yaml

from ..spec.defaults import SPLIT
from .cardprofile import CardProfile
from .records import ConfigEntry, Manifest
from .upstreams import hub_licences

PRETTY_NAME = "ONERULER"
TAGS = ["long-context", "needle-in-a-haystack", "multilingual", "cross-lingual", "benchmark", "synthetic"]
MULTILINGUAL_TAGS = ("multilingual", "cross-lingual")  # not an English-only export of RULER's tasks


class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Safe YAML without anchors/aliases (the Hub's parser and humans both prefer them expanded)."""

    def ignore_aliases(self, data) -> bool:
        return True


_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def size_category(n: int) -> str:
    """The Hub's size_categories bucket for ``n`` rows."""
    bounds = [(1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M"),
              (10_000_000, "1M<n<10M")]
    for bound, label in bounds:
        if n < bound:
            return label
    return "10M<n<100M"


def export_languages(configs: dict[str, ConfigEntry]) -> set[str]:
    """Every language an export's configs use, as context or as instruction language."""
    return {c for e in configs.values() for c in (e.context_language, e.instruction_language)}


def front_matter(manifest: Manifest) -> dict:
    """The YAML metadata of the export: configs with their data files, languages, tags (no dataset_info)."""
    configs = manifest.configs
    names = sorted(configs)
    langs = sorted(export_languages(configs))
    total_rows = sum(configs[n].num_rows for n in names)
    profile = CardProfile.of(configs)
    tags = [t for t in TAGS if profile.oneruler or len(langs) > 1 or t not in MULTILINGUAL_TAGS]
    meta: dict = {
        "pretty_name": profile.title(PRETTY_NAME),
        "license": hub_licences(configs, profile.oneruler),
        "language": langs,
        "multilinguality": "multilingual" if len(langs) > 1 else "monolingual",
        "task_categories": ["question-answering", "text-generation"],
        "size_categories": [size_category(total_rows)],
        "tags": tags,
        "configs": [
            {"config_name": n, "data_files": [{"split": SPLIT, "path": configs[n].file}]} for n in names
        ],
    }
    if not names:
        del meta["configs"]
    return meta


def dump_front_matter(meta: dict) -> str:
    """YAML text of a front-matter dict (keys in the given order)."""
    return yaml.dump(meta, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=1000)


def front_matter_yaml(manifest: Manifest) -> str:
    """``front_matter(manifest)`` as YAML text."""
    return dump_front_matter(front_matter(manifest))


def split_readme(readme: str) -> tuple[str | None, str]:
    """(YAML text between the ``---`` lines or None, the card after them)."""
    if not readme.startswith("---\n"):
        return None, readme
    end = readme.find("\n---\n", 4)
    if end < 0:
        raise ValueError("README.md: front matter starts with '---' but never ends")
    return readme[4:end + 1], readme[end + 5:]


def parse_front_matter(readme: str) -> dict:
    """The YAML metadata block of a README (empty dict if there is none)."""
    text, _ = split_readme(readme)
    if text is None:
        return {}
    meta = yaml.load(text, Loader=_Loader) or {}
    if not isinstance(meta, dict):
        raise ValueError("README.md: front matter is not a YAML mapping")
    return meta


def configs_data_files(meta: dict) -> dict[str, list[str]] | None:
    """Config name → its test-split data files, from front matter's ``configs`` (None: no such list)."""
    if not isinstance(meta.get("configs"), list):
        return None
    mapping: dict[str, list[str]] = {}
    for entry in meta["configs"]:
        files = entry.get("data_files", []) if isinstance(entry, dict) else []
        if isinstance(files, str):
            files = [{"split": SPLIT, "path": files}]
        paths: list[str] = []
        for item in files if isinstance(files, list) else []:
            if isinstance(item, dict) and item.get("split", SPLIT) == SPLIT:
                value = item.get("path", [])
                paths += [value] if isinstance(value, str) else list(value)
        if isinstance(entry, dict) and "config_name" in entry:
            mapping[str(entry["config_name"])] = paths
    return mapping
