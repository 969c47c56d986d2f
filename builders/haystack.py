"""Pre-tokenised material shared by all examples of a (language, tokenizer): book sentences, word costs."""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from itertools import accumulate

from .languages import get_language
from .segment import split_sentences
from .sources import Sources
from .tokenizer import Tokenizer


@dataclass
class PreparedBook:
    """A book as sentences with cumulative token costs; unit k cycles through the book."""

    language: str
    sentences: list[str]
    costs: list[int]  # tokens of joiner + sentence
    prefix: list[int]  # prefix[i] = sum(costs[:i])
    scale: float = 1.0  # exact tokens of the joined book / sum of costs (joins merge tokens in zh/ja)

    @property
    def total(self) -> int:
        return self.prefix[-1]

    def cum(self, k: int) -> int:
        """Estimated tokens of the first k units (cycling back to the start of the book)."""
        full, rest = divmod(k, len(self.sentences))
        return int((full * self.total + self.prefix[rest]) * self.scale)

    def cost(self, k: int) -> int:
        return self.costs[k % len(self.sentences)]

    def units_for(self, tokens: int) -> int:
        """A k whose estimated cost exceeds ``tokens`` (an upper bound for searches)."""
        raw = int(tokens / min(self.scale, 1.0)) + 1
        full, rest = divmod(raw, self.total)
        return full * len(self.sentences) + bisect.bisect_left(self.prefix, rest) + 1

    def take(self, k: int) -> list[str]:
        full, rest = divmod(k, len(self.sentences))
        return self.sentences * full + self.sentences[:rest]


def _cache(sources: Sources) -> dict:
    return sources.__dict__.setdefault("_prepared", {})


def prepared_book(sources: Sources, language: str, tokenizer: Tokenizer) -> PreparedBook:
    """Segment and pre-tokenise a language's book once per (sources, tokenizer)."""
    key = ("book", language, tokenizer.identity)
    cache = _cache(sources)
    if key not in cache:
        sentences = split_sentences(language, sources.book_text(language))
        joiner = get_language(language).joiner
        costs = tokenizer.count_batch([joiner + s for s in sentences])
        prefix = [0, *accumulate(costs)]
        # One deterministic correction per book and tokenizer, so that one exact measurement
        # usually suffices even where tokens merge across joins.
        scale = tokenizer.count(joiner.join(sentences)) / prefix[-1]
        cache[key] = PreparedBook(language, sentences, costs, prefix, scale)
    return cache[key]


@dataclass
class PreparedPool:
    """A CWE word pool with the token cost of each word as a list item (`` word``)."""

    language: str
    words: tuple[str, ...]
    costs: list[int]


def prepared_pool(sources: Sources, language: str, tokenizer: Tokenizer) -> PreparedPool:
    key = ("pool", language, tokenizer.identity)
    cache = _cache(sources)
    if key not in cache:
        words = sources.word_pool(language).words
        cache[key] = PreparedPool(language, words, tokenizer.count_batch([" " + w for w in words]))
    return cache[key]


def numbering_prefix(sources: Sources, tokenizer: Tokenizer, n: int) -> list[int]:
    """prefix[m] = estimated tokens of the list markers `` 1.`` … `` m.`` (cached, grown on demand)."""
    key = ("numbering", tokenizer.identity)
    cache = _cache(sources)
    prefix = cache.get(key, [0])
    if len(prefix) <= n:
        start = len(prefix)
        costs = tokenizer.count_batch([f" {i}." for i in range(start, max(n, 2 * start) + 1)])
        prefix = prefix + list(accumulate(costs, initial=prefix[-1]))[1:]
        cache[key] = prefix
    return prefix
