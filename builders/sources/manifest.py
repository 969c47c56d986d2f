"""The committed manifests of pinned sources (``raw/manifest.json``, ``translations/manifest.json``)."""

from __future__ import annotations

import json
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from ..base.errors import SourceError
from ..base.resources import REINSTALL, SOURCE_MANIFEST, TRANSLATIONS_MANIFEST, shipped_path

UPSTREAM_REPO = "mungg/OneRuler"
UPSTREAM_COMMIT = "a3fe6af862dc4b30794afc0a8f3d4f60758cecfa"
DEFAULT_BASE_URL = f"https://raw.githubusercontent.com/{UPSTREAM_REPO}/{UPSTREAM_COMMIT}/"
# wonderwords 3.0.1 (Oct 2025) dropped 4 nouns that 2.2.0 has; the paper's release predates it.
WONDERWORDS_VERSION = "2.2.0"
MANIFESTS = (SOURCE_MANIFEST, TRANSLATIONS_MANIFEST)  # shipped with the package (base/resources.py)


@dataclass(frozen=True)
class Alternate:
    """Other bytes accepted for a pinned file: the same content as another upstream serves it, with its own pin
    (RULER's fallback copy of HotpotQA is a different serialisation of the official file)."""

    sha256: str
    size: int
    urls: tuple[str, ...]
    digest_source: str = ""


@dataclass(frozen=True)
class SourceFile:
    """One pinned file: its path in its upstream repository (and in a mirror folder laid out like it), expected
    sha256 and size, descriptive facts, where it is downloaded from without a mirror (``urls``, in order; empty:
    ONERULER's pinned commit) and any other accepted bytes (``alternates``)."""

    path: str
    sha256: str
    size: int
    kind: str
    language: str
    licence: str
    facts: dict = field(default_factory=dict, compare=False, hash=False)
    urls: tuple[str, ...] = field(default=(), compare=False)
    alternates: tuple[Alternate, ...] = field(default=(), compare=False)

    def upstream_urls(self) -> tuple[str, ...]:
        """Where the pinned bytes are downloaded from when no mirror is given, in the order tried."""
        return self.urls or (DEFAULT_BASE_URL + urllib.parse.quote(self.path),)

    def accepts(self, sha256: str, size: int) -> bool:
        """Whether bytes with this sha256 and size are the pinned file (or one of its alternates)."""
        return any(sha256 == pin.sha256 and size == pin.size for pin in (self, *self.alternates))


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SourceError(f"manifest {path} is missing: {REINSTALL}") from None
    except json.JSONDecodeError as exc:
        raise SourceError(f"manifest {path} is not valid JSON: {exc}") from None


def _entries(doc: dict, key: str, where: Path) -> list[SourceFile]:
    out = []
    base = {"path", "sha256", "size", "kind", "language", "licence"}
    for i, item in enumerate(doc.get(key, [])):
        absent = base - set(item)
        if absent:
            raise SourceError(f"manifest {where}: entry {i} of {key!r} lacks {sorted(absent)}")
        facts = {k: v for k, v in item.items() if k not in base}
        out.append(SourceFile(item["path"], item["sha256"], int(item["size"]), item["kind"],
                              item["language"], item["licence"], facts))
    return out


def load_manifest() -> list[SourceFile]:
    """All upstream files the benchmark needs (books, word lists, prompts, noun table)."""
    files: list[SourceFile] = []
    for path in map(shipped_path, MANIFESTS):
        doc = _read(path)
        if doc.get("upstream_commit") != UPSTREAM_COMMIT:
            raise SourceError(f"manifest {path} pins commit {doc.get('upstream_commit')!r}, expected {UPSTREAM_COMMIT}")
        files.extend(_entries(doc, "files", path))
    return files


def load_packaged_wordlists() -> list[SourceFile]:
    """The English CWE word lists shipped in the pinned wonderwords package."""
    path = shipped_path(SOURCE_MANIFEST)
    return _entries(_read(path), "packaged_files", path)
