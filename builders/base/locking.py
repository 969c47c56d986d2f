"""One writer per folder: a ``filelock`` lock file inside the folder, taken at once or waited for.

``FolderLock(folder, ...)`` creates the folder (and missing parents) if needed, remembers which
folders it created, and takes ``folder/.oneruler.lock``. Another process holding it makes
``acquire`` fail at once with a ``BusyError`` naming the folder, or, with ``wait`` > 0 seconds,
print one line saying so and wait at most that long. The lock is the kernel's ``flock``: it is
released when the holder exits, even by SIGKILL, so a killed build never leaves a stale lock.

The lock file exists only while a writer holds it: ``release`` deletes it first (a finished
export holds no stray file), and ``remove_created`` also removes the folders the lock made (for a
command that failed before writing anything). A waiter whose lock file was deleted meanwhile finds
it unlinked (``filelock`` >= 4 checks ``st_nlink``), makes it again and retries, so two writers
never hold the same folder.
"""

from __future__ import annotations

import errno
import os
import time
from pathlib import Path
from typing import Callable

from filelock import FileLock, Timeout

from .errors import BusyError, named_setting

LOCK_NAME = ".oneruler.lock"
POLL_S = 0.1
MAX_VANISHED = 100  # the folder cannot keep disappearing under us; something else is wrong


def make_folders(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return the ones this call created, deepest last."""
    to_create = []
    for path in [folder, *folder.parents]:
        if path.exists():
            break
        to_create.append(path)
    created = []
    for path in reversed(to_create):
        try:
            path.mkdir()
            created.append(path)
        except FileExistsError:
            pass  # another process made it first: not ours to remove
    if not folder.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "exists and is not a folder", str(folder))
    return created


class FolderLock:
    """The write lock of one folder (see the module docstring); a context manager."""

    def __init__(self, folder: str | os.PathLike, wait: float = 0.0, log: Callable[[str], None] | None = None,
                 what: str = "another oneruler command"):
        self.folder = Path(folder)
        self.path = self.folder / LOCK_NAME
        self.wait = max(0.0, float(wait))
        self.log = log or (lambda msg: None)
        self.what = what
        self.created: list[Path] = []  # folders this lock made
        self._lock: FileLock | None = None

    def acquire(self) -> FolderLock:
        """Create the folder if needed and take its lock (or raise BusyError)."""
        deadline = time.monotonic() + self.wait
        said, vanished = False, 0
        while True:
            self.created += make_folders(self.folder)
            lock = FileLock(str(self.path))
            try:
                lock.acquire(timeout=0)
                self._lock = lock
                return self
            except FileNotFoundError:
                vanished += 1
                if vanished > MAX_VANISHED:
                    raise
                continue  # the holder removed the folder it had created; make it again
            except Timeout:
                pass
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise BusyError(self._busy_message(said))
            if not said:
                self.log(f"waiting up to {self.wait:g} s for {self.what} writing into {self.folder} to finish "
                         f"(lock {self.path})")
                said = True
            time.sleep(min(POLL_S, remaining))

    def _busy_message(self, waited: bool) -> str:
        if waited:
            return (f"{self.folder}: still locked by {self.what} after waiting {self.wait:g} s (lock {self.path}); "
                    f"wait longer with {named_setting('wait')} SECONDS or write into another folder")
        return (f"{self.folder}: locked by {self.what} that is writing into it (lock {self.path}); "
                f"let it finish, pass {named_setting('wait')} SECONDS to queue behind it, or write into another folder")

    def release(self) -> None:
        """Delete the lock file, then release the lock (idempotent)."""
        if self._lock is not None:
            try:
                self.path.unlink(missing_ok=True)
            finally:
                self._lock.release()
                self._lock = None

    def remove_created(self) -> bool:
        """Release, and remove the folders this lock created if nothing else is in them.

        Returns whether the folder is gone. Used by a command that failed before writing anything,
        to leave the disk as it found it.
        """
        if self._lock is None:
            return False
        self.release()
        for path in reversed(self.created):
            try:
                path.rmdir()
            except OSError:
                break  # not empty (a waiting process already made its own lock file there): no longer ours
        return not self.folder.exists()

    def __enter__(self) -> FolderLock:
        return self.acquire()

    def __exit__(self, *exc) -> None:
        self.release()
