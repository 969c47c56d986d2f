"""The predictions file of a run: JSONL, resumable, one flushed line per finished row (its meta: ``meta.py``).

Line: ``{"id", "prediction", "finish_reason", "reasoning", "usage", "latency_s", "error", "status"}``
with ``status`` ``ok``, ``failed`` (``error`` says why, ``prediction`` null) or ``skipped`` (the prompt
did not fit the server's window). A line torn by a kill (no final newline) is cut off on open; every
id appears at most once (``--retry-failed`` first rewrites the file without the lines it resends).
One process at a time: a lock file beside the predictions.
"""

from __future__ import annotations

import fcntl
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ...base.errors import OneRulerError, named_setting
from ...spec.prediction_line import LINE_STATUSES, PredictionLine
from .lines import LineRef, index_lines, line_bytes, reindexed, write_in_id_order


@dataclass
class PredictionStore:
    """The predictions file of a run, opened for appending under an exclusive lock.

    Holds an index of the lines (id → status and position, ``lines.LineRef``), never their text,
    so memory stays flat however long the answers are.
    """

    path: Path
    index: dict[str, LineRef] = field(default_factory=dict)
    torn_bytes: int = 0
    _handle: Any = None
    _lock: Any = None
    _size: int = 0

    def peek(self) -> "PredictionStore":
        """Read what earlier runs finished without locking or changing anything (for ``--dry-run``)."""
        if self.path.exists():
            self.index, self.torn_bytes = index_lines(self.path)
        return self

    def open(self) -> "PredictionStore":
        """Take the lock and read what earlier runs finished (cutting off a torn last line)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.with_name(f".{self.path.name}.lock")
        self._lock = open(lock_path, "a")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise OneRulerError(f"{self.path}: another `oneruler run` is writing this file; wait for it or choose "
                                f"another {named_setting('out')}") from None
        if self.path.exists():
            self.index, self.torn_bytes = index_lines(self.path)
            self._size = self.path.stat().st_size - self.torn_bytes
            if self.torn_bytes:
                with open(self.path, "r+b") as fh:
                    fh.truncate(self._size)
        return self

    def ids(self, *statuses: str) -> set[str]:
        """Ids of the lines with one of these statuses."""
        return {i for i, ref in self.index.items() if ref.status in statuses}

    def counts(self) -> dict[str, int]:
        """Lines per status."""
        out = dict.fromkeys(LINE_STATUSES, 0)
        for ref in self.index.values():
            out[ref.status] += 1
        return out

    def append(self, record: PredictionLine) -> None:
        """Write one finished row as a line, flushed to the OS at once (survives a kill of this process)."""
        if self._handle is None:  # created on the first line: a run refused before sending leaves no file
            self._handle = open(self.path, "ab", buffering=0)
        data = line_bytes(record)
        self._handle.write(data)
        self.index[record.id] = LineRef(record.status, self._size, len(data))
        self._size += len(data)

    def rewrite(self, drop: Iterable[str] = ()) -> None:
        """Atomically rewrite the file in id order, without the lines of ``drop`` (line by line, not in memory)."""
        for ident in drop:
            self.index.pop(ident, None)
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        write_in_id_order(self.path, [self.path], self.index)
        self.index = reindexed(self.index)
        self._size = sum(ref.size for ref in self.index.values())

    def close(self) -> None:
        """Flush to disk and release the lock."""
        if self._handle is not None:
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None
        if self._lock is not None:
            Path(self._lock.name).unlink(missing_ok=True)
            self._lock.close()
            self._lock = None
