"""Sending the rows: ``concurrency`` requests in flight over the servers of the balancer, each answer
checked by the truncation guard, written as it comes, and a progress line every 10 s.

Prompts are read config by config as workers need them: memory holds one config's prompts, the
reader's few configs read ahead, and what is in flight.
"""

from __future__ import annotations

import asyncio
import dataclasses
from typing import Callable

from ..base.errors import named_setting
from .files.lines import answered_line
from .files.store import PredictionStore
from .progress import RunProgress
from .rows.selection import RowRef, RunRow, Selection, async_batches
from .server.capacity import CapacityGate
from .server.client import Completion
from .server.guard import CutPrompts, TruncationGuard
from .server.balancer import NoServerLeft, Server, ServerBalancer
from .server.preflight import Preflight
from .session import Noted, RunResult
from .settings import RunSettings


def truncation_error(guard: TruncationGuard, pre: Preflight, url: str) -> CutPrompts:
    """The one error line of a run stopped by cut prompts: how many, the first, what was seen, the cause and the fix."""
    server = pre.server
    software = server.software if server is not None else "the server"
    source = server.window_source if server is not None and guard.window == server.window else pre.window.source
    sent, read = guard.first or (0, 0)
    first = f"first: {guard.cut[0]}, sent {sent} prompt tokens, the server read {read}"
    if guard.window_cause:
        size = f"{guard.window}-token window ({source})" if guard.window else "window (unknown)"
        said = (f"{len(guard.cut)} row(s) came back with fewer prompt tokens than were sent: {software} at {url} cut them "
                f"to its {size} instead of refusing them ({first}). The run stopped; those rows are recorded as failed "
                f"and not scored. To fix: {pre.fix}")
        return CutPrompts(f"{said}; then rerun with {named_setting('retry_failed')}")
    window = f"its {guard.window}-token window ({source}) is not the cause" if guard.window else "its window is unknown"
    said = (f"{len(guard.cut)} row(s) came back with far fewer prompt tokens than were sent ({first}) from {software} at "
            f"{url}; {window}, so a larger window would not help: something between the run and the model read a "
            f"shorter prompt (a proxy that rewrites requests, a chat template that drops the message, another model "
            f"served under this name). The run stopped; those rows are recorded as failed and not scored")
    return CutPrompts(f"{said}; once the server reads whole prompts, rerun with {named_setting('retry_failed')}")


async def first_failure(tasks: list[asyncio.Task]) -> None:
    """Wait for every task; once one fails, cancel the others (no request of theirs outlives the run) and raise."""
    try:
        done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
    for task in done:
        if not task.cancelled() and task.exception() is not None:
            raise task.exception()  # type: ignore[misc]


class Sender:
    """Sends rows and counts what came back into the run's result."""

    def __init__(self, balancer: ServerBalancer, store: PredictionStore, selection: Selection, s: RunSettings,
                 result: RunResult, pre: Preflight, log: Callable[[str], None]):
        self.balancer, self.store, self.selection, self.s, self.result, self.log = balancer, store, selection, s, result, log
        self.pre = pre
        server = pre.server
        window = server.window if server is not None and server.truncates and server.window else pre.window.size
        self.guard = TruncationGuard(pre.counts, pre.new_tokens, window, pre.exact)
        self.silent: set[str] = set()  # servers already named for answering without usage
        self.gate: CapacityGate | None = None  # made in ``send``, inside the event loop

    async def send(self, refs: list[RowRef], concurrency: int) -> None:
        """Send ``refs`` with at most ``concurrency`` in flight; stop taking new ones once the run must stop."""
        bar = RunProgress(len(refs), "rows", self.s.progress, extra=self.balancer.throughput)
        self.gate = CapacityGate(max(1, concurrency))
        batches = async_batches(self.selection.prompts(refs))
        waiting: list[RunRow] = []
        take = asyncio.Lock()

        async def next_row() -> RunRow | None:
            async with take:
                while not waiting:
                    batch = await anext(batches, None)
                    if batch is None:
                        return None
                    waiting.extend(reversed(batch))
                return waiting.pop()

        async def worker() -> None:
            while not self.result.stopped:
                row = await next_row()
                if row is None:
                    return
                await self.one(row, bar)

        ticker = asyncio.create_task(bar.tick())
        try:
            await first_failure([asyncio.create_task(worker()) for _ in range(min(concurrency, len(refs)) or 1)])
        finally:
            ticker.cancel()
            await batches.aclose()
            bar.close()

    async def one(self, row: RunRow, bar: RunProgress) -> None:
        """Send one row, check its answer, write its line and count it."""
        kwargs = self.s.sampling.request_kwargs(row.reserve, self.s.server.api, row.task)
        try:
            done, server = await self.sent(row, kwargs)
        except NoServerLeft as exc:
            self.result.no_server, self.result.stopped = str(exc), True
            return
        if not done.error:
            done = self.checked(row, done, server.url)
        if not done.error:
            self.tally(row, done, server.url)
        self.balancer.record(server, done)
        self.store.append(answered_line(row.id, done))
        self.count(row, done, bar)

    async def sent(self, row: RunRow, kwargs: dict) -> tuple[Completion, Server]:
        """The row sent through the capacity gate; resent while its server's shared cache overflows (bounded: each
        resend goes into a later round of the gate, ``server/capacity.py``)."""
        gate = self.gate
        assert gate is not None
        for _ in range(gate.first + 1):
            async with gate.admitted() as sent_in:
                done, server = await self.balancer.complete(row.input, kwargs)
            if not done.over_capacity:
                break
            lowerings = len(gate.lowered)
            if not gate.overflowed(sent_in):
                why = f"{done.error}: the server's shared KV cache cannot hold this request even alone"
                return dataclasses.replace(done, error=why, over_capacity=False), server
            self.result.resent += 1
            if len(gate.lowered) > lowerings:
                was, now = gate.lowered[-1]
                self.result.concurrency_end = now
                self.log(f"warning: {server.url}: its shared KV cache overflowed with up to {was} request(s) in flight "
                         f"({server.capacity_error}); now at most {now} at once, and the requests it refused are resent")
        return done, server

    def checked(self, row: RunRow, done: Completion, url: str) -> Completion:
        """The answer, failed with the reason if the server cut the prompt; warnings said at once."""
        reason = self.guard.check(row.id, done.usage)
        if (done.usage or {}).get("prompt_tokens") is None and url not in self.silent:
            self.silent.add(url)
            self.log(f"warning: {url} answers without usage (prompt_tokens): a prompt it cuts cannot be detected")
        if reason is None:
            return done
        self.log(f"warning: {row.id}: {reason}")
        self.result.truncation = truncation_error(self.guard, self.pre, url)
        self.result.stopped = self.result.stopped or self.guard.stop
        return dataclasses.replace(done, error=reason)

    def tally(self, row: RunRow, done: Completion, url: str) -> None:
        """Count the notes on an answer (no finish reason, parts that are not text); the first of each said at once."""
        for note in done.notes:
            noted = self.result.notes.setdefault(note, Noted(0, row.id))
            if noted.count == 0:
                self.log(f"warning: {url} {note} (first: {row.id}; the summary and the meta count them)")
            noted.count += 1

    def count(self, row: RunRow, done: Completion, bar: RunProgress) -> None:
        """Count a finished row; stop once failures pass the limit."""
        result = self.result
        result.sent += 1
        usage = done.usage or {}
        bar.advance(usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0, failed=bool(done.error))
        if done.error:
            result.failed += 1
            result.last_error = f"{row.id}: {done.error}"
            result.stopped = result.stopped or result.failed > result.failure_limit
        else:
            result.ok += 1
