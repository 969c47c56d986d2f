"""Line haystacks (generate/ruler/lines.py): RULER's insertion (``sentences.insert(index, line)``) and the counts
of ``head + "\\n".join(lines) + tail`` by construction."""

from __future__ import annotations

import random

import pytest

from builders.generate.counting import TokenCounter
from builders.generate.ruler.lines import LineCounter, joined, make_lines, place
from ruler_oracle import NOISE


def rulers_insertion(haystack: list[str], inserts: list[tuple[int, str]]) -> list[str]:
    """niah.py's loop: indexes sorted from the highest, each inserted at its index."""
    lines = list(haystack)
    for index, text in sorted(inserts, key=lambda item: -item[0]):
        lines.insert(index, text)
    return lines


def test_placement_is_rulers_insertion():
    rnd = random.Random(3)
    for _ in range(200):
        n = rnd.randint(1, 30)
        haystack = [f"h{i}" for i in range(n)]
        inserts = [(i, f"x{j}") for j, i in enumerate(rnd.sample(range(n), rnd.randint(1, min(n, 5))))]
        placed = place(inserts)
        assert joined(haystack, placed).split("\n") == rulers_insertion(haystack, inserts)
        final = rulers_insertion(haystack, inserts)
        assert all(final[pos] == text for pos, _, text in placed)


@pytest.mark.parametrize("alias", ["cl100k", "llama3", "qwen"])
def test_counts_by_construction_are_the_tokenizers(registry, alias):
    tokenizer = registry.get(alias)
    counter = TokenCounter(tokenizer)
    head, tail = "Intro text.\n", "\nWhat is it? The answer is"
    texts = ["One of the special magic numbers for x is: 1234567.", "VAR ABCDE = VAR FGHIJ ", NOISE]
    lines = LineCounter(counter, head, tail, {t[0] for t in texts})
    assert lines.exact
    rnd = random.Random(5)
    made = make_lines(counter, texts)
    for _ in range(20):
        chosen = [rnd.choice(made) for _ in range(rnd.randint(1, 12))]
        units = sum(line.tokens for line in chosen[:-1])
        context = "\n".join(line.text for line in chosen)
        assert lines.prompt_tokens(units, chosen[-1].text, lambda: context) == tokenizer.count(head + context + tail)
        assert lines.haystack_tokens(units, chosen[-1].text, lambda: context) == tokenizer.count(context)


def test_a_tokenizer_without_cuts_is_given_whole_prompts(registry):
    counter = TokenCounter(registry.get("cl100k"), full_count=True)
    lines = LineCounter(counter, "Head.\n", "\nTail", {"T"})
    assert not lines.exact
    assert lines.prompt_tokens(10 ** 6, NOISE, lambda: NOISE) == registry.get("cl100k").count("Head.\n" + NOISE + "\nTail")
