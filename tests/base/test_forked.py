"""Work beside the main line in a forked child (base/forked.py): the result comes back whole, an error raised there is
raised here, a result never asked for leaves no process behind, and without fork the work is done in place."""

from __future__ import annotations

import os

import pytest

from builders.base import forked
from builders.base.errors import OneRulerError


def test_a_child_sends_back_what_it_made_or_raised():
    big = forked.in_child(lambda: (os.getpid(), b"x" * 3_000_000))  # more than a pipe holds: read while it writes
    pid, data = big.result()
    assert pid != os.getpid() and data == b"x" * 3_000_000
    failing = forked.in_child(lambda: (_ for _ in ()).throw(OneRulerError("no rows")))
    with pytest.raises(OneRulerError, match="^no rows$"):
        failing.result()


def test_a_result_never_asked_for_is_stopped():
    child = forked.in_child(lambda: b"y" * 3_000_000)  # blocked on the full pipe until read
    pid = child._pid
    child.close()
    with pytest.raises(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)  # reaped: nothing left behind


def test_without_fork_the_work_is_done_when_asked(monkeypatch):
    monkeypatch.setattr(forked, "FORK_PLATFORMS", ("no-such-platform",))
    assert forked.in_child(lambda: os.getpid()).result() == os.getpid()


def test_warm_imports_then_calls_in_the_background():
    called = []
    thread = forked.warm_imports(("json", "no_such_module_here"), lambda: called.append(1))
    thread.join(timeout=60)
    assert not thread.is_alive() and called == []  # a module that cannot be imported stops the rest, silently
    thread = forked.warm_imports(("json",), lambda: called.append(2))
    thread.join(timeout=60)
    assert called == [2]


def test_no_child_when_asked_not_to_fork():
    child = forked.in_child(lambda: os.getpid(), when=False)
    assert child.result() == os.getpid()
    assert isinstance(forked.spare_core(), bool)
