"""The one place where exceptions become an ``error:`` line on stderr and an exit code.

Exit codes: 0 success; 1 a check failed (integrity, verify, score thresholds); 2 bad input or
an environment problem (names, files, permissions, missing sources).
"""

from __future__ import annotations

import functools
import sys
from typing import Callable, TypeVar

import click

from ..base.errors import OneRulerError

F = TypeVar("F", bound=Callable)


def fail(message: str, exit_code: int = 2) -> None:
    """Print ``error: message`` to stderr and exit."""
    click.echo(f"error: {message}", err=True)
    sys.exit(exit_code)


def cli_errors(func: F) -> F:
    """Turn OneRulerError/ValueError/FileNotFoundError into 'error: ...' and a meaningful exit code."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except OneRulerError as exc:
            fail(str(exc), exc.exit_code)
        except (ValueError, FileNotFoundError) as exc:
            fail(str(exc), 2)

    return wrapper  # type: ignore[return-value]
