"""The one sha256 helper and the one atomic writer of the project.

Files are written to a hidden temporary file in the target folder, flushed, given the usual
umask-based mode (``mkstemp`` makes 0600 files) and renamed with ``os.replace``: a reader sees the
old file or the new one, never half of one, and an interrupted write leaves no partial file.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path
from typing import BinaryIO, Callable

CHUNK = 1 << 20
TMP_PREFIX = ".tmp-"


def sha256_bytes(data: bytes) -> str:
    """Hex sha256 of bytes."""
    return hashlib.sha256(data).hexdigest()


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(CHUNK), b""):
            h.update(chunk)
    return h.hexdigest()


def file_mode() -> int:
    """The mode a new regular file gets under the current umask (0644 under umask 022)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def temp_file_beside(path: Path, suffix: str = "") -> tuple[int, Path]:
    """A new hidden temp file in ``path``'s folder (created if needed), with the umask-based mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=suffix, dir=path.parent)
    os.chmod(tmp, file_mode())
    return fd, Path(tmp)


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], None], *, fsync: bool = True) -> None:
    """Call ``write(handle)`` on a temp file beside ``path``, then rename it to ``path``."""
    path = Path(path)
    fd, tmp = temp_file_beside(path)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see the module docstring)."""
    atomic_write(path, lambda fh: fh.write(data))
