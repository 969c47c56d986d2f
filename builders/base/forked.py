"""Work done beside the main line in a forked child: ``in_child(fn)`` starts ``fn`` now, ``.result()`` waits for it.

``oneruler score`` draws its figures this way while it computes and writes the rest of the report,
when a core is free for them (``spare_core``: on a machine whose cores are all busy a child only
competes with its parent): matplotlib holds the GIL while it draws, so threads would not overlap; a
forked child shares what the parent has already computed and imported without copying or pickling
it in, and sends back only bytes. On systems without a safe ``fork`` (Windows, macOS) or when the fork fails, ``fn`` runs
in the parent when its result is asked for: the same result, later. The result is the same bytes
either way, whichever order the work ends in.
"""

from __future__ import annotations

import importlib
import os
import pickle
import signal
import sys
import threading
from typing import Callable, Generic, TypeVar

T = TypeVar("T")
FORK_PLATFORMS = ("linux",)


class Child(Generic[T]):
    """``fn`` running in a forked child (or waiting to run in this process); ``result()`` returns what it returned or
    raises what it raised."""

    def __init__(self, fn: Callable[[], T], fork: bool = True):
        self._fn, self._pid, self._read = fn, None, None
        if not fork or not sys.platform.startswith(FORK_PLATFORMS):
            return
        try:
            read, write = os.pipe()
            pid = os.fork()
        except OSError:  # no more processes or memory: do it here, later
            return
        if pid == 0:  # the child: run, send the pickled outcome, leave without the parent's exit handlers
            os.close(read)
            try:
                outcome = (True, fn())
            except BaseException as exc:  # noqa: BLE001 - every failure goes back to the parent
                outcome = (False, exc)
            try:
                with os.fdopen(write, "wb") as pipe:
                    pickle.dump(outcome, pipe, protocol=pickle.HIGHEST_PROTOCOL)
            finally:
                os._exit(0)
        os.close(write)
        self._pid, self._read = pid, read

    def result(self) -> T:
        """What ``fn`` returned (waiting for the child); what it raised is raised here."""
        if self._pid is None:
            return self._fn()
        with os.fdopen(self._read, "rb") as pipe:
            data = pipe.read()
        os.waitpid(self._pid, 0)
        self._pid = None
        if not data:  # the child died before it could answer (killed): do the work here
            return self._fn()
        ok, value = pickle.loads(data)
        if not ok:
            raise value
        return value


    def close(self) -> None:
        """Stop the child if its result was never asked for (the command failed meanwhile)."""
        if self._pid is None:
            return
        try:
            os.kill(self._pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(self._pid, 0)
        os.close(self._read)
        self._pid = None


def warm_imports(modules: tuple[str, ...], *then: Callable[[], object]) -> threading.Thread:
    """Import ``modules``, then call ``then``, in a background thread (while the main thread waits on I/O); join it
    before forking, so that no child starts in the middle of an import and every child starts with them imported. A
    failure here is left to whoever needs the module or the call: it meets it again and says so."""
    def load() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except ImportError:
                return
        for call in then:
            try:
                call()
            except Exception:  # noqa: BLE001 - see the docstring
                return

    thread = threading.Thread(target=load, name="oneruler-warm-imports", daemon=True)
    thread.start()
    return thread


def spare_core() -> bool:
    """Whether a core is free for a child now: more than one core, and fewer runnable processes than cores besides
    this one (Linux's ``/proc/loadavg``, the scheduler's count at this moment; elsewhere the last minute's load). On
    a busy machine a child only competes with its parent, and costs its fork."""
    cores = os.cpu_count() or 1
    try:
        with open("/proc/loadavg", encoding="ascii") as handle:
            runnable = int(handle.read().split()[3].split("/")[0]) - 1  # this process is one of them
    except (OSError, ValueError, IndexError):
        try:
            runnable = os.getloadavg()[0]
        except OSError:  # no load average on this system
            return False
    return cores > 1 and runnable < cores


def in_child(fn: Callable[[], T], when: bool = True) -> Child[T]:
    """Start ``fn`` in a forked child now when ``when`` (see the module docstring); else it runs when its result is
    asked for, in this process."""
    return Child(fn, fork=when)
