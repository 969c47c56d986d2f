"""One line for every OS error: the path, what happened, what would fix it."""

from __future__ import annotations

import errno

import pytest

from builders.base.errors import describe_os_error, os_errno


@pytest.mark.parametrize("code, what, fix", [
    (errno.EACCES, "permission denied", "writable"),
    (errno.EROFS, "read-only file system", "writable file system"),
    (errno.ENOSPC, "no space left", "free some space"),
    (errno.EDQUOT, "quota", "free some space"),
    (errno.EFBIG, "file-size limit", "ulimit -f"),
    (errno.ENOTDIR, "is a file, not a folder", "check the path"),
])
def test_each_errno_names_the_path_and_a_fix(code, what, fix):
    line = describe_os_error(OSError(code, "raw text", "/data/out"))
    assert line.startswith("/data/out: ") and what in line and fix in line
    assert "\n" not in line and "Errno" not in line


def test_errors_without_a_path_or_a_known_errno_stay_readable():
    assert describe_os_error(OSError(errno.ENOSPC, "No space left on device")).startswith("no space left")
    assert describe_os_error(OSError(errno.EXDEV, "Invalid cross-device link", "a", None, "b")) == "a -> b: Invalid cross-device link"
    assert os_errno(OSError("IOError: Error writing bytes. Detail: [errno 28] No space left")) == errno.ENOSPC
    assert os_errno(OSError("no number here")) is None
