"""RULER's variable tracking in ONERULER's books (generate/ruler/vt_book.py) read back against RULER's rule for a text
haystack (variable_tracking.py, type_haystack essay): the book's sentences in order with the statements between
them, the chain, the in-context example over the same book, the budget re-tokenised whole."""

from __future__ import annotations

import re

import pytest

from builders.spec.configs import parse_config_name

STATEMENT = re.compile(r"VAR ([A-Z]{%d}) = (?:([0-9]{5})|VAR ([A-Z]{%d}))\.")
QUESTION = "Memorize and track the chain(s) of variable assignment"
LENGTH = 8192


@pytest.fixture(scope="module")
def rows(generator):
    return {lang: [generator.example(parse_config_name(f"{lang}-en_ruler_vt_{LENGTH}"), i) for i in range(2)]
            for lang in ("pl", "zh")}


def chain_in(text: str, letters: int) -> tuple[list[str], str]:
    """(the chain's variables in text order, its value): RULER's statements, each naming the one before."""
    found = list(re.compile(STATEMENT.pattern % (letters, letters)).finditer(text))
    assert found and found[0][2] is not None, text[:300]
    names, value = [found[0][1]], found[0][2]
    for m in found[1:]:
        assert m[3] == names[-1], m[0]
        names.append(m[1])
    return names, value


def haystack_of(row: dict, letters: int = 5) -> str:
    """The context without its statements (each one and the joiner before it, or after it when it comes first)."""
    context = row["input"][slice(*row["context_span"])]
    return re.sub(r"\A" + STATEMENT.pattern % (letters, letters) + r"|\s?" + STATEMENT.pattern % (letters, letters),
                  "", context)


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_the_haystack_is_the_books_sentences_with_the_chain_between_them(generator, rows, lang):
    book = generator.prepared.book(lang, generator.tokenizer_for(parse_config_name(f"{lang}-en_ruler_vt_{LENGTH}")))
    joiner = " " if lang == "pl" else ""
    for row in rows[lang]:
        assert haystack_of(row) == joiner.join(book.take(row["num_units"]))
        names, value = chain_in(row["input"][slice(*row["context_span"])], 5)
        assert names == row["answers"] and len(names) == 5 == len(set(names)) and row["queries"] == [value]
        assert [n["value"] for n in row["needles"]] == names and row["needles"][0]["key"] == value
        depths = [n["actual_depth"] for n in row["needles"]]
        assert depths == sorted(depths) and all(0 <= n["token_depth"] <= 100 for n in row["needles"])
        assert row["input"].endswith(f"assigned the value {value} in the text above.")
        assert row["answer_prefix"].endswith(f"{len(names)} variables are assigned the value {value}, they are: ")


@pytest.mark.parametrize("lang", ["pl", "zh"])
def test_budget_is_exact_and_filled_to_one_sentence(generator, rows, cl100k, lang):
    book = generator.prepared.book(lang, cl100k)
    joiner = " " if lang == "pl" else ""
    for row in rows[lang]:
        assert row["num_tokens"] == cl100k.count(row["input"] + row["answer_prefix"])
        assert row["num_tokens"] + 30 <= LENGTH == row["budget"] + row["reserve"]
        end = row["context_span"][1]
        nxt = book.take(row["num_units"] + 1)[-1]
        more = row["input"][:end] + joiner + nxt + row["input"][end:] + row["answer_prefix"]
        assert cl100k.count(more) + 30 > LENGTH
        assert row["num_tokens"] > 0.97 * (LENGTH - 30)


def test_the_in_context_example_is_the_same_books_opening_with_fresh_names(rows):
    for lang, pair in rows.items():
        examples = [row["input"][:row["input"].index(QUESTION, 1)] for row in pair]
        chains = [chain_in(example, 3) for example in examples]
        for example, (names, value) in zip(examples, chains):
            assert example.endswith(" " + " ".join(names) + "\n\n") and value in example.split("Question:")[1]
            assert value != "12345"
        assert chains[0][0] != chains[1][0]  # renamed per row (RULER's randomize_icl) ...
        bare = [re.sub(STATEMENT.pattern % (3, 3), "", e.split("Question:")[0]) for e in examples]
        assert bare[0] == bare[1]  # ... the book's text untouched
        assert bare[0].split("\n\n", 1)[1].replace(" ", "")[:20] in pair[0]["input"][slice(*pair[0]["context_span"])
                                                                                    ].replace(" ", "")[:200]


def test_every_language_hides_the_same_chain(rows):
    assert [r["answers"] for r in rows["pl"]] == [r["answers"] for r in rows["zh"]]
    assert [[n["depth"] for n in r["needles"]] for r in rows["pl"]] == [[n["depth"] for n in r["needles"]]
                                                                       for r in rows["zh"]]


def test_rows_are_pure_functions_of_their_index(sources, registry, rows):
    from builders.generate.rows import RowGenerator

    fresh = RowGenerator(sources, registry)  # nothing prepared: another process's view
    assert fresh.example(parse_config_name(f"zh-en_ruler_vt_{LENGTH}"), 1) == rows["zh"][1]
    assert fresh.example(parse_config_name(f"pl-en_ruler_vt_{LENGTH}"), 0) == rows["pl"][0]


def test_a_native_config_takes_the_checked_translation(generator, ruler_sources, tmp_path, monkeypatch, rows):
    from translation_fixtures import pseudo_document, write_document  # artificial: every word a [[pl]] marker

    monkeypatch.setenv("ONERULER_TRANSLATIONS", str(tmp_path))
    write_document(tmp_path, pseudo_document(ruler_sources.tasks, "pl", ["variable_tracking"]))
    native = generator.example(parse_config_name(f"pl_ruler_vt_{LENGTH}"), 0)
    assert native["input"].startswith("[[pl]] ") and native["answer_prefix"].strip().startswith("[[pl]]")
    assert QUESTION not in native["input"] and native["answers"] == rows["pl"][0]["answers"]
