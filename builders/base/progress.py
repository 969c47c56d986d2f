"""Progress on stderr: redrawn bars on a terminal, plain lines (no carriage returns) elsewhere.

A build log written to a file or a CI console must stay readable, so when stderr is not a
terminal every finished config prints one line and nothing is ever redrawn.
"""

from __future__ import annotations

import sys
import time
from typing import Iterable, Iterator, TextIO, TypeVar

T = TypeVar("T")


def is_terminal(stream: TextIO | None = None) -> bool:
    """Whether ``stream`` (default stderr) is an interactive terminal."""
    stream = stream or sys.stderr
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def iterate(items: Iterable[T], desc: str, unit: str, enabled: bool = True) -> Iterator[T]:
    """``items`` with a tqdm bar on a terminal; silently elsewhere (the caller prints a summary)."""
    if not (enabled and is_terminal()):
        yield from items
        return
    from tqdm.auto import tqdm

    yield from tqdm(items, desc=desc, unit=unit, file=sys.stderr, leave=False)


class ConfigProgress:
    """One bar per config in flight plus an overall bar (terminal), or one line per finished config."""

    def __init__(self, total_configs: int, samples: int, enabled: bool, verb: str = "built"):
        self.enabled = enabled and total_configs > 0
        self.interactive = self.enabled and is_terminal()
        self.total = total_configs
        self.samples = samples
        self.verb = verb
        self.finished = 0
        self.started: dict[str, float] = {}
        self.bars: dict = {}
        self.slots: list[str | None] = []
        self.overall = None
        if self.interactive:
            from tqdm.auto import tqdm

            self._tqdm = tqdm
            self.overall = tqdm(total=total_configs, desc="configs", unit="config", file=sys.stderr,
                                position=0, dynamic_ncols=True)

    def update(self, name: str, n: int) -> None:
        """``n`` more examples of config ``name`` are done (0: it started)."""
        if not self.enabled:
            return
        self.started.setdefault(name, time.perf_counter())
        if not self.interactive:
            return
        bar = self.bars.get(name)
        if bar is None:
            bar = self._open_bar(name)
        if n:
            bar.update(n)

    def _open_bar(self, name: str):
        slot = next((i for i, s in enumerate(self.slots) if s is None), len(self.slots))
        if slot == len(self.slots):
            self.slots.append(None)
        self.slots[slot] = name
        bar = self._tqdm(total=self.samples, desc=name, unit="ex", file=sys.stderr, leave=False,
                         position=slot + 1, dynamic_ncols=True)
        self.bars[name] = bar
        return bar

    def done(self, name: str) -> None:
        """Config ``name`` is finished."""
        if not self.enabled:
            return
        self.finished += 1
        seconds = time.perf_counter() - self.started.pop(name, time.perf_counter())
        if not self.interactive:
            print(f"[{self.finished}/{self.total}] {self.verb} {name} ({seconds:.1f} s)", file=sys.stderr, flush=True)
            return
        bar = self.bars.pop(name, None)
        if bar is not None:
            bar.close()
            self.slots[self.slots.index(name)] = None
        self.overall.update(1)

    def abandon(self, name: str) -> None:
        """Config ``name`` failed on its own and the build goes on: its bar is closed, not counted as finished."""
        self.started.pop(name, None)
        bar = self.bars.pop(name, None)
        if bar is not None:
            bar.close()
            self.slots[self.slots.index(name)] = None

    def warn(self, message: str) -> None:
        """A ``warning:`` line on stderr, shown even with progress turned off (above the bars on a terminal)."""
        line = f"warning: {message}"
        if self.overall is not None:
            self.overall.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        """Close every bar."""
        for name in list(self.bars):
            self.bars.pop(name).close()
        if self.overall is not None:
            self.overall.close()
