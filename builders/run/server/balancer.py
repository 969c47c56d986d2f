"""Several servers of one model (``--base-url`` repeated): each row goes to the server with the fewest in flight.

A server whose connection fails outright is checked at once (``GET /v1/models``); if it does not
answer it is taken out of rotation with a warning and the row goes to another server. Every
server keeps its own counts (rows answered, failed, tokens) for the progress line and the meta,
and what the preflight learnt of it (``known``: its dialect and facts, set by ``window.servers_window``).
The run fails only when no server is left.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, Callable

from ...base.errors import OneRulerError, named_setting
from ...spec.run_meta import ServerRecord
from .client import Completion, ServerClient
from .dialects import KnownServer

HEALTH_TIMEOUT_S = 10.0


class NoServerLeft(OneRulerError):
    """Every server of the balancer was taken out of rotation."""


@dataclass
class Server:
    """One server of the balancer and what it did."""

    client: ServerClient
    in_flight: int = 0
    answered: int = 0
    failed: int = 0
    prompt_tokens: int = 0
    out_reason: str | None = None  # why it was taken out of rotation (None: in rotation)
    known: KnownServer | None = None  # its dialect and facts, once the preflight has learnt them
    _checking: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def url(self) -> str:
        """The base URL as it may be shown (user info and query values as ***)."""
        return self.client.shown

    @property
    def slots(self) -> int | None:
        """The requests it works on at once, if it said (for the words of a timeout)."""
        return self.known.facts.slots if self.known is not None else None

    @property
    def capacity_error(self) -> str | None:
        """The text of its answer when its shared cache is full (None: it has none, or said nothing)."""
        return self.known.facts.capacity_error if self.known is not None else None

    def record(self) -> ServerRecord:
        """What the meta records of this server."""
        return ServerRecord.of(base_url=self.url, answered=self.answered, failed=self.failed,
                               taken_out=self.out_reason)


class ServerBalancer:
    """The servers of a run; ``complete`` sends a row to the least busy one and fails over."""

    def __init__(self, clients: list[ServerClient], warn: Callable[[str], None] = lambda message: None):
        if not clients:
            raise OneRulerError(f"no server: give {named_setting('base_urls')} (repeat it for several servers)")
        self.servers = [Server(c) for c in clients]
        self.warn = warn
        self.started = time.monotonic()

    @property
    def first(self) -> Server:
        """The first server still in rotation (the one that counts prompts)."""
        return self.live()[0]

    def live(self) -> list[Server]:
        """The servers in rotation; none left is an error."""
        live = [s for s in self.servers if s.out_reason is None]
        if not live:
            reasons = "; ".join(f"{s.url}: {s.out_reason}" for s in self.servers)
            raise NoServerLeft(f"no server left in rotation ({reasons})")
        return live

    def pick(self) -> Server:
        """The live server with the fewest requests in flight (ties: the first given)."""
        return min(self.live(), key=lambda s: s.in_flight)

    def take_out(self, server: Server, reason: str) -> None:
        """Remove a server from rotation, with a warning saying where its rows go."""
        if server.out_reason is None:
            server.out_reason = reason
            others = sum(s.out_reason is None for s in self.servers)
            self.warn(f"{server.url} taken out of rotation ({reason}); "
                      + (f"its rows go to the {others} other server(s)" if others else "no server is left"))

    async def healthy(self, server: Server) -> bool:
        """Whether the server answers ``GET /v1/models`` within HEALTH_TIMEOUT_S."""
        try:
            await asyncio.wait_for(server.client.served_models(), HEALTH_TIMEOUT_S)
            return True
        except Exception:  # noqa: BLE001 - any failure to answer is unhealthy
            return False

    async def complete(self, prompt: str, kwargs: dict[str, Any]) -> tuple[Completion, Server]:
        """Send one row to the least busy server; a server that cannot be reached is checked, maybe taken
        out, and the row sent to another one."""
        for attempt in range(len(self.servers) + 1):  # bounded: a failed try takes a server out or ends the row
            server = self.pick()
            failover = len(self.live()) > 1
            server.in_flight += 1
            try:
                done = await server.client.complete(prompt, kwargs, failover=failover, slots=server.slots,
                                                    capacity=server.capacity_error)
            finally:
                server.in_flight -= 1
            if not done.unreachable:
                return done, server
            async with server._checking:  # one check, however many rows failed at once
                if server.out_reason is None and not await self.healthy(server):
                    self.take_out(server, f"unreachable: {done.error}")
            if server.out_reason is None and not failover:  # alone, and it already retried in place
                return done, server
        return done, server

    def record(self, server: Server, done: Completion) -> None:
        """Count a finished row for its server."""
        if done.error:
            server.failed += 1
        else:
            server.answered += 1
            server.prompt_tokens += (done.usage or {}).get("prompt_tokens") or 0

    def throughput(self) -> str:
        """Rows per second of each server since the start (for the progress line)."""
        if len(self.servers) < 2:
            return ""
        elapsed = max(time.monotonic() - self.started, 1e-9)
        parts = [f"{s.client.base_url.split('//')[-1].split('/')[0]} "
                 f"{'out' if s.out_reason else f'{s.answered / elapsed:.2f}/s'}" for s in self.servers]
        return "servers: " + ", ".join(parts)

    async def close(self) -> None:
        """Close every client."""
        for server in self.servers:
            await server.client.close()
