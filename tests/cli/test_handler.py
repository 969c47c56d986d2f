"""The one error path: every exception a command can meet becomes one ``error:`` line and its exit code."""

from __future__ import annotations

import errno
import fcntl
import os
import subprocess
import sys
from pathlib import Path

import pytest

from builders.base.errors import BusyError, CheckFailed
from builders.cli.handler import cli_errors


def outcome(exc: BaseException, capsys) -> tuple[int, str]:
    @cli_errors
    def command():
        raise exc

    with pytest.raises(SystemExit) as info:
        command()
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("error: ") and "Traceback" not in err
    return info.value.code, err.strip()


@pytest.mark.parametrize("exc, code, says", [
    (PermissionError(errno.EACCES, "Permission denied", "/srv/out"), 2, "error: /srv/out: permission denied; make it writable"),
    (OSError(errno.ENOSPC, "No space left on device", "/srv/out/x"), 2, "error: /srv/out/x: no space left on the device"),
    (OSError(errno.EROFS, "Read-only file system", "/mnt/ro"), 2, "error: /mnt/ro: read-only file system"),
    (OSError(errno.EFBIG, "File too large", "/srv/f"), 2, "error: /srv/f: file too large"),
    (FileNotFoundError(errno.ENOENT, "No such file or directory", "/nope"), 2, "error: /nope: no such file or folder"),
    (MemoryError(), 2, "error: out of memory; use shorter lengths, fewer --samples"),
    (KeyboardInterrupt(), 130, "error: interrupted"),
    (ValueError("bad value"), 2, "error: bad value"),
    (BusyError("/srv/out: locked"), 2, "error: /srv/out: locked"),
    (CheckFailed("1 of 3 differ"), 1, "error: 1 of 3 differ"),
])
def test_every_error_is_one_line_with_its_exit_code(exc, code, says, capsys):
    got_code, line = outcome(exc, capsys)
    assert got_code == code and line.startswith(says), line


def test_other_exceptions_are_not_swallowed(capsys):
    @cli_errors
    def command():
        raise RuntimeError("a bug")

    with pytest.raises(RuntimeError):  # a bug keeps its traceback: it must be found, not hidden
        command()


def test_a_reader_leaving_the_pipe_ends_the_command_quietly():
    """`oneruler list '*' | head -c 100`: a real pipe of one page (F_SETPIPE_SZ) closed after 100 bytes of ~19 KB,
    so the command must meet EPIPE; it ends without `error: Broken pipe`, with exit code 141."""
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, 1031, 4096)  # F_SETPIPE_SZ: the smallest pipe, far below the listing's size
    proc = subprocess.Popen([sys.executable, "-m", "builders.cli", "list", "*"], cwd=Path(__file__).resolve().parents[2],
                            stdout=write_end, stderr=subprocess.PIPE)
    os.close(write_end)
    first = os.read(read_end, 100)
    os.close(read_end)
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 141 and first.startswith(b"cs_s_niah_8k\n")
    assert err == ""
