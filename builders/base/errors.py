"""Exceptions with a meaning for the command line: each carries its exit code.

No dependency: every layer may raise these; only ``builders.cli`` turns them into an ``error:`` line.
"""

from __future__ import annotations


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


def problems_error(problems: list[str], what: str, shown: int = 20) -> OneRulerError:
    """One error listing the first ``shown`` of several problems (and how many more there are)."""
    listed = "\n  ".join(problems[:shown])
    more = f"\n  ... and {len(problems) - shown} more" if len(problems) > shown else ""
    return OneRulerError(f"{len(problems)} {what}:\n  {listed}{more}")
