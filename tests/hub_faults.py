"""The faults the Hub stand-in (hub_server.py) plays, as a failing or hostile Hub would: what ``oneruler publish``,
``leaderboard`` and ``push`` must survive (docs/publishing.md, "When the Hub fails").

A ``Fault`` matches requests by origin (``hub`` or ``storage``), method and a regular expression searched in
the request's path with its query; it acts on the first ``times`` of them (None: every one), then is spent:

- ``status``: answer ``status`` (with ``Retry-After`` when given, and the Hub's ``X-Error-Message``) without
  doing anything, as the Hub's 429 or a 5xx from its front does;
- ``cut-before``: close the connection without doing anything and without an answer;
- ``cut-after``: do what was asked (a commit is applied, an upload stored), then close the connection
  without the answer: the client cannot know it happened;
- ``hang``: take the request and answer nothing until the stand-in stops (a Hub that stops answering);
- ``hang-after``: do what was asked, then answer nothing until the stand-in stops (the client is killed
  while it waits: ``kill -9`` once the commit was applied);
- ``delay``: wait ``seconds``, then answer normally.

``HubState.fault(...)`` adds one; ``HubState.faults`` lists them with how many requests each took
(``hits``), so that a test also checks that the fault was met.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ACTIONS = ("status", "cut-before", "cut-after", "hang", "hang-after", "delay")
AFTER = ("cut-after", "hang-after")  # the request is served first
HANG_S = 600  # a hung request is let go when the stand-in stops, at the latest after this


@dataclass
class Fault:
    """One fault: which requests it matches, what it does to them, and how many it took."""

    action: str
    path: str  # a regular expression searched in the request's path and query
    method: str = "*"
    origin: str = "hub"
    status: int = 500
    retry_after: str | None = None
    message: str = "Internal Error - We're working hard to fix this as soon as possible!"
    code: str | None = None  # X-Error-Code, as the Hub tags its 404s (EntryNotFound, RepoNotFound)
    in_header: bool = True  # the message also as X-Error-Message (one line); else in the JSON body only
    times: int | None = 1  # None: every matching request
    seconds: float = 0.0  # delay
    hits: int = 0

    def __post_init__(self) -> None:
        if self.action not in ACTIONS:
            raise ValueError(f"unknown fault action {self.action!r}; one of {ACTIONS}")

    def matches(self, origin: str, method: str, path: str) -> bool:
        """Whether this fault takes the request (and has not been spent)."""
        if self.times is not None and self.hits >= self.times:
            return False
        return origin == self.origin and self.method in ("*", method) and re.search(self.path, path) is not None

    def headers(self) -> dict[str, str]:
        """The headers of a ``status`` answer."""
        said = {"X-Error-Message": " ".join(self.message.split())} if self.in_header else {}
        return {**said, **({"Retry-After": self.retry_after} if self.retry_after else {}),
                **({"X-Error-Code": self.code} if self.code else {})}
