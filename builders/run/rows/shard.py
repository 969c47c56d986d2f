"""``--shard I/N``: a deterministic share of the selected rows, balanced by prompt tokens.

Rows are dealt longest first, each to the share with the fewest tokens so far (ties: the lowest
share number), the classic longest-processing-time rule: the N shares differ by at most one
row's tokens. The deal depends only on the selection (ids and ``num_tokens``), never on what a
resumed run has finished, so every process of an array job computes the same split.
"""

from __future__ import annotations

import heapq
import re
from dataclasses import dataclass
from typing import Protocol, Sequence

from ...base.errors import SettingError
from ...spec.ids import id_order

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class Sized(Protocol):
    """Anything with a row id and a token count."""

    id: str
    num_tokens: int


@dataclass(frozen=True)
class Shard:
    """Share ``index`` (0-based) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> "Shard":
        """``"1/3"`` → Shard(1, 3); anything else is one clear error."""
        match = _SHARD.match(text)
        if not match:
            raise SettingError("shard", f"{text!r}: give I/N with 0 <= I < N, e.g. 0/4 for the first of four shares")
        index, count = int(match[1]), int(match[2])
        if count < 1 or not 0 <= index < count:
            raise SettingError("shard", f"{text!r}: need N >= 1 and 0 <= I < N (shares are numbered 0 to N-1)")
        return cls(index, count)

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def share(self, rows: Sequence[Sized]) -> list:
        """This share's rows, in their original order."""
        mine = set(deal(rows, self.count)[self.index])
        return [r for r in rows if r.id in mine]


def deal(rows: Sequence[Sized], count: int) -> list[list[str]]:
    """The ids of each of ``count`` shares: longest rows first, each to the lightest share."""
    heap = [(0, n) for n in range(count)]
    shares: list[list[str]] = [[] for _ in range(count)]
    for row in sorted(rows, key=lambda r: (-r.num_tokens, id_order(r.id))):
        tokens, n = heapq.heappop(heap)
        shares[n].append(row.id)
        heapq.heappush(heap, (tokens + row.num_tokens, n))
    return shares
