"""Progress of a run on stderr: rows done, rows/s, tokens/s, failures and ETA.

A redrawn tqdm bar on a terminal; elsewhere (logs, CI) a plain line every ``interval_s`` seconds
and a last one at the end, never a carriage return.
"""

from __future__ import annotations

import asyncio
import sys
import time
from typing import Awaitable, Callable

from ..base.progress import is_terminal


def clock(seconds: float) -> str:
    """``h:mm:ss`` (or ``m:ss`` under an hour)."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


class RunProgress:
    """Counts finished rows and tokens; shows them as a bar (terminal) or periodic plain lines.

    ``clock`` and ``sleep`` are the time it reads and the wait it takes between lines (the monotonic clock and
    asyncio's sleep; a test passes a clock of its own)."""

    def __init__(self, total: int, label: str = "rows", enabled: bool = True, interval_s: float = 10.0,
                 tokens: bool = True, extra: Callable[[], str] | None = None,
                 clock: Callable[[], float] = time.monotonic, sleep: Callable[[float], Awaitable] = asyncio.sleep):
        self.total, self.label, self.interval_s, self.tokens = total, label, interval_s, tokens
        self.extra = extra  # more to show on each line (e.g. each server's throughput)
        self.clock, self.sleep = clock, sleep
        self.enabled = enabled and total > 0
        self.done = self.failed = self.prompt_tokens = self.completion_tokens = 0
        self.started = self.last_line = clock()
        self.bar = None
        if self.enabled and is_terminal():
            from tqdm.auto import tqdm

            self.bar = tqdm(total=total, desc=label, unit="row", file=sys.stderr, dynamic_ncols=True)

    def advance(self, prompt_tokens: int = 0, completion_tokens: int = 0, failed: bool = False) -> None:
        """One more row finished (``failed``: with an error)."""
        self.done += 1
        self.failed += failed
        self.prompt_tokens += prompt_tokens or 0
        self.completion_tokens += completion_tokens or 0
        if not self.enabled:
            return
        if self.bar is not None and self.tokens:
            elapsed = max(self.clock() - self.started, 1e-9)
            more = self.extra() if self.extra is not None else ""
            self.bar.set_postfix_str(f"in {self.prompt_tokens / elapsed:,.0f} tok/s, out "
                                     f"{self.completion_tokens / elapsed:,.0f} tok/s, failed {self.failed}"
                                     + (f", {more}" if more else ""), refresh=False)
        if self.bar is not None:
            self.bar.update(1)
        elif self.clock() - self.last_line >= self.interval_s or self.done == self.total:
            self.last_line = self.clock()
            print(self.line(), file=sys.stderr, flush=True)

    async def tick(self) -> None:
        """Print the plain line every ``interval_s`` even while no row finishes (long prompts); until cancelled."""
        if not self.enabled:
            return
        while True:
            await self.sleep(max(0.05, self.interval_s - (self.clock() - self.last_line)))
            if self.clock() - self.last_line >= self.interval_s and self.done < self.total:
                self.last_line = self.clock()
                if self.bar is not None:
                    self.bar.refresh()  # the elapsed time moves on
                else:
                    print(self.line(), file=sys.stderr, flush=True)

    def line(self) -> str:
        """``[done/total] pct | rows/s | tokens/s | failed | elapsed | ETA``."""
        elapsed = max(self.clock() - self.started, 1e-9)
        rate = self.done / elapsed
        eta = clock((self.total - self.done) / rate) if rate > 0 else "?"
        tokens = (f" | in {self.prompt_tokens / elapsed:,.0f} tok/s, out {self.completion_tokens / elapsed:,.0f} tok/s | "
                  f"failed {self.failed}") if self.tokens else ""
        more = self.extra() if self.extra is not None else ""
        return (f"{self.label} [{self.done}/{self.total}] {100 * self.done / self.total:.1f}% | {rate:.2f} rows/s"
                f"{tokens} | elapsed {clock(elapsed)} | ETA {eta}" + (f" | {more}" if more else ""))

    def close(self) -> None:
        """Close the bar."""
        if self.bar is not None:
            self.bar.close()
            self.bar = None
