"""Fixtures of RULER's inputs for the tests of this folder: RULER's own functions as oracles, a temporary mirror of
tiny files in each exact format (the ../shared mirrors' folders are the root conftest's fixtures).

RULER's readers (``read_squad``, ``read_hotpotqa`` of ``scripts/data/synthetic/qa.py``) are taken from
the pinned mirror's file with ``ast`` and run here on the same bytes as ours: the tests compare the
project's parsers with RULER's own code, never with values the project produced. (The package itself
never executes RULER's files.)
"""

from __future__ import annotations

import ast
import json
import os
from pathlib import Path

import pytest
from ruler_data import TINY_ENGLISH_WORDS, TINY_HOTPOT, TINY_SQUAD_V2

from builders.base.files import sha256_bytes
from builders.sources.manifest import SourceFile


@pytest.fixture(scope="session")
def ruler_function(ruler_mirror):
    """``ruler_function(file, name)``: a function of one of RULER's scripts, compiled from the mirror's file alone."""

    def load(relative: str, name: str):
        source = (ruler_mirror / relative).read_text(encoding="utf-8")
        tree = ast.parse(source)
        node = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name)
        namespace: dict = {"json": json, "os": os}
        exec(compile(ast.Module(body=[node], type_ignores=[]), relative, "exec"), namespace)  # noqa: S102 (test oracle)
        return namespace[name]

    return load


def pinned(folder: Path, relative: str, data: bytes, role: str, language: str = "en") -> SourceFile:
    """Write ``data`` at ``folder/relative`` and return a test manifest entry pinning it (``role``: the manifest's
    "kind")."""
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return SourceFile(relative, sha256_bytes(data), len(data), role, language, "test",
                      urls=(f"https://example.invalid/{relative}",))


@pytest.fixture
def tiny_mirror(tmp_path):
    """A temporary mirror folder with a tiny SQuAD v2, HotpotQA and english_words.json, and a test manifest."""
    folder = tmp_path / "mirror"
    dump = lambda doc: json.dumps(doc, indent=1, ensure_ascii=False).encode("utf-8")  # noqa: E731
    entries = [pinned(folder, "dataset/dev-v2.0.json", dump(TINY_SQUAD_V2), "squad"),
               pinned(folder, "hotpot_dev_distractor_v1.json", dump(TINY_HOTPOT), "hotpotqa"),
               pinned(folder, "scripts/data/synthetic/json/english_words.json", dump(TINY_ENGLISH_WORDS),
                      "ruler_english_words")]
    return folder, entries
