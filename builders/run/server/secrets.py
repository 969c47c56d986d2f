"""Keeping credentials out of what a run says and writes, and sending them the way the server expects.

A base URL may carry credentials: user info (``http://user:password@host/v1``, a gateway's Basic
credential) and query values (``?token=...``, ``?api-version=...``). ``BaseAddress`` splits it into
what the client joins endpoint paths to (scheme, host, port, path), the query (sent with every
request, endpoint paths and dialect probes included) and the user info. ``public_url`` (``base/redact.py``,
the one redaction every command uses) is the one way a URL is shown or stored: user info and every query
value become ``***``. ``redact`` takes every secret out of a text a server sent back (the API key, the password, the Basic credential as
sent, query values).

Which credential is sent: an ``Authorization`` header holds one. Given a URL with user info, httpx
builds a ``Basic`` header from it that replaces the ``Bearer`` key the ``openai`` client sets, so the
key was silently dropped; the client is now given the URL without user info. With ``OPENAI_API_KEY``
set, its key is sent (``Bearer``, what OpenAI-compatible servers check) and the URL's user info is
not (a warning says so); without a key, the URL's user info is sent as ``Basic``.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, unquote, urlsplit, urlunsplit

from ...base.errors import SettingError
from ...base.redact import MIN_QUERY_SECRET, host_of, public_url, redact  # noqa: F401 - public_url, redact: re-exported

@dataclass(frozen=True)
class BaseAddress:
    """A base URL split into what is sent where: ``url`` (no user info, query or fragment), ``query``, user info."""

    url: str
    query: tuple[tuple[str, str], ...] = ()
    username: str | None = None
    password: str | None = None
    shown: str = ""  # the URL as it may be shown (``public_url``)

    @classmethod
    def parse(cls, given: str) -> "BaseAddress":
        """The parts of a base URL as given (``--base-url``); anything but an http(s) URL with a host is an error."""
        shown = public_url(given.strip())
        try:
            parts = urlsplit(given.strip())
            parts.port  # noqa: B018 - raises for a port that is not a number
        except ValueError as exc:
            raise SettingError("base_urls", f"{shown} is not a URL ({exc})") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise SettingError("base_urls", f"{shown} is not an http:// or https:// URL with a host; give one such as "
                                            f"http://localhost:8000/v1")
        url = urlunsplit((parts.scheme, host_of(given.strip()), parts.path.rstrip("/"), "", ""))
        user = unquote(parts.username) if parts.username is not None else None
        password = unquote(parts.password) if parts.password is not None else None
        return cls(url, tuple(parse_qsl(parts.query, keep_blank_values=True)), user, password, shown)

    @property
    def has_user_info(self) -> bool:
        """Whether the URL carries a user name or password."""
        return bool(self.username or self.password)

    @property
    def basic(self) -> str | None:
        """The ``Authorization`` value of the user info (``Basic`` + base64 of ``user:password``); None without one."""
        if not self.has_user_info:
            return None
        return "Basic " + base64.b64encode(f"{self.username or ''}:{self.password or ''}".encode()).decode()

    def headers(self, api_key: str | None) -> dict[str, str]:
        """Headers to send besides the client's own: the Basic credential when there is no API key to send."""
        return {"Authorization": self.basic} if self.basic and not api_key else {}

    def secrets(self) -> tuple[str, ...]:
        """What must never be shown: the password, ``user:password``, the Basic credential, the query values."""
        said: list[str] = []
        if self.has_user_info:
            pair = f"{self.username or ''}:{self.password or ''}"
            said += [self.password or "", pair, (self.basic or "")[len("Basic "):], quote(self.password or "", safe="")]
        said += [value for _, value in self.query if len(value) >= MIN_QUERY_SECRET]
        said += [quote(value, safe="") for _, value in self.query if len(value) >= MIN_QUERY_SECRET]
        return tuple(s for s in said if s)

    def unsent_user_info(self, api_key: str | None) -> str | None:
        """The warning of a URL whose user info is not sent because the API key is (None: nothing unsent)."""
        if not (self.has_user_info and api_key):
            return None
        return (f"{self.shown}: the user name and password in the URL are not sent: OPENAI_API_KEY is, as a Bearer "
                f"key (one Authorization header holds one credential). To authenticate with the URL's user info "
                f"(Basic), unset OPENAI_API_KEY")
