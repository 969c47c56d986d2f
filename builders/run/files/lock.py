"""One writer per output file: a lock beside it (``.NAME.lock``), and temporary files named after it.

Whoever writes a predictions file (``run``, ``merge``, ``ingest``) or a batch request file holds its
lock, and writes every temporary file of it (and of its meta) as ``.NAME.tmp-*`` beside it
(``temp_prefix``). So the holder of the lock knows that any such file is left by a writer that was
killed (a ``kill -9`` during the final rewrite leaves a file as large as the predictions): it removes
them when it takes the lock. Temporary files of other names (another file's writer, another tool)
are never touched.

The lock is ``filelock``'s (``flock`` on the lock file, as ``base/locking.py``'s folder lock), taken at
once or refused; the lock file is removed when released.
"""

from __future__ import annotations

import glob
from pathlib import Path

from filelock import FileLock, Timeout

from ...base.errors import OneRulerError, describe_os_error, named_setting


def temp_prefix(path: Path) -> str:
    """The name every temporary file of ``path`` starts with: ``.NAME.tmp-``."""
    return f".{Path(path).name}.tmp-"


def lock_path(path: Path) -> Path:
    """The lock file of ``path``: ``.NAME.lock`` beside it."""
    return Path(path).with_name(f".{Path(path).name}.lock")


class OutputLock:
    """The lock of an output file; ``acquire`` takes it (or says who has it) and removes stale temp files."""

    def __init__(self, path: Path, also: tuple[Path, ...] = ()):
        self.path = Path(path)
        self.also = tuple(Path(p) for p in also)  # files written beside it under the same lock (its meta)
        self._lock: FileLock | None = None
        self.removed: list[tuple[Path, int]] = []  # stale temp files removed: (path, bytes)

    def acquire(self) -> "OutputLock":
        """Take the lock (an error if another process holds it), then remove the temp files a killed writer left."""
        target = lock_path(self.path)
        lock = FileLock(str(target))
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            lock.acquire(timeout=0)
        except Timeout:
            raise OneRulerError(f"{self.path}: another `oneruler` process is writing this file; wait for it "
                                f"or choose another {named_setting('out')}") from None
        except OSError as exc:
            raise OneRulerError(f"{self.path.parent}: cannot write there ({describe_os_error(exc)}); nothing was "
                                f"written. Choose another {named_setting('out')}") from None
        self._lock = lock
        self.removed = remove_stale((self.path, *self.also))
        return self

    def release(self) -> None:
        """Remove the lock file and release the lock."""
        if self._lock is not None:
            try:
                lock_path(self.path).unlink(missing_ok=True)
            finally:
                self._lock.release()
                self._lock = None

    def __enter__(self) -> "OutputLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def remove_stale(paths: tuple[Path, ...]) -> list[tuple[Path, int]]:
    """Remove the temp files of ``paths`` (``temp_prefix``); only a holder of their lock may call this."""
    removed = []
    for path in paths:
        pattern = str(path.with_name(glob.escape(temp_prefix(path)) + "*"))
        for stale in map(Path, glob.glob(pattern)):
            try:
                size = stale.stat().st_size
                stale.unlink()
            except FileNotFoundError:
                continue
            removed.append((stale, size))
    return removed
