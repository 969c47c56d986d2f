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

from .errors import os_errno

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


def new_temp_file(folder: Path, prefix: str = TMP_PREFIX, suffix: str = "") -> tuple[int, Path]:
    """A new temp file in ``folder`` (created if needed) with the umask-based mode, not mkstemp's 0600."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=prefix, suffix=suffix, dir=folder)
    try:
        os.fchmod(fd, file_mode())
    except BaseException:
        os.close(fd)
        os.unlink(tmp)
        raise
    return fd, Path(tmp)


def temp_file_beside(path: Path, suffix: str = "", prefix: str = TMP_PREFIX) -> tuple[int, Path]:
    """A new hidden temp file in ``path``'s folder (created if needed), with the umask-based mode (``prefix``: a name
    of the writer's own, so that it can tell its temp files from others' and remove those a kill left behind)."""
    return new_temp_file(Path(path).parent, prefix, suffix)


def named_os_error(exc: OSError, path: str | os.PathLike) -> OSError:
    """``exc`` itself if it names a file, else the same error naming ``path`` (``fh.write`` names none)."""
    code = os_errno(exc)
    if exc.filename is not None or code is None:
        return exc
    named = OSError(code, os.strerror(code), os.fspath(path))
    named.__cause__ = exc
    return named


def _write_temp(path: Path, write: Callable[[BinaryIO], None], fsync: bool, prefix: str = TMP_PREFIX) -> Path:
    fd, tmp = temp_file_beside(path, prefix=prefix)
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            if fsync:
                os.fsync(fh.fileno())
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise named_os_error(exc, path) from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], None], *, fsync: bool = True,
                 prefix: str = TMP_PREFIX) -> None:
    """Call ``write(handle)`` on a temp file beside ``path`` (named ``prefix``...), then rename it to ``path``."""
    path = Path(path)
    tmp = _write_temp(path, write, fsync, prefix)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def atomic_write_bytes(path: str | os.PathLike, data: bytes, prefix: str = TMP_PREFIX) -> None:
    """Write ``data`` to ``path`` atomically (see the module docstring; ``prefix``: as for ``atomic_write``)."""
    atomic_write(path, lambda fh: fh.write(data), prefix=prefix)


def atomic_write_all(files: dict[Path, bytes], before_rename: Callable[[], None] | None = None) -> None:
    """Write several files that must change together: every temp file first, then the renames.

    A full disk or a permission error fails while only temp files exist (they are removed), so the
    files keep their old content together; the renames that follow need no space. ``before_rename``
    runs once every temp file is written (e.g. to move into place what the files describe).
    """
    temps: dict[Path, Path] = {}
    try:
        for path, data in files.items():
            temps[Path(path)] = _write_temp(Path(path), lambda fh, data=data: fh.write(data), True)
        if before_rename is not None:
            before_rename()
        for path, tmp in temps.items():
            os.replace(tmp, path)
    finally:
        for tmp in temps.values():
            tmp.unlink(missing_ok=True)
