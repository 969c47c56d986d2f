"""The essay haystack prepared once (generate/ruler/essay.py): its split of the first N words is RULER's
``sent_tokenize(text.strip())`` of those words, and its counts by construction are the tokenizer's."""

from __future__ import annotations

import random

import pytest
from ruler_oracle import essay_context, essay_sentences

from builders.generate.counting import TokenCounter
from builders.generate.ruler.essay import EssayCounts, EssaySplit


@pytest.fixture(scope="module")
def split(ruler_sources):
    return EssaySplit(ruler_sources.essays.words, ruler_sources.sentence_tokenizer)


def test_the_split_of_any_first_words_is_punkts_of_those_words(split, ruler_sources):
    words, punkt = ruler_sources.essays.words, ruler_sources.sentence_tokenizer
    rnd = random.Random(35)
    sizes = [0, 1, 2, 3, 21, 22, 23] + [rnd.randint(4, 4000) for _ in range(60)] + [rnd.randint(4000, 25000)
                                                                                    for _ in range(6)]
    for n in sizes:
        assert split.sentence_list(n) == essay_sentences(words, punkt, n), n


def test_past_the_essays_end_the_words_repeat(split, ruler_sources):
    words, punkt = ruler_sources.essays.words, ruler_sources.sentence_tokenizer
    m = len(words)
    for n in (m - 1, m + 3, 2 * m + 11):
        assert split.sentence_list(n) == essay_sentences(words, punkt, n), n
    assert split.copies >= 3 and split.char_end(m + 1) == len(" ".join(words) + " " + words[0])


@pytest.mark.parametrize("alias", ["cl100k", "llama3"])
def test_counts_by_construction_are_the_tokenizers(split, registry, alias):
    tokenizer = registry.get(alias)
    counter = TokenCounter(tokenizer)
    counts = EssayCounts(split, counter)
    head, tail = counter.pieces(["Some text.\n", "\nWhat? The answer is"])
    needles = counter.pieces([" One of the special magic numbers for x-y is: 1234567.", " Another needle here."])
    rnd = random.Random(7)
    for n, depths in [(900, [0, 100]), (2500, [5, 5]), (301, [38, 97])] + [
            (rnd.randint(100, 9000), sorted(rnd.sample(range(101), 2))) for _ in range(10)]:
        layout = counts.layout(n, depths)
        assert counts.exact_for(layout)  # every haystack past its first few sentences
        sentences = counts.sentences(layout)
        context = essay_context(sentences, [p.text[1:] for p in needles], depths)
        assert counts.count_prompt(layout, head, needles, tail) == tokenizer.count(head.text + context + tail.text)
        for p in (0, 1, layout.points[0], layout.n_sentences):
            assert counts.haystack_tokens(layout, p) == tokenizer.count(" ".join(sentences[:p]))
    assert not counts.exact_for(counts.layout(31, [0]))  # within its first sentences: tokenised whole
    costs = tokenizer.count_batch([" " + w for w in split.words])
    assert counts.word_tokens(len(split.words) + 2) == sum(costs) + sum(costs[:2])
