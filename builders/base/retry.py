"""Bounded retries of what a server says is transient: ``RetryPolicy`` (tries, doubling waits, the cap on any
wait, a server's ``Retry-After`` included) and ``retry_after_seconds`` (the header read).

``run`` retries its requests to a model server with it, ``publish``, ``leaderboard``, ``push``,
``score`` and ``show`` their calls to the Hub (``export/hub_calls.py``): one cap on Retry-After
(``max_wait_s``, 120 s by default, ``--max-retry-wait`` for ``run``) wherever a server asks us to wait.
"""

from __future__ import annotations

import email.utils
import time
from dataclasses import dataclass
from typing import Any

from .errors import SettingError


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries: ``attempts`` tries in all, waits doubling from ``base_s`` (or Retry-After), each capped at
    ``max_wait_s`` (``--max-retry-wait``; ``timeout_s``, ``--timeout``, bounds one try, not a wait)."""

    attempts: int = 6
    base_s: float = 1.0
    max_wait_s: float = 120.0
    timeout_s: float = 600.0

    def __post_init__(self) -> None:
        if self.attempts < 1:
            raise SettingError("max_retries", f"must be at least 0 (got {self.attempts - 1})")
        if self.timeout_s <= 0:
            raise SettingError("timeout_s", f"must be positive (got {self.timeout_s})")
        if self.base_s < 0:
            raise SettingError("base_s", f"must not be negative (got {self.base_s})")
        if self.max_wait_s < 0:
            raise SettingError("max_wait_s", f"must not be negative (got {self.max_wait_s:g})")

    def wait(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before try ``attempt + 1`` (0-based ``attempt`` just failed)."""
        if retry_after is not None and retry_after >= 0:
            return min(retry_after, self.max_wait_s)
        return min(self.base_s * 2 ** attempt, self.max_wait_s)


def retry_after_seconds(headers: Any) -> float | None:
    """``Retry-After`` (seconds or an HTTP date) or ``retry-after-ms`` of a response, in seconds."""
    if headers is None:
        return None
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return float(millis) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        parsed = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):  # neither seconds nor an HTTP date: fall back to our own backoff
        return None
    return max(0.0, parsed.timestamp() - time.time())
