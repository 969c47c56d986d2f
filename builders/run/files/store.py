"""The predictions file of a run: JSONL, resumable, one flushed line per finished row (its meta: ``meta.py``).

Line: ``{"id", "prediction", "finish_reason", "reasoning", "usage", "latency_s", "error", "status"}``
with ``status`` ``ok``, ``failed`` (``error`` says why, ``prediction`` null) or ``skipped`` (the prompt
did not fit the server's window). A line torn by a kill (no final newline) is cut off on open; every
id appears at most once (``--retry-failed`` first rewrites the file without the lines it resends).
One process at a time (``lock.OutputLock``: a lock file beside the predictions); taking it removes the
temporary files a killed rewrite left. Before anything is sent, the file and its meta must be
writable: a file that cannot be written is one error, not a failure after the answers came back.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from ...base.errors import OS_ERROR_FIXES, OneRulerError, named_setting
from ...spec.prediction_line import LINE_STATUSES, PredictionLine
from .lines import LineRef, index_lines, line_bytes, reindexed, write_in_id_order
from .lock import OutputLock
from .meta import meta_path


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
        """Take the lock, check the file and its meta can be written, and read what earlier runs finished (cutting
        off a torn last line). ``stale``: the temporary files of a killed rewrite, removed."""
        self._lock = OutputLock(self.path, also=(meta_path(self.path),)).acquire()
        try:
            for path in (self.path, meta_path(self.path)):
                writable(path)
            if self.path.exists():
                self.index, self.torn_bytes = index_lines(self.path)
                self._size = self.path.stat().st_size - self.torn_bytes
                if self.torn_bytes:
                    with open(self.path, "r+b") as fh:
                        fh.truncate(self._size)
        except BaseException:
            self.close()
            raise
        return self

    @property
    def stale(self) -> list[tuple[Path, int]]:
        """Temporary files of an interrupted write removed when the lock was taken: (path, bytes)."""
        return self._lock.removed if self._lock is not None else []

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
            self._lock.release()
            self._lock = None


def writable(path: Path) -> None:
    """An error if an existing ``path`` cannot be written (read-only, immutable): said before anything is sent."""
    if not path.exists():
        return
    try:
        with open(path, "ab"):  # opened for appending, nothing written: the file stays as it is
            pass
    except OSError as exc:
        what = OS_ERROR_FIXES.get(exc.errno or 0, (exc.strerror or type(exc).__name__, ""))[0]
        raise OneRulerError(f"{path} cannot be written ({what}); nothing was sent. Make it writable "
                            f"(chmod u+w, chattr -i) or choose another {named_setting('out')}") from None
