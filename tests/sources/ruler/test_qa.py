"""SQuAD, HotpotQA and XQuAD in RULER's structures, compared with RULER's ``read_squad`` / ``read_hotpotqa`` run on
the same bytes (tiny files in each exact format, the real XQuAD of ../shared), and malformed files refused."""

from __future__ import annotations

import json

import pytest
from ruler_fixtures import TINY_HOTPOT, TINY_SQUAD_V2, ruler_function, ruler_mirror, tiny_mirror, xquad_mirror  # noqa: F401

from builders.base.errors import SourceError
from builders.sources.manifest import SourceFile
from builders.sources.ruler.qa import QaDataset, parse_hotpotqa, parse_squad
from builders.sources.ruler.store import RulerSources

QA = "scripts/data/synthetic/qa.py"


def as_ruler(dataset: QaDataset, squad: bool) -> tuple[list[dict], list[str]]:
    """Our dataset in the shape RULER's readers return: (total_qas, total_docs)."""
    qas = [{"query": q.query, "outputs": list(q.outputs), "context": list(q.context),
            **({"more_context": list(q.more_context)} if squad else {})} for q in dataset.questions]
    return qas, list(dataset.documents)


def ruler_read(ruler_function, name: str, doc, tmp_path) -> tuple[list[dict], list[str]]:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return ruler_function(QA, name)(str(path))


@pytest.fixture
def tiny(tiny_mirror, tmp_path):
    folder, entries = tiny_mirror
    return RulerSources(mirror=str(folder), cache_dir=tmp_path / "cache", entries=entries), entries


def test_squad_is_rulers_read_squad(tiny, ruler_function, tmp_path):
    sources, entries = tiny
    squad = sources.squad
    assert as_ruler(squad, squad=True) == ruler_read(ruler_function, "read_squad", TINY_SQUAD_V2, tmp_path)
    assert squad.documents == ("Alpha paragraph.", "Mid paragraph \u00e9.", "Zeta paragraph.")
    assert [q.query for q in squad.questions] == ["q1?", "q3?", "q4?"]  # q2 is impossible
    assert squad.questions[0].more_context == (0,)  # the article's other paragraphs (not the question's own)...
    assert squad.questions[1].more_context == (2, 2)  # ...in paragraph order, a repeated paragraph kept twice
    assert (squad.name, squad.language, squad.files) == ("squad", "en", (entries[0],))


def test_hotpotqa_is_rulers_read_hotpotqa(tiny, ruler_function, tmp_path):
    sources, entries = tiny
    hotpot = sources.hotpotqa
    assert as_ruler(hotpot, squad=False) == ruler_read(ruler_function, "read_hotpotqa", TINY_HOTPOT, tmp_path)
    assert hotpot.documents == ("T1\nOnly.", "T2\nS one. S two.", "T3\n")
    assert hotpot.questions[1].context == (0, 2, 1) and hotpot.questions[1].more_context == ()


@pytest.mark.parametrize("language", ["de", "en", "hi", "ru", "vi", "zh", "ar", "ro"])
def test_xquad_is_read_squads_rule(ruler_sources, ruler_function, xquad_mirror, language, tmp_path):
    xquad = ruler_sources.xquad(language)
    doc = json.loads((xquad_mirror / f"xquad.{language}.json").read_text(encoding="utf-8"))
    for article in doc["data"]:  # RULER's read_squad needs SQuAD v2's key; XQuAD's questions are all answerable
        for p in article["paragraphs"]:
            for qa in p["qas"]:
                qa["is_impossible"] = False
    assert as_ruler(xquad, squad=True) == ruler_read(ruler_function, "read_squad", doc, tmp_path)
    assert (len(xquad.documents), len(xquad.questions)) == (240, 1190)  # XQuAD's README
    assert xquad.language == language and xquad.files[0].path == f"xquad.{language}.json"


def test_xquad_languages_and_an_unknown_one(ruler_sources):
    assert ruler_sources.xquad_languages == ("ar", "de", "el", "en", "es", "hi", "ro", "ru", "th", "tr", "vi", "zh")
    with pytest.raises(SourceError, match="XQuAD has no language 'pl'; it has ar, de, el, "):
        ruler_sources.xquad("pl")


def entry(path: str = "f.json") -> SourceFile:
    return SourceFile(path, "0" * 64, 1, "squad", "en", "x")


@pytest.mark.parametrize("doc, message", [
    ([], "expected SQuAD's format"),
    ({"data": [{"title": "x"}]}, "every article needs a list of paragraphs"),
    ({"data": [{"paragraphs": [{"context": 1, "qas": []}]}]}, "every paragraph needs a context"),
    ({"data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q", "answers": []}]}]}]},
     "every SQuAD v2.0 question needs is_impossible"),
    ({"data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q", "answers": [{"start": 1}],
                                                         "is_impossible": False}]}]}]}, "answers"),
])
def test_squad_refuses_the_unexpected(doc, message):
    with pytest.raises(SourceError, match=message) as info:
        parse_squad((entry(), json.dumps(doc).encode()))
    assert str(info.value).startswith("f.json: ") and "\n" not in str(info.value)


def test_xquad_refuses_squad_v2_and_broken_json():
    v2 = {"data": [{"paragraphs": [{"context": "c", "qas": [{"question": "q", "answers": [], "is_impossible": True}]}]}]}
    with pytest.raises(SourceError, match="is_impossible in a SQuAD v1.1 file"):
        parse_squad((entry(), json.dumps(v2).encode()), name="xquad", v2=False)
    with pytest.raises(SourceError, match="f.json: not valid JSON"):
        parse_squad((entry(), b'{"data": ['))


@pytest.mark.parametrize("doc, message", [
    ({"data": []}, "expected HotpotQA's format"),
    ([{"question": "q", "answer": 1, "context": []}], "every item needs question, answer and context"),
    ([{"question": "q", "answer": "a", "context": [["t", "not a list"]]}], r"must be \[title, \[sentence, ...\]\]"),
    ([{"question": "q", "answer": "a", "context": [["t", ["s"], "x"]]}], "must be"),
])
def test_hotpotqa_refuses_the_unexpected(doc, message):
    with pytest.raises(SourceError, match=message):
        parse_hotpotqa((entry("h.json"), json.dumps(doc).encode()))
