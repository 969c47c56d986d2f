"""Atomic writes: the umask is honoured, several files change together or not at all (real OS limits)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from builders.base.files import atomic_write_bytes, file_mode, named_os_error, new_temp_file, temp_file_beside

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640), (0o077, 0o600)])
def test_new_files_get_the_umask_mode_not_mkstemps_0600(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        assert file_mode() == mode
        fd, tmp = new_temp_file(tmp_path / "sub", prefix="x-", suffix=".part")
        os.close(fd)
        fd2, beside = temp_file_beside(tmp_path / "a" / "file.txt")
        os.close(fd2)
        atomic_write_bytes(tmp_path / "b" / "file.txt", b"data")
    finally:
        os.umask(old)
    assert tmp.name.startswith("x-") and tmp.name.endswith(".part")
    assert beside.name.startswith(".tmp-")
    for path in (tmp, beside, tmp_path / "b" / "file.txt"):
        assert path.stat().st_mode & 0o777 == mode, path
    assert [p.name for p in (tmp_path / "b").iterdir()] == ["file.txt"]


def test_named_os_error_adds_the_path_a_write_did_not_name(tmp_path):
    bare = OSError(28, "No space left on device")
    named = named_os_error(bare, tmp_path / "x")
    assert (named.errno, named.filename) == (28, str(tmp_path / "x")) and named.__cause__ is bare
    # pyarrow only writes the errno into its message
    arrow = OSError("Error writing bytes to file. Detail: [errno 27] File too large")
    assert named_os_error(arrow, "f").errno == 27
    assert isinstance(named_os_error(OSError(13, "Permission denied"), "f"), PermissionError)
    already = PermissionError(13, "Permission denied", "mine")
    assert named_os_error(already, "other") is already


# Runs in a child with a real file-size limit: writing past it fails with EFBIG (Python ignores SIGXFSZ).
FSIZE_CHILD = textwrap.dedent("""
    import json, resource, sys
    from pathlib import Path
    from builders.base.files import atomic_write_all
    folder = Path(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_FSIZE, (1000, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    moved = []
    try:
        atomic_write_all({folder / "small.txt": b"new small", folder / "big.txt": b"x" * 5000},
                         before_rename=lambda: moved.append(1))
    except OSError as exc:
        print(json.dumps([exc.errno, exc.filename, moved]))
""")


def test_atomic_write_all_changes_nothing_when_one_file_hits_the_size_limit(tmp_path):
    (tmp_path / "small.txt").write_bytes(b"old small")
    (tmp_path / "big.txt").write_bytes(b"old big")
    proc = subprocess.run([sys.executable, "-c", FSIZE_CHILD, str(tmp_path)], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONPATH=str(REPO)), timeout=60)
    assert proc.returncode == 0, proc.stderr
    import errno
    import json

    code, filename, moved = json.loads(proc.stdout)
    assert code == errno.EFBIG and filename == str(tmp_path / "big.txt") and moved == []
    assert (tmp_path / "small.txt").read_bytes() == b"old small" and (tmp_path / "big.txt").read_bytes() == b"old big"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big.txt", "small.txt"]  # no temp file left
