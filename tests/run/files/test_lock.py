"""``files/lock.py``: one writer per output file, and the temp files only that writer removes."""

from __future__ import annotations

import pytest

from builders.base.errors import OneRulerError
from builders.base.files import atomic_write_bytes
from builders.run.files.lock import OutputLock, lock_path, temp_prefix


def test_taking_the_lock_removes_this_files_stale_temps_and_nothing_else(tmp_path):
    out, meta = tmp_path / "p.jsonl", tmp_path / "p.meta.json"
    stale = [tmp_path / f"{temp_prefix(out)}a1b2", tmp_path / f"{temp_prefix(meta)}c3"]
    others = [tmp_path / ".tmp-x9", tmp_path / ".q.jsonl.tmp-1", tmp_path / "p.jsonl.tmp-1", tmp_path / ".p.jsonl.tmpx"]
    for path in stale + others:
        path.write_bytes(b"12345")
    with OutputLock(out, also=(meta,)) as lock:
        assert sorted(lock.removed) == sorted((p, 5) for p in stale)
        assert lock_path(out).exists() and all(p.exists() for p in others) and not any(p.exists() for p in stale)
        with pytest.raises(OneRulerError, match="another `oneruler` process is writing this file"):
            OutputLock(out).acquire()
    assert not lock_path(out).exists()
    with OutputLock(out) as again:  # free again, nothing left to remove
        assert again.removed == []


def test_writes_under_a_lock_use_temp_names_of_their_own(tmp_path):
    target = tmp_path / "p.meta.json"
    atomic_write_bytes(target, b"{}", prefix=temp_prefix(target))
    assert target.read_bytes() == b"{}" and sorted(p.name for p in tmp_path.iterdir()) == ["p.meta.json"]
    assert temp_prefix(target) == ".p.meta.json.tmp-"


def test_a_folder_that_cannot_be_written_is_one_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(OneRulerError, match=r"cannot write there .*nothing was written"):
        OutputLock(blocker / "p.jsonl").acquire()  # its folder is a file
