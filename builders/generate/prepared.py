"""Pre-tokenised material shared by all examples of a (language, tokenizer): book sentences, word costs."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from itertools import accumulate

from ..sources.store import Sources
from ..spec.languages import get_language
from .quotes import safe_boundaries
from .segment import split_sentences
from .tokenizer import Tokenizer


@dataclass
class PreparedBook:
    """A book as sentences with cumulative token costs; unit k cycles through the book."""

    language: str
    sentences: list[str]
    costs: list[int]  # tokens of joiner + sentence
    prefix: list[int]  # prefix[i] = sum(costs[:i])
    scale: float = 1.0  # exact tokens of the joined book / sum of costs (joins merge tokens in zh/ja)
    safe: list[bool] = field(default_factory=list)  # safe[i]: the boundary before sentence i is outside quotes

    @property
    def total(self) -> int:
        """Summed unit costs of one pass through the book."""
        return self.prefix[-1]

    def cum(self, k: int) -> int:
        """Estimated tokens of the first k units (cycling back to the start of the book)."""
        full, rest = divmod(k, len(self.sentences))
        return int((full * self.total + self.prefix[rest]) * self.scale)

    def cost(self, k: int) -> int:
        """Tokens of unit k (its joiner included)."""
        return self.costs[k % len(self.sentences)]

    def units_for(self, tokens: int) -> int:
        """A k whose estimated cost exceeds ``tokens`` (an upper bound for searches)."""
        raw = int(tokens / min(self.scale, 1.0)) + 1
        full, rest = divmod(raw, self.total)
        return full * len(self.sentences) + bisect.bisect_left(self.prefix, rest) + 1

    def is_safe(self, k: int) -> bool:
        """True if a needle may go before unit k: outside every quotation and bracket (quotes.py)."""
        return not self.safe or self.safe[k % len(self.sentences)]

    def take(self, k: int) -> list[str]:
        """The first k units (cycling)."""
        full, rest = divmod(k, len(self.sentences))
        return self.sentences * full + self.sentences[:rest]


@dataclass
class PreparedPool:
    """A CWE word pool with the token cost of each word as a list item (`` word``)."""

    language: str
    words: tuple[str, ...]
    costs: list[int]


def prepare_book(sentences: list[str], language: str, joiner: str, tokenizer: Tokenizer) -> PreparedBook:
    """Pre-tokenise sentences once: per-unit costs, prefix sums and the book's join correction."""
    costs = tokenizer.count_batch([joiner + s for s in sentences])
    prefix = [0, *accumulate(costs)]
    # One deterministic correction per book and tokenizer, so that one exact measurement
    # usually suffices even where tokens merge across joins.
    scale = tokenizer.count(joiner.join(sentences)) / prefix[-1]
    return PreparedBook(language, sentences, costs, prefix, scale)


class PreparedCache:
    """Pre-tokenised books, word pools and list-marker costs per (language, tokenizer).

    One per generator: every example of a (language, tokenizer) shares them, so they are computed
    once per process. Keys use the tokenizer's identity, never object ids.
    """

    def __init__(self, sources: Sources):
        self.sources = sources
        self.books: dict[tuple[str, str], PreparedBook] = {}
        self.pools: dict[tuple[str, str], PreparedPool] = {}
        self.numbering: dict[str, list[int]] = {}

    def book(self, language: str, tokenizer: Tokenizer) -> PreparedBook:
        """A language's book segmented and pre-tokenised (once per tokenizer)."""
        key = (language, tokenizer.identity)
        if key not in self.books:
            joiner = get_language(language).joiner
            sentences = split_sentences(language, self.sources.book_text(language))
            self.books[key] = prepare_book(sentences, language, joiner, tokenizer)
            self.books[key].safe = safe_boundaries(language, sentences, joiner)
        return self.books[key]

    def pool(self, language: str, tokenizer: Tokenizer) -> PreparedPool:
        """A language's CWE pool with each word's cost as a list item (`` word``)."""
        key = (language, tokenizer.identity)
        if key not in self.pools:
            words = self.sources.word_pool(language).words
            self.pools[key] = PreparedPool(language, words, tokenizer.count_batch([" " + w for w in words]))
        return self.pools[key]

    def numbering_prefix(self, tokenizer: Tokenizer, n: int) -> list[int]:
        """prefix[m] = estimated tokens of the list markers `` 1.`` … `` m.`` (grown on demand)."""
        prefix = self.numbering.get(tokenizer.identity, [0])
        if len(prefix) <= n:
            start = len(prefix)
            costs = tokenizer.count_batch([f" {i}." for i in range(start, max(n, 2 * start) + 1)])
            prefix = prefix + list(accumulate(costs, initial=prefix[-1]))[1:]
            self.numbering[tokenizer.identity] = prefix
        return prefix
