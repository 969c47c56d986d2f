"""Exceptions with a meaning for the command line: each carries its exit code.

No dependency: every layer may raise these; only ``builders.cli`` turns them into an ``error:`` line.
"""

from __future__ import annotations

import errno
import os
import re
from typing import Callable

from .redact import redact_text


# A setting's name marked inside a message (``named_setting``): the command line words exactly the
# marked places, where a whole-word match would also catch a path (``/tmp/out``) or prose ("one seed").
_MARK = "\x00"
_MARKED = re.compile(f"{_MARK}([^{_MARK}]+){_MARK}")


def named_setting(name: str) -> str:
    """``name`` marked as a setting inside an error message: ``str()`` of the error reads ``name``, the command
    line's ``error:`` line its flag (``OneRulerError.worded``). Only for text that becomes an error's message."""
    return f"{_MARK}{name}{_MARK}"


def _restore(cls: type, args: tuple, state: dict) -> BaseException:
    exc = cls.__new__(cls, *args)
    exc.args = args
    exc.__dict__.update(state)
    return exc


class OneRulerError(Exception):
    """Base class: a clear message naming the thing at fault. Exit code 2 (bad input).

    Below the command line a message names a setting by its name (``concurrency``, ``skip_overlong``:
    the field of the settings object a Python caller passes); ``settings`` lists the names it uses,
    so that the command line can word each one as its flag (``--concurrency``) and nothing else.
    A name marked with ``named_setting`` is worded where it stands and listed by itself; a name only
    listed in ``settings`` is worded wherever it is a whole word.
    """

    exit_code = 2

    def __init__(self, message: str = "", *, settings: tuple[str, ...] = ()):
        super().__init__(_MARKED.sub(r"\1", message))
        self.marked = message  # the message with its marked settings (to word it, or to quote it in another error)
        self._whole_words = tuple(settings)
        self.settings = tuple(dict.fromkeys((*settings, *_MARKED.findall(message))))

    def __reduce__(self):
        # a worker process's error reaches its parent whole, whatever a subclass's __init__ takes
        return _restore, (type(self), self.args, self.__dict__)

    def worded(self, flag_of: Callable[[str], str]) -> str:
        """The message with each setting it names replaced by ``flag_of(name)``: every marked place, and every
        whole-word occurrence of a name only listed in ``settings``."""
        text = _MARKED.sub(lambda m: flag_of(m[1]), self.marked)
        for name in sorted(self._whole_words, key=len, reverse=True):
            text = re.sub(rf"(?<![\w-]){re.escape(name)}(?![\w-])", lambda _m, n=name: flag_of(n), text)
        return text


class SettingError(OneRulerError):
    """A setting has a value it cannot have: ``str()`` is ``"<setting> <problem>"``, e.g.
    ``concurrency must be at least 1 (got 0)``; the command line says ``--concurrency must ...``."""

    def __init__(self, setting: str, problem: str, *, settings: tuple[str, ...] = ()):
        super().__init__(f"{named_setting(setting)} {problem}", settings=settings)  # marked: worded there only
        self.setting, self.problem = setting, problem


class SourceError(OneRulerError):
    """A pinned source is missing, unreachable, or its content is invalid."""


class IntegrityError(SourceError):
    """Bytes whose sha256 (or size) differ from the pinned manifest. Exit code 1."""

    exit_code = 1


class TokenizerError(OneRulerError):
    """A tokenizer spec cannot be resolved or loaded."""


class CheckFailed(OneRulerError):
    """A verification found a difference. Exit code 1."""

    exit_code = 1


class BusyError(OneRulerError):
    """Another process holds the lock of a folder this command must write. Exit code 2."""


# errno -> (what happened, what would fix it), for the one-line message of an OSError.
OS_ERROR_FIXES: dict[int, tuple[str, str]] = {
    errno.EACCES: ("permission denied", "make it writable (and readable) for this user, or choose another folder"),
    errno.EPERM: ("operation not permitted", "make it writable for this user, or choose another folder"),
    errno.EROFS: ("read-only file system", "choose a folder on a writable file system"),
    errno.ENOSPC: ("no space left on the device", "free some space or choose a folder on another disk"),
    errno.EDQUOT: ("disk quota exceeded", "free some space or choose a folder on another disk"),
    errno.EFBIG: ("file too large: the file-size limit was reached (ulimit -f, or the file system's)",
                  "raise the limit (ulimit -f unlimited) or choose a folder on another file system"),
    errno.ENOENT: ("no such file or folder", "check the path"),
    errno.ENOTDIR: ("a part of the path is a file, not a folder", "check the path"),
    errno.EISDIR: ("is a folder, not a file", "check the path"),
    errno.EEXIST: ("already exists", "remove it or choose another path"),
    errno.EMFILE: ("too many open files", "raise the limit (ulimit -n)"),
    errno.EIO: ("input/output error", "check the disk"),
}
_ERRNO_IN_TEXT = re.compile(r"\[?errno (\d+)\]?", re.IGNORECASE)


def os_errno(exc: OSError) -> int | None:
    """The errno of an OSError, also when a library only wrote it into the message (pyarrow)."""
    if exc.errno is not None:
        return exc.errno
    m = _ERRNO_IN_TEXT.search(str(exc))
    return int(m.group(1)) if m else None


def describe_os_error(exc: OSError) -> str:
    """One line for an OSError: the path(s) it names, what happened, and what would fix it."""
    code = os_errno(exc)
    what, fix = OS_ERROR_FIXES.get(code, (exc.strerror or (os.strerror(code) if code else str(exc)), ""))
    paths = [os.fspath(p) for p in (exc.filename, exc.filename2) if p is not None]
    where = " -> ".join(paths) + ": " if paths else ""
    return f"{where}{what}" + (f"; {fix}" if fix else "")


def one_line(exc: BaseException) -> str:
    """An exception's message on one line (huggingface_hub and datasets write several, with blank ones), every URL
    in it public and no secret of the environment in it (``redact.redact_text``)."""
    text = " ".join(line.strip() for line in str(exc).splitlines() if line.strip()) or type(exc).__name__
    return redact_text(text)


def problems_error(problems: list[str], what: str, shown: int = 20) -> OneRulerError:
    """One error listing the first ``shown`` of several problems (and how many more there are)."""
    listed = "\n  ".join(problems[:shown])
    more = f"\n  ... and {len(problems) - shown} more" if len(problems) > shown else ""
    return OneRulerError(f"{len(problems)} {what}:\n  {listed}{more}")
