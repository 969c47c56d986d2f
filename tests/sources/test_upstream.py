"""Upstream's CWE pool rules re-applied with the standard library equal pandas running upstream's code."""

from __future__ import annotations

import io

import pandas as pd

from builders.sources.upstream import upstream_word_pool
from builders.spec.languages import LANGUAGE_CODES


def pandas_pool(data: bytes) -> tuple[str, ...]:
    """The lines of OneRuler/synthetic/common_words_extraction.py that build the pool (non-English)."""
    df = pd.read_csv(io.BytesIO(data), dtype={"words": str}, header=0)
    df = df.dropna(subset=["words"])
    df = df[~df["words"].str.contains(r"\d", regex=True)]
    nouns = list(df[df["pos"] == "noun"]["words"])
    adjs = list(df[df["pos"] == "adjective"]["words"])
    verbs = list(df[df["pos"] == "verb"]["words"])
    return tuple(sorted(set(nouns + adjs + verbs)))


def test_every_language_matches_upstreams_code(sources):
    for lang in LANGUAGE_CODES:
        if lang == "en":
            continue
        data, where = sources._bytes("dictionary", lang)
        assert upstream_word_pool(data, where) == pandas_pool(data), lang


def test_english_is_wonderwords_as_upstream_reads_it(sources):
    from wonderwords import random_word

    words = [w for f in ("nounlist.txt", "adjectivelist.txt", "verblist.txt")
             for w in random_word._get_words_from_text_file(f)]
    assert sources.upstream_word_pool("en") == tuple(sorted(set(words)))


def test_pool_sizes_the_audit_measured(sources):
    for lang, upstream, here in [("zh", 2173, 3558), ("ko", 2605, 4003), ("vi", 6254, 7195), ("pt", 7617, 8502)]:
        assert len(sources.upstream_word_pool(lang)) == upstream
        assert len(sources.word_pool(lang).words) == here


def test_pandas_missing_values_and_exact_tags_are_mimicked():
    data = b"words,pos\nNA,noun\nnull,verb\nhouse,noun\n,noun\nrun,\"verb,noun\"\nr2d2,noun\nblue,adjective\n"
    assert upstream_word_pool(data, "x.csv") == pandas_pool(data) == ("blue", "house")
