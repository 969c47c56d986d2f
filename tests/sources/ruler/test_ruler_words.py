"""RULER's word sources compared with RULER's own expressions over wonderwords' own reader
(``wonderwords.random_word._get_words_from_text_file``, what RULER calls), and english_words.json read in file order."""

from __future__ import annotations

import json

import pytest
from ruler_fixtures import TINY_ENGLISH_WORDS, tiny_mirror  # noqa: F401 (fixture)
from wonderwords import random_word

from builders.base.errors import SourceError
from builders.sources.manifest import SourceFile
from builders.sources.ruler.store import RulerSources
from builders.sources.ruler.words import NiahKeys, WonderwordsLists, parse_english_words, text_file_lines


@pytest.fixture(scope="module")
def rulers_lists():
    return {name: random_word._get_words_from_text_file(f"{name}list.txt") for name in ("noun", "adjective", "verb")}


def test_lists_are_read_as_wonderwords_reads_them(ruler_sources, rulers_lists):
    lists = ruler_sources.wonderwords
    assert (list(lists.nouns), list(lists.adjectives), list(lists.verbs)) == (
        rulers_lists["noun"], rulers_lists["adjective"], rulers_lists["verb"])
    assert [f.path.rsplit("/", 1)[1] for f in lists.files] == ["nounlist.txt", "adjectivelist.txt", "verblist.txt"]


def test_niah_keys_are_rulers_sorted_adjective_noun_set(ruler_sources, rulers_lists):
    keys = ruler_sources.niah_keys
    words = [f"{adj}-{noun}" for adj in rulers_lists["adjective"] for noun in rulers_lists["noun"]]  # niah.py
    words = sorted(list(set(words)))
    assert len(keys) == len(words)
    assert list(keys) == words
    assert [keys[i] for i in (0, 1, len(words) // 2, len(words) - 1)] == [words[i] for i in (0, 1, len(words) // 2, -1)]


def test_niah_keys_order_where_a_key_is_another_adjectives_prefix():
    """'-' sorts below letters and above ' ' and "'": keys are ordered as whole strings, duplicates merged."""
    lists = WonderwordsLists(nouns=("b", "b-c", "a", "c"), adjectives=("x", "x-b", "x y", "'q"), verbs=(), files=())
    expected = sorted({f"{a}-{n}" for a in lists.adjectives for n in lists.nouns})
    assert len(expected) == 4 * 4 - 1  # x + b-c and x-b + c are one key
    assert list(NiahKeys(lists)) == expected and len(NiahKeys(lists)) == len(expected)


def test_cwe_words_are_the_sorted_set_before_rulers_shuffle(ruler_sources, rulers_lists):
    words = rulers_lists["noun"] + rulers_lists["adjective"] + rulers_lists["verb"]  # common_words_extraction.py
    assert list(ruler_sources.cwe_words.words) == sorted(list(set(words)))


def test_text_file_lines_are_readlines_right_stripped():
    data = b"one \r\ntwo\rthree\x0bstill three\n\nlast"
    assert text_file_lines(data, "x.txt") == ("one", "two", "three\x0bstill three", "", "last")


def test_english_words_are_the_values_in_file_order(tiny_mirror, tmp_path):
    folder, entries = tiny_mirror
    sources = RulerSources(mirror=str(folder), cache_dir=tmp_path / "cache", entries=entries)
    words = sources.english_words
    assert list(words.words) == list(TINY_ENGLISH_WORDS.values())  # list(json.load(f).values())
    assert words.files == (entries[2],)


@pytest.mark.parametrize("doc, message", [
    (b"[1, 2]", "expected a non-empty JSON object of words"),
    (b"{}", "expected a non-empty JSON object"),
    (json.dumps({"a": "b", "c": 3}).encode(), "every value must be a word \\(a string\\); found 3"),
    (b"{'a': 1}", "not valid JSON"),
    (b"\xff\xfe", "english_words.json"),
])
def test_english_words_refuse_the_unexpected(doc, message):
    entry = SourceFile("scripts/data/synthetic/json/english_words.json", "0" * 64, 1, "ruler_english_words", "en", "x")
    with pytest.raises(SourceError, match=message) as info:
        parse_english_words(entry, doc)
    assert "english_words.json" in str(info.value)
