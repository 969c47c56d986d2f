"""Exact token counts of prompts built on a book: pre-tokenised units, per-join corrections, needles.

A NIAH context is ``joiner.join(parts)``, the parts being book sentences taken from the start of
the (cycling) book with needle sentences inserted between some of them. ``BookCounter`` knows each
unit (``joiner + sentence``) as a ``Piece`` and, for every pair of adjacent units, the correction
their join needs (zero where the join is a cut), summed into prefix sums: the exact count of any
run of units is O(1). ``count_prompt`` takes the ``ContextLayout`` the context was built from
(how many units, where each needle sits among them) and sums frame, runs and needles with a
``Tally``; it never re-reads the context. A tokenizer without cuts returns None: the caller tokenises.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from enum import Enum
from itertools import accumulate
from typing import Iterator, Sequence, Union

from .counting import TokenCounter, Piece, Tally


@dataclass(frozen=True)
class UnitRun:
    """Book units ``start`` .. ``end`` - 1 of a context (absolute, cycling; empty when ``end <= start``)."""

    start: int
    end: int


@dataclass(frozen=True)
class NeedleAt:
    """Needle ``needle`` of a context, in its place."""

    needle: int


ContextPart = Union[UnitRun, NeedleAt]


@dataclass(frozen=True)
class ContextLayout:
    """How a context is built: ``units`` book units (cycling) with needle j inserted before unit ``points[j]``
    (points sorted; a point equal to ``units`` puts the needle at the end)."""

    units: int
    points: tuple[int, ...]

    def parts(self) -> Iterator[ContextPart]:
        """The runs of units and the needles in text order; runs may be empty."""
        last = 0
        for j, point in enumerate(self.points):
            yield UnitRun(last, point)
            yield NeedleAt(j)
            last = point
        yield UnitRun(last, self.units)


class Cut(Enum):
    """Where a cut of the book's units lies: at the join before a unit, or at a unit's first or last inner cut."""

    JOIN = "join"
    FIRST = "first"
    LAST = "last"


class BookCounter:
    """Exact counting over one book's units (``joiner + sentence``, cycling) for one tokenizer.

    The cuts that lie inside a run of units whatever surrounds it (cuts inside units, and joins
    between two book units that are cuts) are listed once per cycle with the tokens of the text
    between consecutive cuts summed into ``gain``: a run then costs two look-ups plus its two ends.
    """

    def __init__(self, sentences: Sequence[str], costs: Sequence[int], joiner: str, counter: TokenCounter):
        self.counter, self.joiner, self.n = counter, joiner, len(sentences)
        self.sentences = sentences
        self.haystacks: dict[int, int] = {}  # b -> haystack_tokens(b), shared by the rows of every config
        units = [joiner + s for s in sentences]
        pieces = counter.pieces(units, costs) if counter.exact and self.n else None
        first = counter.pieces([sentences[0]]) if pieces else None
        self.exact = pieces is not None
        if not self.exact:
            return
        self.units, self.first_piece = pieces, first[0]
        self.pos = [0, *accumulate(len(u) for u in units)]  # character offsets of the units
        self.cycle = "".join(units)
        self._index_cuts(pieces)

    def _index_cuts(self, pieces: list[Piece]) -> None:
        cuts: list[int] = []
        tags: list[tuple[int, Cut]] = []
        for i, piece in enumerate(pieces):
            if self.counter.is_cut(pieces[i - 1].text[-1], piece.text[0]):
                cuts.append(self.pos[i])
                tags.append((i, Cut.JOIN))
            if piece.first is not None:
                cuts.append(self.pos[i] + piece.first)
                tags.append((i, Cut.FIRST))
                if piece.last != piece.first:
                    cuts.append(self.pos[i] + piece.last)
                    tags.append((i, Cut.LAST))
        self.cuts, self.m = cuts, len(cuts)
        if not self.m:
            return
        segments = [self._known(tags[j], tags[(j + 1) % self.m]) for j in range(self.m)]
        self._fill(segments, [(self._cut_at(j), self._cut_at(j + 1)) for j in range(self.m)])
        self.gain = [0, *accumulate(segments)]
        self.first_after = [bisect.bisect_right(cuts, self.pos[i]) for i in range(self.n)]
        self.last_before = [bisect.bisect_left(cuts, self.pos[i + 1]) - 1 for i in range(self.n)]
        leads = [pieces[i].lead if pieces[i].first is not None else
                 (pieces[i].count if self._cut_at(self.first_after[i]) == self.pos[i + 1] else None)
                 for i in range(self.n)]
        trails = [pieces[i].trail if pieces[i].first is not None else
                  (pieces[i].count if self._cut_at(self.last_before[i]) == self.pos[i] else None)
                  for i in range(self.n)]
        self._fill(leads, [(self.pos[i], self._cut_at(self.first_after[i])) for i in range(self.n)])
        self._fill(trails, [(self._cut_at(self.last_before[i]), self.pos[i + 1]) for i in range(self.n)])
        self.leads, self.trails = leads, trails

    def _known(self, tag: tuple[int, Cut], nxt: tuple[int, Cut]) -> int | None:
        """Tokens between two consecutive cuts when the pieces' counts give them (else None)."""
        (i, cut), (j, next_cut) = tag, nxt
        piece = self.units[i]
        if cut is Cut.FIRST and j == i and next_cut is Cut.LAST:
            return piece.count - piece.lead - piece.trail
        if cut is Cut.JOIN and j == i and next_cut is Cut.FIRST:
            return piece.lead
        nxt_unit = j == (i + 1) % self.n
        if cut in (Cut.FIRST, Cut.LAST) and next_cut is Cut.JOIN and nxt_unit:  # FIRST here: first == last
            return piece.trail
        if cut is Cut.JOIN and next_cut is Cut.JOIN and nxt_unit:
            return piece.count
        return None

    def _fill(self, values: list[int | None], spans: list[tuple[int, int]]) -> None:
        """Tokenise the texts of the spans whose value is None (one batch)."""
        uncounted = [k for k, v in enumerate(values) if v is None]
        if uncounted:
            counts = self.counter.count_batch([self._text(*spans[k]) for k in uncounted])
            for k, c in zip(uncounted, counts):
                values[k] = c

    def _cut_at(self, j: int) -> int:
        """Absolute character offset of cut j (cut indices cycle with the book)."""
        full, rest = divmod(j, self.m)
        return full * self.pos[-1] + self.cuts[rest]

    def _abs(self, prefix: list[int], i: int, period: int) -> int:
        full, rest = divmod(i, period)
        return full * prefix[-1] + prefix[rest]

    def _text(self, start: int, end: int) -> str:
        """The cycling book text between absolute character offsets."""
        size, parts = self.pos[-1], []
        while start < end:
            i = start % size
            chunk = min(size - i, end - start)
            parts.append(self.cycle[i:i + chunk])
            start += chunk
        return "".join(parts)

    def add_run(self, tally: Tally, a: int, b: int) -> None:
        """Append units a..b-1 (absolute, cycling), each with its joiner."""
        if b <= a:
            return
        start, end = self._abs(self.pos, a, self.n), self._abs(self.pos, b, self.n)
        if self.m:
            c1 = (a // self.n) * self.m + self.first_after[a % self.n]
            c2 = ((b - 1) // self.n) * self.m + self.last_before[(b - 1) % self.n]
            if c1 <= c2:  # a cut inside the run: its middle is known, its two ends are windows
                tally.add_text(self._text(start, self._cut_at(c1)), self.leads[a % self.n], close=True)
                tally.add_tokens(self._abs(self.gain, c2, self.m) - self._abs(self.gain, c1, self.m))
                tally.add_text(self._text(self._cut_at(c2), end), self.trails[(b - 1) % self.n])
                return
        tally.add_text(self._text(start, end), None)

    def book_tokens(self) -> int:
        """Exact tokens of ``joiner.join(sentences)``: the whole book once."""
        return self.haystack_tokens(self.n)

    def haystack_tokens(self, b: int) -> int:
        """Exact tokens of the first b units joined (cycling), the first without its joiner: a haystack of b
        sentences, or the part of a longer one before boundary b. Counted by construction, else tokenised."""
        if b <= 0:
            return 0
        if b not in self.haystacks:
            if self.exact:
                tally = self.counter.tally()
                tally.add(self.first_piece)
                self.add_run(tally, 1, b)
                self.haystacks[b] = tally.result()
            else:
                full, rest = divmod(b, self.n)
                taken = [*self.sentences] * full + [*self.sentences[:rest]]
                self.haystacks[b] = self.counter.count(self.joiner.join(taken))
        return self.haystacks[b]

    def count_prompt(self, head: Piece, layout: ContextLayout, tail: Piece,
                     needles: Sequence[tuple[Piece, Piece]]) -> int | None:
        """Exact tokens of head + the context ``layout`` describes + tail; ``needles`` = (bare, with joiner)
        pieces; None: this tokenizer is not counted by construction."""
        if not self.exact:
            return None
        tally = self.counter.tally()
        tally.add(head)
        at_start = True  # the context's first part has no joiner
        for part in layout.parts():
            if isinstance(part, NeedleAt):
                tally.add(needles[part.needle][0] if at_start else needles[part.needle][1])
                at_start = False
            elif part.end > part.start and at_start:
                tally.add(self.first_piece)
                self.add_run(tally, part.start + 1, part.end)
                at_start = False
            else:
                self.add_run(tally, part.start, part.end)
        tally.add(tail)
        return tally.result()
