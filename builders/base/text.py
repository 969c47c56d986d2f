"""Words for counts in what the package prints and writes: ``plural``."""

from __future__ import annotations


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``1 config``, ``2 configs``, ``1,234 rows`` (``many``: the plural when it is not ``noun + "s"``)."""
    return f"{n:,} {noun if n == 1 else many or noun + 's'}"
