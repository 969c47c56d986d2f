"""Exceptions with a meaning for the command line (exit codes) and a shared CLI error handler."""

from __future__ import annotations

import functools
import sys
from typing import Callable, TypeVar

import click

F = TypeVar("F", bound=Callable)


class OneRulerError(Exception):
    """Base class: a clear message naming the thing at fault. Exit code 2 (bad input)."""

    exit_code = 2


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


def cli_errors(func: F) -> F:
    """Turn OneRulerError/ValueError into 'error: ...' on stderr and a meaningful exit code."""

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except OneRulerError as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(exc.exit_code)
        except (ValueError, FileNotFoundError) as exc:
            click.echo(f"error: {exc}", err=True)
            sys.exit(2)

    return wrapper  # type: ignore[return-value]
