"""Pre-tokenised material shared by all examples of a (language, tokenizer): book sentences, word costs."""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import accumulate
from typing import Callable, Hashable, TypeVar

from ..sources.store import Sources
from ..spec.languages import get_language
from .bookcount import BookCounter
from .counting import TokenCounter
from .quotes import safe_boundaries
from .segment import split_sentences
from .tokenizer import Tokenizer


T = TypeVar("T")


@dataclass
class PreparedBook:
    """A book as sentences with cumulative token costs; unit k cycles through the book."""

    language: str
    sentences: list[str]
    costs: list[int]  # tokens of joiner + sentence
    prefix: list[int]  # prefix[i] = sum(costs[:i])
    safe: list[bool]  # safe[i]: the boundary before sentence i is outside quotes
    scale: float = 1.0  # exact tokens of the joined book / sum of costs (joins merge tokens in zh/ja)

    @property
    def total(self) -> int:
        """Summed unit costs of one pass through the book."""
        return self.prefix[-1]

    def cum(self, k: int) -> int:
        """Estimated tokens of the first k units (cycling back to the start of the book)."""
        return int(self.unit_tokens(k) * self.scale)

    def unit_tokens(self, k: int) -> int:
        """Summed costs of the first k units (cycling): each sentence with its joiner, tokenised alone."""
        full, rest = divmod(k, len(self.sentences))
        return full * self.total + self.prefix[rest]

    def nearest_boundary(self, k: int, share: Fraction) -> int:
        """The boundary among k units that lies outside every quotation (``is_safe``; k, the end, always does)
        and whose preceding units' tokens (``unit_tokens``) are nearest ``share`` of the k units' tokens; the
        earlier one on a tie. Share 0 gives 0 (when safe), share 1 gives k."""
        # the target share × unit_tokens(k) is num / den: compared in integers, exactly
        num, den = share.numerator * self.unit_tokens(k), share.denominator
        lo, hi = 0, k  # the first boundary at or past the target (costs are positive: a bisection)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.unit_tokens(mid) * den >= num:
                hi = mid
            else:
                lo = mid + 1
        after, before = lo, lo - 1  # the nearest safe boundary is the first safe one on either side
        while after < k and not self.is_safe(after):
            after += 1
        while before >= 0 and not self.is_safe(before):
            before -= 1
        if before >= 0 and num - self.unit_tokens(before) * den <= self.unit_tokens(after) * den - num:
            return before
        return after

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
        return self.safe[k % len(self.sentences)]

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


def prepare_book(sentences: list[str], safe: list[bool], language: str, joiner: str, tokenizer: Tokenizer,
                 counter: TokenCounter) -> tuple[PreparedBook, BookCounter]:
    """Pre-tokenise sentences once: per-unit costs, prefix sums, the book's join correction, exact counting."""
    costs = tokenizer.count_batch([joiner + s for s in sentences])
    prefix = [0, *accumulate(costs)]
    exact = BookCounter(sentences, costs, joiner, counter)
    # One deterministic correction per book and tokenizer, so that the estimate steers the budget
    # search well even where tokens merge across joins (zh, ja). Counted by construction where the
    # tokenizer allows, else by tokenising the joined book: the same number either way.
    joined = exact.book_tokens() if exact.exact else tokenizer.count(joiner.join(sentences))
    return PreparedBook(language, sentences, costs, prefix, safe, joined / prefix[-1]), exact


@dataclass
class _LanguageMaterial:
    """What one language has prepared for one tokenizer, each part made on first use."""

    book: PreparedBook | None = None
    book_counter: BookCounter | None = None
    pool: PreparedPool | None = None
    list_correction: int | None = None
    list_corrected: bool = False  # list_correction computed (None is a valid result: no correction by construction)


@dataclass
class _TokenizerMaterial:
    """What one tokenizer has prepared: its exact counter, the list markers' costs, and each language's material."""

    counter: TokenCounter
    numbering: list[int] = field(default_factory=lambda: [0])  # numbering[m]: tokens of `` 1.`` … `` m.``
    languages: dict[str, _LanguageMaterial] = field(default_factory=dict)

    def language(self, code: str) -> _LanguageMaterial:
        """The material of a language (an empty record on first use)."""
        return self.languages.setdefault(code, _LanguageMaterial())


class PreparedCache:
    """Pre-tokenised books, word pools and list-marker costs per (language, tokenizer).

    One per generator: every example of a (language, tokenizer) shares them, so they are computed
    once per process. Keys use the tokenizer's identity, never object ids. A language's segmentation
    (sentences and safe boundaries) is shared by every tokenizer.
    """

    def __init__(self, sources: Sources, full_count: bool = False):
        self.sources = sources
        self.full_count = full_count
        self._tokenizers: dict[str, _TokenizerMaterial] = {}
        self._segments: dict[str, tuple[list[str], list[bool]]] = {}
        self._shared: dict[tuple[Hashable, str], object] = {}

    def shared(self, key: Hashable, tokenizer: Tokenizer | None, make: Callable[[], T]) -> T:
        """A family's own prepared material (RULER's essay split and its token counts, VT's in-context example):
        made by ``make`` once per (``key``, tokenizer identity; None: one for every tokenizer) and kept as long as
        this cache. ``make`` must be a pure function of the key and the tokenizer."""
        slot = (key, tokenizer.identity if tokenizer is not None else "")
        if slot not in self._shared:
            self._shared[slot] = make()
        return self._shared[slot]  # type: ignore[return-value]

    def _material(self, tokenizer: Tokenizer) -> _TokenizerMaterial:
        if tokenizer.identity not in self._tokenizers:
            self._tokenizers[tokenizer.identity] = _TokenizerMaterial(TokenCounter(tokenizer, self.full_count))
        return self._tokenizers[tokenizer.identity]

    def counter(self, tokenizer: Tokenizer) -> TokenCounter:
        """The exact counter of a tokenizer (full counts only with ``full_count``)."""
        return self._material(tokenizer).counter

    def book(self, language: str, tokenizer: Tokenizer) -> PreparedBook:
        """A language's book segmented and pre-tokenised (once per tokenizer)."""
        material = self._material(tokenizer).language(language)
        if material.book is None:
            sentences, safe = self.segments(language)
            material.book, material.book_counter = prepare_book(
                sentences, safe, language, get_language(language).joiner, tokenizer, self.counter(tokenizer))
        return material.book

    def segments(self, language: str) -> tuple[list[str], list[bool]]:
        """A language's haystack sentences and, for each boundary (before the first sentence to after the
        last), whether it lies outside every quotation; once per language, for every tokenizer."""
        if language not in self._segments:
            sentences = split_sentences(language, self.sources.book_text(language))
            self._segments[language] = sentences, safe_boundaries(language, sentences, get_language(language).joiner)
        return self._segments[language]

    def book_counter(self, language: str, tokenizer: Tokenizer) -> BookCounter:
        """Exact counting of prompts over a language's book (``exact`` False: tokenise instead)."""
        self.book(language, tokenizer)
        return self._material(tokenizer).language(language).book_counter

    def pool(self, language: str, tokenizer: Tokenizer) -> PreparedPool:
        """A language's CWE pool with each word's cost as a list item (`` word``)."""
        material = self._material(tokenizer).language(language)
        if material.pool is None:
            words = self.sources.word_pool(language).words
            material.pool = PreparedPool(language, words, tokenizer.count_batch([" " + w for w in words]))
        return material.pool

    def numbering_prefix(self, tokenizer: Tokenizer, n: int) -> list[int]:
        """prefix[m] = estimated tokens of the list markers `` 1.`` … `` m.`` (grown on demand)."""
        material = self._material(tokenizer)
        prefix = material.numbering
        if len(prefix) <= n:
            start = len(prefix)
            costs = tokenizer.count_batch([f" {i}." for i in range(start, max(n, 2 * start) + 1)])
            material.numbering = prefix = prefix + list(accumulate(costs, initial=prefix[-1]))[1:]
        return prefix

    def list_correction(self, language: str, tokenizer: Tokenizer, head: str, tail: str) -> int | None:
        """Exact tokens of a CWE prompt minus its estimate (the same for every list), or None.

        The prompt is head + ``1.`` + `` w`` + `` 2.`` + … + tail. Every join after the first is a cut
        when each pool word is cut before a space and before the tail, so the pieces' own costs add
        up (the estimate) and only the join head | ``1.`` needs a window.
        """
        material = self._material(tokenizer).language(language)
        if not material.list_corrected:
            counter, words = self.counter(tokenizer), self.pool(language, tokenizer).words
            ok = counter.exact and counter.is_cut(".", " ") and all(
                w and counter.is_cut(w[-1], " ") and (not tail or counter.is_cut(w[-1], tail[0])) for w in words)
            pieces = counter.pieces([head, "1."]) if ok else None
            material.list_correction = (None if pieces is None else
                                        counter.total(pieces) - pieces[0].count - counter.count(" 1."))
            material.list_corrected = True
        return material.list_correction
