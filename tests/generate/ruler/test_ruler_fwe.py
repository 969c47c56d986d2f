"""RULER's frequent words extraction rows checked against RULER's rules (freq_words_extraction.py) from the text
alone: the coded words parsed back and counted, the counts recomputed with scipy's zeta as RULER does, the answers,
budgets counted whole, determinism, token control, the alpha refusal."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import pytest
import scipy.special

from builders.base.errors import OneRulerError
from builders.generate.rows import RowGenerator
from builders.generate.ruler.fwe import ZETA, word_counts, zeta
from builders.spec.configs import parse_config_name


def test_zeta_is_scipys_bit_for_bit():
    assert ZETA[2.0].hex() == float(scipy.special.zeta(2.0)).hex()
    with pytest.raises(OneRulerError, match="alpha = 1.5; the generator knows zeta at 2.0 only"):
        zeta(1.5)


@pytest.mark.parametrize("num_words, vocab", [(1, 80), (27, 80), (5000, 161), (72268, 2620)])
def test_counts_are_rulers_expression(num_words, vocab):
    k = np.arange(1, vocab + 1)
    ruler = (num_words * (k ** -2.0) / scipy.special.zeta(2.0)).astype(int)  # RULER's gen_text
    assert word_counts(num_words, vocab, 2.0).tolist() == ruler.tolist()


def coded_words(row: dict, template) -> list[str]:
    """The coded text of a row, from its input alone (between RULER's instruction and its question)."""
    head, _, rest = template.template.partition("{context}")
    assert row["input"].startswith(head) and row["input"].endswith(rest)
    start, end = row["context_span"]
    assert (start, end) == (len(head), len(row["input"]) - len(rest))
    return row["input"][start:end].split(" ")


def rulers_num_words(counts: list[int], vocab_size: int) -> int:
    """A num_words whose Zeta counts (RULER's expression, scipy's zeta) are exactly ``counts`` (sorted, descending)."""
    target = counts + [0] * (vocab_size - len(counts))
    total = sum(counts)
    k = np.arange(1, vocab_size + 1)
    for n in range(total, 2 * total + vocab_size):
        if (n * (k ** -2.0) / scipy.special.zeta(2.0)).astype(int).tolist() == target:
            return n
    raise AssertionError(f"no num_words gives the counts {counts[:6]}…")


@pytest.mark.parametrize("config", ["en_ruler_fwe_4096", "en_ruler_fwe_16384"])
def test_rows_follow_rulers_rules(generator, ruler_sources, cl100k, config):
    spec = parse_config_name(config)
    template = ruler_sources.tasks.templates["freq_words_extraction"]
    vocab_size = (spec.length - 50) // 50  # RULER: max_seq_length - tokens_to_generate, // 50
    for index in range(2):
        row = generator.example(spec, index)
        words = coded_words(row, template)
        assert all(re.fullmatch(r"[a-z]{6}", w) for w in words if w != "...")
        counts = Counter(words)
        ranked = sorted(counts.items(), key=lambda item: -item[1])
        assert ranked[0][0] == "..." and len(counts) <= vocab_size
        n = rulers_num_words([c for _, c in ranked], vocab_size)
        assert row["num_units"] == len(words)
        # the answers: ranks 2..4, whose counts differ from each other and from rank 5's at these lengths
        assert row["answers"] == [w for w, _ in ranked[1:4]] and ranked[3][1] > ranked[4][1]
        assert cl100k.count(row["input"] + row["answer_prefix"]) == row["num_tokens"] <= row["budget"]
        # one num_words more adds the words whose counts grow (each at most the widest word's tokens): it overflows
        grown = int((word_counts(n + 1, vocab_size, 2.0) - word_counts(n, vocab_size, 2.0)).sum())
        widest = max(cl100k.count(" " + w) for w in counts)
        assert row["budget"] - row["num_tokens"] < max(grown, 1) * widest + 2
        assert row["answer_prefix"] == template.answer_prefix


def test_rows_are_a_function_of_their_index(sources, registry):
    spec = parse_config_name("en_ruler_fwe_8192")
    forward = [RowGenerator(sources, registry).example(spec, i) for i in (0, 1)]
    backward = RowGenerator(sources, registry)
    assert [backward.example(spec, i) for i in (1, 0)][::-1] == forward
    assert forward[0]["answers"] != forward[1]["answers"]


def test_token_control_counts_in_its_tokenizer(generator, registry):
    row = generator.example(parse_config_name("en_ruler_fwe_8192_llama3", ("llama3",)), 0)
    assert registry.get("llama3").count(row["input"] + row["answer_prefix"]) == row["num_tokens"] <= row["budget"]
    assert row["budget"] == 8192 - 50 and row["budget"] - row["num_tokens"] < 40
