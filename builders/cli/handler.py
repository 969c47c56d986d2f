"""The one place where exceptions become an ``error:`` line on stderr and an exit code.

Exit codes: 0 success; 1 a check failed (integrity, verify, score thresholds or partial coverage);
2 bad input or an environment problem (names, values, files, a folder locked by another build,
permission denied, read-only or full disk, file-size limit, out of memory); 130 interrupted (Ctrl-C);
141 stdout's reader went away (``| head``), silently.
Every error is one line naming the culprit and what would fix it; never a traceback, never a secret
(``base/redact.py:redact_text``: URLs shown without user info or query values, tokens hidden).
"""

from __future__ import annotations

import functools
import os
import sys
from typing import Callable, TypeVar

import click

from ..base.errors import OneRulerError, describe_os_error
from ..base.redact import redact_text

F = TypeVar("F", bound=Callable)

EXIT_INTERRUPTED = 130
EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a command its pipe reader left
OUT_OF_MEMORY = ("out of memory; use shorter lengths, fewer --samples or a smaller --num-proc "
                 "(or free memory for this process)")


# Settings whose flag is not ``--`` + the name with ``-`` for ``_`` (names as the settings objects spell them).
SETTING_FLAGS: dict[str, str] = {
    "tokenizers": "--tokenizer",  # oneruler build, verify, show
    "truncation": "--truncated",  # oneruler score (report/score/options.py)
    # oneruler run (run/settings.py, run/request_settings.py, run/settings_build.py), ingest (run/batch/api.py)
    "base_urls": "--base-url", "base_urls_file": "--base-urls", "batch": "--batch-requests",
    "max_requests": "--batch-max-requests", "max_bytes": "--batch-max-bytes", "timeout_s": "--timeout",
    "base_s": "--retry-wait", "wait_s": "--wait", "max_wait_s": "--max-retry-wait", "load_timeout_s": "--load-timeout",
}


def flag_of(setting: str) -> str:
    """The command-line flag of a setting named below the CLI (``skip_overlong`` -> ``--skip-overlong``)."""
    return SETTING_FLAGS.get(setting) or "--" + setting.replace("_", "-")


def fail(message: str, exit_code: int = 2) -> None:
    """Print ``error: message`` to stderr (every URL in it public, no secret of the environment) and exit."""
    click.echo(f"error: {redact_text(message)}", err=True)
    sys.exit(exit_code)


class _Stdout:
    """Whether stdout's reader went away while a command went on writing its files (``score ... | head``)."""

    left = False


def _silence_stdout() -> None:
    os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second EPIPE at exit


def echo(message: str = "") -> None:
    """``click.echo`` for a command that writes files after printing: once the reader of stdout has gone
    (``| head``), the rest of the output is dropped but the command goes on, writes everything, and exits 141."""
    if _Stdout.left:
        return
    try:
        click.echo(message)
    except BrokenPipeError:
        _silence_stdout()
        _Stdout.left = True


def cli_errors(func: F) -> F:
    """Turn our errors, ValueError, every OSError, MemoryError and Ctrl-C into one ``error:`` line and an exit code."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            result = func(*args, **kwargs)
            if _Stdout.left:  # the command finished its work; its output's reader had gone
                sys.exit(EXIT_BROKEN_PIPE)
            return result
        except OneRulerError as exc:
            fail(exc.worded(flag_of), exc.exit_code)
        except ValueError as exc:
            fail(str(exc), 2)
        except BrokenPipeError:  # `oneruler list '*' | head`: the reader left; nothing to report
            _silence_stdout()
            sys.exit(EXIT_BROKEN_PIPE)
        except OSError as exc:  # PermissionError, FileNotFoundError, ENOSPC, EROFS, EFBIG, ...
            fail(describe_os_error(exc), 2)
        except MemoryError:
            fail(OUT_OF_MEMORY, 2)
        except KeyboardInterrupt:
            fail("interrupted", EXIT_INTERRUPTED)

    return wrapper  # type: ignore[return-value]
