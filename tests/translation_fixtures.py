"""Artificial translation files for the tests of the translation kit: never a real language's text.

A *pseudo-translation* keeps each English piece's placeholders and leading/trailing whitespace and replaces every
word between them with ``[[xx]]`` (the language code in double brackets), so that a file passes the checker while
holding no translation at all (DEVELOPERS.md: translations are native speakers' work; tests hold none).
"""

from __future__ import annotations

import re
import string
from pathlib import Path

import yaml

from builders.sources.ruler.instructions import english_pieces, nested

PINNED_RULER_COMMIT = "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a"  # raw/ruler/ruler.json's commit


def pseudo(text: str, language: str) -> str:
    """``text`` with each run of non-space characters outside its placeholders replaced by ``[[language]]``."""
    out = []
    for literal, name, _spec, _conv in string.Formatter().parse(text):
        out.append(re.sub(r"\S+", f"[[{language}]]", literal))
        if name is not None:
            out.append(f"{{{name}}}")
    return "".join(out)


def metadata(language: str) -> dict:
    """Valid metadata for a test file of ``language``."""
    return {"format": 1, "language": language, "translators": ["test fixture (not a translator)"], "reviewers": [],
            "licence": "CC0-1.0", "ruler_commit": PINNED_RULER_COMMIT,
            "provenance": "artificial test fixture: placeholders kept, every word replaced by a marker"}


def pseudo_document(tasks, language: str, sections=None) -> dict:
    """A whole file's content: metadata and a pseudo-translation of each section (default: all five)."""
    english = english_pieces(tasks)
    doc = metadata(language)
    for section in sections or english:
        doc[section] = nested({key: pseudo(text, language) for key, text in english[section].items()})
    return doc


def write_document(folder: Path, doc: dict, name: str | None = None) -> Path:
    """Write ``doc`` as ``folder/{language}.yaml`` (or ``name``) and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / (name or f"{doc['language']}.yaml")
    path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False, width=1000), encoding="utf-8")
    return path
