"""Keeping credentials out of what a run says and writes: URLs without user, password or query, texts without the key."""

from __future__ import annotations

from urllib.parse import urlsplit, urlunsplit


def public_url(url: str) -> str:
    """A URL without user, password, query or fragment (where credentials hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced by ``***``."""
    return text.replace(secret, "***") if secret else text
