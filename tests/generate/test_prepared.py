"""Pre-tokenised books and pools on a tiny real ``Sources`` built in tmp_path, with the real cl100k."""

from __future__ import annotations

import hashlib
from fractions import Fraction
from itertools import accumulate

import pytest

from builders.generate.prepared import PreparedBook, PreparedCache
from builders.generate.tokenizer import Tokenizer
from builders.sources.manifest import SourceFile
from builders.sources.store import Sources

BOOK = "Erster Satz. Zweiter Satz hier. Dritter und letzter Satz!"
DICTIONARY = "words,pos\nHaus,noun\nlaufen,verb\nschön,adjective\nsehr,adverb\n"


class CountingTokenizer(Tokenizer):
    """A real tokenizer that counts how many texts it was asked to encode."""

    def __init__(self, inner: Tokenizer):
        super().__init__(inner.alias, inner.location)
        self.inner = inner
        self.calls = 0

    @property
    def identity(self) -> str:
        return self.inner.identity

    def encode_batch(self, texts):
        self.calls += len(texts)
        return self.inner.encode_batch(texts)


@pytest.fixture
def tiny_sources(tmp_path) -> Sources:
    paths, entries = {}, []
    for kind, rel, data in [("book", "books/de/tiny.txt", BOOK), ("dictionary", "dict/German.csv", DICTIONARY)]:
        raw = data.encode("utf-8")
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(raw)
        paths[rel] = tmp_path / rel
        entries.append(SourceFile(rel, hashlib.sha256(raw).hexdigest(), len(raw), kind, "de", "MIT"))
    return Sources(paths, entries)


def test_a_book_is_segmented_and_tokenised_once_per_tokenizer(tiny_sources, cl100k):
    tok = CountingTokenizer(cl100k)
    cache = PreparedCache(tiny_sources)
    book = cache.book("de", tok)
    assert book.sentences == ["Erster Satz.", "Zweiter Satz hier.", "Dritter und letzter Satz!"]
    assert book.costs == [cl100k.count(" " + s) for s in book.sentences]
    assert book.prefix == [0, book.costs[0], sum(book.costs[:2]), sum(book.costs)]
    assert book.scale == cl100k.count(" ".join(book.sentences)) / sum(book.costs)
    calls = tok.calls
    assert cache.book("de", tok) is book and tok.calls == calls  # cached: nothing tokenised again
    assert cache.book("de", cl100k) is book  # keyed by the tokenizer's identity, not the object


def test_units_cycle_through_the_book(tiny_sources, cl100k):
    book = PreparedCache(tiny_sources).book("de", cl100k)
    assert book.take(5) == book.sentences + book.sentences[:2]
    assert book.cost(4) == book.costs[1]
    assert book.cum(3) == int(book.total * book.scale)
    assert book.cum(book.units_for(1000)) > 1000


def test_pool_and_list_markers(tiny_sources, cl100k):
    cache = PreparedCache(tiny_sources)
    pool = cache.pool("de", cl100k)
    assert pool.words == ("Haus", "laufen", "schön")  # noun/verb/adjective only, sorted
    assert pool.costs == [cl100k.count(" " + w) for w in pool.words]
    prefix = cache.numbering_prefix(cl100k, 12)
    assert len(prefix) > 12 and prefix[12] == sum(cl100k.count(f" {i}.") for i in range(1, 13))
    assert cache.numbering_prefix(cl100k, 5) is prefix  # grown on demand, never recomputed


def nearest_by_brute_force(costs: list[int], safe: list[bool], k: int, share: Fraction) -> int:
    """The safe boundary (or k) among k cycling units whose preceding costs are nearest share of all k, the
    earlier on a tie: every boundary's distance written out."""
    before = [sum(costs[i % len(costs)] for i in range(b)) for b in range(k + 1)]
    target = share * before[k]
    allowed = [b for b in range(k + 1) if b == k or safe[b % len(costs)]]
    return min(allowed, key=lambda b: (abs(before[b] - target), b))


def test_nearest_boundary_in_tokens_outside_quotations():
    """Pinned depths go to the boundary nearest D % of the units' tokens, skipping the unsafe ones to the
    nearer safe side (before or after), the earlier on a tie; 0 % before the first unit, 100 % after the last."""
    costs = [5, 40, 3, 3, 30, 7, 12, 1]
    safe = [True, True, False, False, True, False, True, True, True]
    book = PreparedBook("xx", [f"s{i}" for i in range(len(costs))], costs, [0, *accumulate(costs)], safe)
    shares = [Fraction(p, 200) for p in range(201)] + [Fraction(1, 3), Fraction(2, 7)]
    for k in (1, 2, 5, 8, 13, 21):
        for share in shares:
            assert book.nearest_boundary(k, share) == nearest_by_brute_force(costs, safe, k, share), (k, share)
        assert (book.nearest_boundary(k, Fraction(0)), book.nearest_boundary(k, Fraction(1))) == (0, k)
    # a tie between the safe boundaries either side of an unsafe stretch goes to the earlier one
    tie = PreparedBook("xx", ["a", "b", "c", "d"], [10] * 4, [0, 10, 20, 30, 40], [True, True, False, False, True])
    assert tie.nearest_boundary(4, Fraction(5, 8)) == 1  # 25 tokens: 15 from boundary 1 and from the end
    assert tie.nearest_boundary(4, Fraction(5, 8) + Fraction(1, 100)) == 4
