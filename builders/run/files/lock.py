"""One writer per output file: a lock beside it (``.NAME.lock``), and temporary files named after it.

Whoever writes a predictions file (``run``, ``merge``, ``ingest``) or a batch request file holds its
lock, and writes every temporary file of it (and of its meta) as ``.NAME.tmp-*`` beside it
(``temp_prefix``). So the holder of the lock knows that any such file is left by a writer that was
killed (a ``kill -9`` during the final rewrite leaves a file as large as the predictions): it removes
them when it takes the lock. Temporary files of other names (another file's writer, another tool)
are never touched.

The lock is ``flock`` on the lock file, which is removed when released; a lock taken on a file that
was removed in between (its releaser unlinked it) is taken again on the new one.
"""

from __future__ import annotations

import fcntl
import glob
import os
from pathlib import Path
from typing import Any

from ...base.errors import OneRulerError, describe_os_error, named_setting

TRIES = 5  # a lock file replaced while we took it (released and removed by another writer) is taken again


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
        self._handle: Any = None
        self.removed: list[tuple[Path, int]] = []  # stale temp files removed: (path, bytes)

    def acquire(self) -> "OutputLock":
        """Take the lock (an error if another process holds it), then remove the temp files a killed writer left."""
        target = lock_path(self.path)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            for _ in range(TRIES):
                handle = open(target, "a")
                try:
                    fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    handle.close()
                    raise OneRulerError(f"{self.path}: another `oneruler` process is writing this file; wait for it "
                                        f"or choose another {named_setting('out')}") from None
                if _same_file(handle, target):
                    self._handle = handle
                    break
                handle.close()  # its holder released and removed it between our open and our lock: take the new one
            else:
                raise OneRulerError(f"{self.path}: could not take its lock {target.name} (it keeps being replaced)")
        except OSError as exc:
            raise OneRulerError(f"{self.path.parent}: cannot write there ({describe_os_error(exc)}); nothing was "
                                f"written. Choose another {named_setting('out')}") from None
        self.removed = remove_stale((self.path, *self.also))
        return self

    def release(self) -> None:
        """Remove the lock file and release the lock."""
        if self._handle is not None:
            lock_path(self.path).unlink(missing_ok=True)
            self._handle.close()
            self._handle = None

    def __enter__(self) -> "OutputLock":
        return self.acquire()

    def __exit__(self, *exc: object) -> None:
        self.release()


def _same_file(handle: Any, target: Path) -> bool:
    """Whether the locked handle is still the file at ``target`` (not one removed in between)."""
    try:
        return os.fstat(handle.fileno()).st_ino == os.stat(target).st_ino
    except FileNotFoundError:
        return False


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
