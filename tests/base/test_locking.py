"""One writer per folder: real processes holding, waiting for and dropping a folder's lock."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from builders.base.errors import BusyError
from builders.base.locking import LOCK_NAME, FolderLock
from builders.cli.handler import flag_of

REPO = Path(__file__).resolve().parents[2]

# Takes the lock of argv[1] (waiting up to argv[2] s), says so, holds it until a line arrives on stdin,
# then releases it, or with argv[3] == "remove" removes the folders it created.
HOLDER = textwrap.dedent("""
    import sys
    from builders.base.locking import FolderLock
    lock = FolderLock(sys.argv[1], wait=float(sys.argv[2]), log=lambda m: print(m, flush=True))
    lock.acquire()
    print("locked", lock.created, flush=True)
    sys.stdin.readline()
    if sys.argv[3] == "remove":
        lock.remove_created()
    lock.release()
    print("released", flush=True)
""")


def start(folder: Path, wait: float = 0, then: str = "release") -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", HOLDER, str(folder), str(wait), then], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(os.environ, PYTHONPATH=str(REPO)))


def line_of(proc: subprocess.Popen) -> str:
    line = proc.stdout.readline()
    assert line, proc.stderr.read()
    return line


def finish(proc: subprocess.Popen) -> str:
    out, err = proc.communicate("\n", timeout=30)
    assert proc.returncode == 0, err
    return out


def test_a_second_writer_fails_at_once_or_waits_with_a_message(tmp_path):
    folder = tmp_path / "new" / "export"
    holder = start(folder)
    try:
        assert line_of(holder).startswith("locked")
        with pytest.raises(BusyError) as info:
            FolderLock(folder).acquire()
        message = str(info.value)
        assert str(folder) in message and "pass wait SECONDS" in message and "\n" not in message
        assert "pass --wait SECONDS" in info.value.worded(flag_of)  # the setting, as the command line names it
        said: list[str] = []
        with pytest.raises(BusyError, match=r"still locked .* after waiting 0\.3 s"):
            FolderLock(folder, wait=0.3, log=said.append).acquire()
        assert len(said) == 1 and said[0].startswith("waiting up to 0.3 s") and str(folder) in said[0]
        waiter = start(folder, wait=60)
        assert line_of(waiter).startswith("waiting up to 60 s")
    finally:
        finish(holder)
    assert line_of(waiter).startswith("locked")
    finish(waiter)


def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    holder = start(tmp_path / "export")
    assert line_of(holder).startswith("locked")
    holder.send_signal(signal.SIGKILL)
    holder.wait(timeout=30)
    with FolderLock(tmp_path / "export") as lock:
        assert lock.created == []  # the folder was the killed holder's; the lock is free at once


def test_the_lock_file_exists_only_while_held_and_created_folders_can_be_removed(tmp_path):
    (tmp_path / "kept").mkdir()
    lock = FolderLock(tmp_path / "kept" / "a" / "b").acquire()
    assert lock.created == [tmp_path / "kept" / "a", tmp_path / "kept" / "a" / "b"]
    assert [p.name for p in lock.folder.iterdir()] == [LOCK_NAME]
    assert lock.remove_created() is True
    assert [p.name for p in tmp_path.iterdir()] == ["kept"] and not any((tmp_path / "kept").iterdir())
    # something else in the folder: only the lock file goes
    lock = FolderLock(tmp_path / "kept" / "c").acquire()
    (tmp_path / "kept" / "c" / "manifest.json").write_text("{}")
    assert lock.remove_created() is False
    assert [p.name for p in (tmp_path / "kept" / "c").iterdir()] == ["manifest.json"]
    # a folder that existed is never removed; a plain release leaves no lock file either
    with FolderLock(tmp_path / "kept" / "c") as again:
        assert again.created == [] and (again.folder / LOCK_NAME).is_file()
    assert [p.name for p in (tmp_path / "kept" / "c").iterdir()] == ["manifest.json"]


def test_a_waiter_and_a_newcomer_never_both_hold_a_folder_whose_lock_file_was_deleted(tmp_path):
    """The holder deletes its lock file on release while one process waits on the old file."""
    folder = tmp_path / "export"
    holder = start(folder)
    assert line_of(holder).startswith("locked")
    waiter = start(folder, wait=60)
    assert line_of(waiter).startswith("waiting")
    finish(holder)  # deletes the lock file, then releases
    assert line_of(waiter).startswith("locked")
    with pytest.raises(BusyError):  # the newcomer sees the waiter's (new) lock file held
        FolderLock(folder).acquire()
    finish(waiter)
    assert not (folder / LOCK_NAME).exists()


def test_a_waiter_takes_over_a_folder_its_creator_removed(tmp_path):
    folder = tmp_path / "new" / "export"
    creator = start(folder, then="remove")
    assert line_of(creator).startswith("locked")
    waiter = start(folder, wait=60)
    assert line_of(waiter).startswith("waiting")
    finish(creator)
    assert line_of(waiter).startswith("locked")  # made the folder again and locked it
    assert folder.is_dir() and (folder / LOCK_NAME).is_file()
    finish(waiter)
