import hashlib
import json
import re

import pytest

from builders.base.errors import IntegrityError, SourceError
from builders.scoring import NONE_WORDS
from builders.sources.parse import (
    NIAH_KEYS, parse_cwe_template, parse_niah_template, parse_noun_table, parse_word_pool,
)
from builders.sources.store import english_pool
from builders.spec.languages import LANGUAGE_CODES


def test_all_languages_load(sources):
    for lang in LANGUAGE_CODES:
        t = sources.niah_template(lang)
        assert set(t.pieces) == set(NIAH_KEYS)
        assert t.none_word in NONE_WORDS[lang] or t.none_word.lower() in [w.lower() for w in NONE_WORDS[lang]]
        assert re.match(r"</[^>]+>\s*$", t.closing_tag)
        assert sources.cwe_template(lang).text.count("{context}") == 1
        assert len(sources.word_pool(lang).words) > 2000
        assert len(sources.book_text(lang)) > 10_000
    assert len(sources.nouns.rows) == 100 and set(sources.nouns.rows[0]) == set(LANGUAGE_CODES)


def test_documented_fixes_are_applied_and_counted(sources):
    fixes = {(f.name, f.language): f.count for f in sources.fixes}
    assert fixes[("cwe_template_duplicate_context", "vi")] == 1
    assert fixes[("de_page_markers", "de")] == 1074
    assert fixes[("sw_page_headers", "sw")] == 73  # 82 in the file; 9 fall inside the glossary, cut first
    assert fixes[("cwe_korean_homograph_digits", "ko")] > 1000
    assert not re.search(r"\{\d+\}", sources.book_text("de"))
    sw = sources.book_text("sw")
    assert "ISBN" not in sw and "Maisha Yangu na Baada ya Miaka Hamsini" not in sw and "m w a n z o" not in sw
    assert "\f" not in sw and "\r" not in sw
    ko = sources.word_pool("ko").words
    assert len(ko) > 3500 and not any(re.search(r"\d", w) for w in ko)


def test_english_pool_is_wonderwords_2_2_0():
    words = english_pool().words
    # present in 2.2.0, dropped in 3.0.1 (SPEC §2)
    assert {"abortion", "brocolli", "idiot", "pray"} <= set(words)


def _niah(**override):
    doc = {k: f"{k} text" for k in NIAH_KEYS}
    doc.update(task="T {context}", needle_words="{key} {value}", needle_numbers="{key} {value}",
               question_single_numbers="{query1}?", question_single_words="{query1}?",
               question_multi_numbers="{query1} {query2}?", question_multi_words="{query1} {query2}?",
               if_no_numbers="none.</Q>\n\n")
    doc.update(override)
    return json.dumps({k: v for k, v in doc.items() if v is not None}).encode()


def test_niah_template_accepts_valid():
    assert parse_niah_template(_niah(), "x/niah.txt", "en").closing_tag == "</Q>\n\n"


@pytest.mark.parametrize(
    "data, fragment",
    [
        (_niah(please_list=None), "missing keys ['please_list']"),
        (_niah(extra="x"), "unexpected keys ['extra']"),
        (_niah(task="no placeholder"), "'task' must contain {context} exactly once"),
        (_niah(needle_numbers="{key} only"), "'needle_numbers' must contain {value}"),
        (_niah(question_multi_numbers="{query1}"), "{query2}"),
        (_niah(if_no_numbers="no tag"), "closing tag"),
        (_niah(none=""), "'none' must be a non-empty string"),
        (b"{not json", "not valid JSON"),
        (b"\xff\xfe", "not valid UTF-8"),
    ],
)
def test_niah_template_errors_name_file_and_problem(data, fragment):
    with pytest.raises(SourceError) as info:
        parse_niah_template(data, "prompt/xx/niah.txt", "xx")
    assert "prompt/xx/niah.txt" in str(info.value) and fragment in str(info.value)


def test_cwe_template():
    tpl, fixes = parse_cwe_template(b"A\n<L> {context} </L>\nQ", "cwe.txt", "en")
    assert not fixes and tpl.render("1. a") == ("A\n<L> 1. a </L>\nQ", (6, 10))
    for bad in (b"no placeholder", b"{context} {context}"):
        with pytest.raises(SourceError, match="cwe.txt: must contain {context} exactly once"):
            parse_cwe_template(bad, "cwe.txt", "en")


def _table(header, rows=100):
    lines = ["\t".join(header)] + ["\t".join(f"w{i}{h}" for h in header) for i in range(rows)]
    return "\n".join(lines).encode()


def test_noun_table_errors():
    header = ["en", "definition"] + [c for c in LANGUAGE_CODES if c != "en"]
    assert len(parse_noun_table(_table(header), "nouns.tsv").rows) == 100
    with pytest.raises(SourceError, match=r"nouns.tsv: unknown language column\(s\) \['xx'\]"):
        parse_noun_table(_table(header + ["xx"]), "nouns.tsv")
    with pytest.raises(SourceError, match=r"missing language column\(s\) \['zh'\]"):
        parse_noun_table(_table([h for h in header if h != "zh"]), "nouns.tsv")
    with pytest.raises(SourceError, match="expected 100 nouns, found 99"):
        parse_noun_table(_table(header, rows=99), "nouns.tsv")


def test_word_pool_rules_and_errors():
    data = "words,pos\nhouse,noun\nrun,\"verb,noun\"\n美丽,形容词\nfast,adverb\nr2d2,noun\n가격03,other\n학교02,noun\n".encode()
    pool, fixes = parse_word_pool(data, "Korean.csv", "ko")
    assert pool.words == tuple(sorted({"house", "run", "美丽", "학교"}))
    assert {f.name for f in fixes} == {"cwe_pos_tag_mapping", "cwe_korean_homograph_digits"}
    with pytest.raises(SourceError, match="X.csv: the word pool is empty"):
        parse_word_pool(b"words,pos\nfast,adverb\n", "X.csv", "xx")
    with pytest.raises(SourceError, match="X.csv: expected header 'words,pos'"):
        parse_word_pool(b"word;pos\n", "X.csv", "xx")


def test_cached_copy_that_changed_is_refused(sources):
    entry = sources._by_role[("niah_prompt", "pl")]
    path = sources._paths[entry.path]
    original = path.read_bytes()
    try:
        path.write_bytes(original + b" ")
        fresh = type(sources)(sources._paths, sources._entries)
        with pytest.raises(IntegrityError, match="prompt/pl/niah.txt: cached copy no longer matches"):
            fresh.niah_template("pl")
    finally:
        path.write_bytes(original)
    assert hashlib.sha256(path.read_bytes()).hexdigest() == entry.sha256


def test_each_role_is_parsed_once_per_language_and_kept(sources):
    fresh = type(sources)(sources._paths, sources._entries)
    assert fresh.niah_template("ko") is fresh.niah_template("ko") is fresh.niah.value("ko")
    assert fresh.word_pool("ko") is fresh.pools.value("ko")
    assert {f.name for f in fresh.pools.fixes("ko")} == {"cwe_pos_tag_mapping", "cwe_korean_homograph_digits"}
    assert fresh.niah.fixes("ko") == [] and fresh.upstream_word_pool("ko") is fresh.upstream_pools.value("ko")
    with pytest.raises(SourceError, match="unknown language 'xx'; valid: cs, da"):
        fresh.book_text("xx")
