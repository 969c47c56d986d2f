"""RULER's common words extraction rows checked against RULER's rules (common_words_extraction.py) from the text
alone: the example and task lists parsed back and counted, the answers, the short-context variant, budgets counted
whole, determinism, token control, english_words.json past wonderwords' list (and its absence)."""

from __future__ import annotations

import copy
import json
import os
import re
from collections import Counter

import pytest

from builders.base.files import sha256_bytes
from builders.generate.rows import RowGenerator
from builders.sources.manifest import SourceFile
from builders.sources.mirror import MissingSource
from builders.sources.ruler.pins import ruler_manifest
from builders.sources.ruler.store import RulerSources
from builders.sources.ruler.words import WordList
from builders.spec.configs import parse_config_name

QUESTION = "\nQuestion: What are the 10 most common words in the above list?"


def parse_list(text: str) -> list[str]:
    """``1. w 2. w …`` back into its words, checking the numbering (words may hold spaces, never digits)."""
    parts = re.split(r"(?:^| )(\d+)\. ", text)
    assert parts[0] == "", text[:80]
    assert [int(n) for n in parts[1::2]] == list(range(1, len(parts) // 2 + 1))
    return parts[2::2]


def parsed(row: dict, template) -> dict:
    """The example's list and answer, the task's list, from the input alone."""
    intro = template.template.split("\n")[0]
    lines = row["input"].split("\n")
    assert len(lines) == 6 and lines[0] == lines[3] == intro, lines[:1]
    example_question, _, example_answer = lines[2].partition(row["answer_prefix"] + " ")
    assert "\n" + example_question == QUESTION and lines[5] == QUESTION[1:]
    return {"example": parse_list(lines[1]), "example_answer": parse_list(example_answer), "list": parse_list(lines[4])}


def check_counts(words: list[str], common: list[str], repeats: tuple[int, int], distinct: int) -> None:
    """Each common word listed repeats[0] times, every other repeats[1] times, ``distinct`` words in all."""
    counts = Counter(words)
    assert len(counts) == distinct and len(set(common)) == len(common) == 10
    assert {w: counts[w] for w in common} == dict.fromkeys(common, repeats[0])
    assert {c for w, c in counts.items() if w not in common} == {repeats[1]}


@pytest.mark.parametrize("config, example, task", [("en_ruler_cwe_4096", (10, 3), None), ("en_ruler_cwe_2048", (3, 1), (6, 1))])
def test_rows_follow_rulers_rules(generator, ruler_sources, cl100k, config, example, task):
    spec = parse_config_name(config)
    template = ruler_sources.tasks.templates["common_words_extraction"]
    args = ruler_sources.tasks.settings["cwe"].args
    assert (args["freq_cw"], args["freq_ucw"], args["num_cw"]) == (30, 3, 10)  # synthetic.yaml
    task = task or (args["freq_cw"], args["freq_ucw"])
    words = set(ruler_sources.cwe_words.words)
    example_words = 40 if spec.length >= 4096 else 20
    layouts = []
    for index in range(3):
        row = generator.example(spec, index)
        parts = parsed(row, template)
        check_counts(parts["example"], parts["example_answer"], example, example_words)
        check_counts(parts["list"], row["answers"], task, row["num_units"])
        assert len(row["answers"]) == 10 and set(parts["list"]) <= words and set(parts["example"]) <= words
        assert row["answer_prefix"] == template.answer_prefix and row["reserve"] == 120 == row["length"] - row["budget"]
        start, end = row["context_span"]
        assert row["input"][start:end] == row["input"].split("\n")[4]
        # the budget, counted whole; one more word (its items and markers) would not fit
        assert cl100k.count(row["input"] + row["answer_prefix"]) == row["num_tokens"] <= row["budget"]
        n_items = len(parts["list"])
        widest = max(cl100k.count(f" {n_items + j}.") for j in range(1, task[1] + 1))
        assert row["budget"] - row["num_tokens"] < task[1] * (widest + max(cl100k.count(" " + w) for w in words))
        layouts.append([w in parts["example_answer"] for w in parts["example"]])
    # RULER's fixed-seed shuffle: the example's common words sit at the same places in every row, its words differ
    assert layouts[0] == layouts[1] == layouts[2]


def test_rows_are_a_function_of_their_index(sources, registry):
    spec = parse_config_name("en_ruler_cwe_4096")
    forward = [RowGenerator(sources, registry).example(spec, i) for i in (0, 1, 2)]
    backward = RowGenerator(sources, registry)
    assert [backward.example(spec, i) for i in (2, 1, 0)][::-1] == forward
    assert backward.example(spec, 0, seed=7)["answers"] != forward[0]["answers"]


def test_token_control_counts_in_its_tokenizer(generator, registry):
    row = generator.example(parse_config_name("en_ruler_cwe_8192_llama3", ("llama3",)), 0)
    llama3 = registry.get("llama3")
    assert llama3.count(row["input"] + row["answer_prefix"]) == row["num_tokens"] <= row["budget"] == 8192 - 120
    assert row["budget"] - row["num_tokens"] < 40


def few_wonderwords(sources, mirrors, tmp_path, english: list[str] | None) -> RowGenerator:
    """A generator whose RULER inputs have only 100 of wonderwords' words (so a 4096 list needs more) and, when given,
    a test english_words.json in a temporary mirror folder (else none: the file is missing)."""
    pinned = ruler_manifest()
    entries = [e for e in pinned if e.role != "ruler_english_words"]
    mirror = [str(tmp_path / "mirror")]
    (tmp_path / "mirror").mkdir()
    if english is not None:
        data = json.dumps({f"k{i}": w for i, w in enumerate(english)}).encode()
        path = tmp_path / "mirror" / "scripts/data/synthetic/json/english_words.json"
        path.parent.mkdir(parents=True)
        path.write_bytes(data)
        entries.append(SourceFile(path.relative_to(tmp_path / "mirror").as_posix(), sha256_bytes(data), len(data),
                                  "ruler_english_words", "en", "test", urls=("https://example.invalid/e.json",)))
    else:  # the real pin, which no mirror folder here holds
        entries += [e for e in pinned if e.role == "ruler_english_words"]
    ruler = RulerSources(mirror=os.pathsep.join(mirror + [mirrors]), cache_dir=tmp_path / "cache",
                         entries=entries)
    ruler.__dict__["cwe_words"] = WordList(sources.ruler.cwe_words.words[:100], ())
    mine = copy.copy(sources)
    mine.ruler = ruler
    return RowGenerator(mine)


def test_past_wonderwords_the_words_come_from_english_words(sources, mirrors, tmp_path, cl100k):
    english = [f"{a}{b}word" for a in "abcdefghijklmnopqrst" for b in "abcdefghijklmnopqrst"]  # 400
    row = few_wonderwords(sources, mirrors, tmp_path, english).example(parse_config_name("en_ruler_cwe_4096"), 0)
    parts = parsed(row, sources.ruler.tasks.templates["common_words_extraction"])
    assert row["num_units"] > 101 and set(parts["list"]) <= set(english)  # every task word: RULER's randle_words
    assert set(parts["example"]) <= set(sources.ruler.cwe_words.words[:100])  # the example: wonderwords'
    assert cl100k.count(row["input"] + row["answer_prefix"]) == row["num_tokens"] <= row["budget"]


def test_english_words_missing_is_one_line_naming_it(sources, mirrors, tmp_path):
    generator = few_wonderwords(sources, mirrors, tmp_path, None)
    with pytest.raises(MissingSource) as caught:
        generator.example(parse_config_name("en_ruler_cwe_4096"), 0)
    message = str(caught.value)
    assert message.startswith("config en_ruler_cwe_4096: needs RULER's english_words.json") and "\n" not in message
    assert "save https://media.githubusercontent.com/media/NVIDIA/RULER/" in message
    # a length wonderwords' 100 words fill never reads it
    assert generator.example(parse_config_name("en_ruler_cwe_1000"), 0)["num_units"] < 100
