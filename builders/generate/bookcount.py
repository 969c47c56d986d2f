"""Exact token counts of prompts built on a book: pre-tokenised units, per-join corrections, needles.

A NIAH context is ``joiner.join(parts)``, the parts being book sentences taken from the start of
the (cycling) book with needle sentences inserted between some of them. ``BookCounter`` knows each
unit (``joiner + sentence``) as a ``Piece`` and, for every pair of adjacent units, the correction
their join needs (zero where the join is a cut), summed into prefix sums: the exact count of any
run of units is O(1). ``count_prompt`` recovers the layout of a context (where each needle sits,
which units lie between them), checks it character for character against the book, and sums
frame, runs and needles with a ``Tally``. Anything unexpected returns None: the caller tokenises.
"""

from __future__ import annotations

import bisect
from itertools import accumulate
from typing import Sequence

from .counting import Counter, Piece, Tally


class BookCounter:
    """Exact counting over one book's units (``joiner + sentence``, cycling) for one tokenizer."""

    def __init__(self, sentences: Sequence[str], costs: Sequence[int], joiner: str, counter: Counter):
        self.counter, self.joiner, self.n = counter, joiner, len(sentences)
        units = [joiner + s for s in sentences]
        pieces = counter.pieces(units, costs) if counter.exact and self.n else None
        first = counter.pieces([sentences[0]]) if pieces else None
        self.exact = bool(pieces and first)
        if not self.exact:
            return
        self.units, self.first_piece = pieces, first[0]
        self.cost_prefix = [0, *accumulate(costs)]
        self.pos = [0, *accumulate(len(u) for u in units)]  # character offsets of the units
        self.cycle = "".join(units)
        self.cutless = [0, *accumulate(p.first is None for p in pieces)]
        corr, bad = self._corrections(pieces)
        self.corr_prefix = [0, *accumulate(corr)]
        self.bad_prefix = [0, *accumulate(bad)]

    def _corrections(self, pieces: list[Piece]) -> tuple[list[int], list[int]]:
        """Per join i | i+1 (cyclic): tokens the join adds (0 at a cut); bad = chained through a cut-less unit."""
        corr, bad, windows, where = [0] * self.n, [0] * self.n, [], []
        for i, left in enumerate(pieces):
            right = pieces[(i + 1) % self.n]
            if left.first is None or right.first is None:
                bad[i] = 1
            elif not self.counter.is_cut(left.text[-1], right.text[0]):
                windows.append(left.text[left.last:] + right.text[:right.first])
                where.append(i)
        for i, tokens in zip(where, self.counter.count_batch(windows) if windows else []):
            corr[i] = tokens - pieces[i].trail - pieces[(i + 1) % self.n].lead
        return corr, bad

    def _abs(self, prefix: list[int], i: int) -> int:
        full, rest = divmod(i, self.n)
        return full * prefix[-1] + prefix[rest]

    def add_run(self, tally: Tally, a: int, b: int) -> None:
        """Append units a..b-1 (absolute, cycling), each with its joiner."""
        if b - a >= 3 and self._abs(self.cutless, b) == self._abs(self.cutless, a) \
                and self._abs(self.bad_prefix, b - 1) == self._abs(self.bad_prefix, a):
            first, last = self.units[a % self.n], self.units[(b - 1) % self.n]
            tally.add(first)
            tokens = (self._abs(self.cost_prefix, b) - self._abs(self.cost_prefix, a + 1) + first.trail - last.trail
                      + self._abs(self.corr_prefix, b - 1) - self._abs(self.corr_prefix, a))
            tally.add_known(tokens, last)
            return
        for i in range(a, b):
            tally.add(self.units[i % self.n])

    def book_tokens(self) -> int:
        """Exact tokens of ``joiner.join(sentences)``: the whole book once."""
        tally = self.counter.tally()
        tally.add(self.first_piece)
        self.add_run(tally, 1, self.n)
        return tally.result()

    def _units_until(self, a: int, chars: int) -> int | None:
        """b such that units a..b-1 span exactly ``chars`` characters (None if no unit boundary is there)."""
        target = self._abs(self.pos, a) + chars
        full, rest = divmod(target, self.pos[-1])
        i = bisect.bisect_left(self.pos, rest)
        if i > self.n or self.pos[i] != rest:
            return None
        return full * self.n + i

    def _same_text(self, context: str, start: int, a_pos: int, b_pos: int) -> bool:
        """context[start:...] equals the cycling book text between absolute offsets a_pos and b_pos."""
        size = self.pos[-1]
        while a_pos < b_pos:
            i = a_pos % size
            chunk = min(size - i, b_pos - a_pos)
            if context[start:start + chunk] != self.cycle[i:i + chunk]:
                return False
            start, a_pos = start + chunk, a_pos + chunk
        return True

    def _run(self, context: str, cursor: int, unit: int, end: int) -> int | None:
        """The unit after a run of book units in context[cursor:end] starting at ``unit``, or None."""
        skip = len(self.joiner) if cursor == 0 else 0  # the context's first sentence has no joiner
        b = self._units_until(unit, end - cursor + skip)
        if b is None or (cursor == 0 and b == unit and end > 0):
            return None
        if not self._same_text(context, cursor, self._abs(self.pos, unit) + skip, self._abs(self.pos, b)):
            return None
        return b

    def layout(self, context: str, needles: Sequence[str]) -> list[tuple[str, int, int]] | None:
        """[("run", a, b) | ("needle", j, 0)] in text order, checked against the book; None if not so built."""
        out: list[tuple[str, int, int]] = []
        cursor, unit, joiner = 0, 0, self.joiner
        for j, text in enumerate(needles):
            if cursor == 0 and not out and context.startswith(text):
                out.append(("needle", j, 0))
                cursor = len(text)
                continue
            idx = context.find(joiner + text, cursor)
            if idx < 0:
                return None
            b = self._run(context, cursor, unit, idx)
            if b is None:
                return None
            out += [("run", unit, b), ("needle", j, 0)]
            cursor, unit = idx + len(joiner) + len(text), b
        b = self._run(context, cursor, unit, len(context)) if cursor < len(context) else unit
        if b is None:
            return None
        out.append(("run", unit, b))
        return out

    def count_prompt(self, head: Piece, context: str, tail: Piece, needles: Sequence[tuple[Piece, Piece]]) -> int | None:
        """Exact tokens of head + context + tail; ``needles`` = (bare, with joiner) pieces; None: not counted."""
        if not self.exact:
            return None
        layout = self.layout(context, [bare.text for bare, _ in needles])
        if layout is None:
            return None
        tally = self.counter.tally()
        tally.add(head)
        at_start = True
        for kind, a, b in layout:
            if kind == "needle":
                tally.add(needles[a][0] if at_start else needles[a][1])
            elif b > a and at_start:
                tally.add(self.first_piece)
                self.add_run(tally, a + 1, b)
            else:
                self.add_run(tally, a, b)
            at_start = at_start and not (kind == "needle" or b > a)
        tally.add(tail)
        return tally.result()
