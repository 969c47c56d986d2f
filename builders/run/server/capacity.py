"""Requests in flight when a server's slots share one KV cache: a limit that the server's capacity signal lowers.

llama.cpp answers every request in flight with HTTP 500 "Context size has been exceeded" when their
tokens together overflow the cache its slots share (``dialects/llamacpp.py``). That answer says the
server is full, not that the row failed: the row is resent once fewer requests are in flight.

Bounded by construction: requests are numbered by *round* (how often the limit was lowered when they
were sent). A capacity signal from the current round lowers the limit by one and starts a new round;
one from an earlier round (a request in flight with those that overflowed: the server fails them
all) is resent without lowering it again. A row is therefore resent only into a later round, and
there are fewer rounds than the first limit; at a limit of one, a request sent alone that still
overflows is the row's failure (the cache cannot hold it), said in its error.
"""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import AsyncIterator


@dataclass
class CapacityGate:
    """At most ``limit`` requests in flight; ``lowered`` holds each (from, to) lowering, in order."""

    limit: int
    in_flight: int = 0
    round: int = 0
    lowered: list[tuple[int, int]] = field(default_factory=list)
    _free: asyncio.Condition = field(default_factory=asyncio.Condition)

    def __post_init__(self) -> None:
        self.first = self.limit

    @asynccontextmanager
    async def admitted(self) -> AsyncIterator[int]:
        """Wait until fewer than ``limit`` are in flight, then hold a place; yields the round it was sent in."""
        async with self._free:
            await self._free.wait_for(lambda: self.in_flight < self.limit)
            self.in_flight += 1
            sent_in = self.round
        try:
            yield sent_in
        finally:
            async with self._free:
                self.in_flight -= 1
                self._free.notify_all()

    def overflowed(self, sent_in: int) -> bool:
        """A request sent in round ``sent_in`` came back over capacity: whether to resend it (False: it was sent
        alone at a limit of one, so the cache cannot hold it). A signal of the current round lowers the limit."""
        if sent_in < self.round:
            return True
        if self.limit <= 1:
            return False
        self.lowered.append((self.limit, self.limit - 1))
        self.limit -= 1
        self.round += 1
        return True
