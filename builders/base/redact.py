"""Keeping credentials out of what any command prints or writes: one redaction for every URL we show.

``public_url`` is the one way a URL is shown or stored: user info and every query value become
``***`` (a pre-signed storage URL's ``sig=``, a gateway's ``?token=``, ``https://user:password@host``).
``redact`` replaces given secrets in a text; ``redact_text`` does both to a whole text (every URL
in it made public, then the secrets replaced), and ``env_secrets`` lists what the environment
holds that must never be shown: the user info and query values of URL-valued variables
(``HF_ENDPOINT``, ``OPENAI_BASE_URL``) and the tokens (``HF_TOKEN``, ``OPENAI_API_KEY``). The
command line passes every ``error:`` line through ``redact_text``; ``run`` uses ``public_url`` and
``redact`` for its base URLs, ``publish``, ``leaderboard``, ``push``, ``show`` and ``score`` for the
Hub's.
"""

from __future__ import annotations

import os
import re
from urllib.parse import parse_qsl, quote, urlsplit, urlunsplit

HIDDEN = "***"
MIN_QUERY_SECRET = 4  # query values shorter than this are not scrubbed from texts (``v=1`` would garble every "1")
URL_VARIABLES = ("HF_ENDPOINT", "OPENAI_BASE_URL")
TOKEN_VARIABLES = ("HF_TOKEN", "HUGGING_FACE_HUB_TOKEN", "OPENAI_API_KEY")
MIN_TOKEN = 8  # a token shorter than this is not one (an empty or placeholder value would garble texts)
_URL = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s'\"<>`)\]]+")


def _host(parts) -> str:
    """``host[:port]`` of a split URL (IPv6 hosts bracketed); a port that is not a number is kept as written."""
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:  # not a number: shown as written, the client will say what is wrong with it
        return parts.netloc.rpartition("@")[2]
    return host + (f":{port}" if port else "")


def host_of(url: str) -> str:
    """``host[:port]`` of a URL, as shown (no user info)."""
    return _host(urlsplit(url))


def public_url(url: str) -> str:
    """``url`` as it may be shown or stored: user info and every query value as ``***``, no fragment."""
    try:
        parts = urlsplit(url)
    except ValueError:  # e.g. an unclosed IPv6 bracket: nothing of it is shown
        return "(a URL that cannot be read)"
    netloc = (f"{HIDDEN}@" if "@" in parts.netloc else "") + _host(parts)
    query = "&".join(f"{quote(name, safe='')}={HIDDEN}" for name, _ in parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit((parts.scheme, netloc, parts.path, query, ""))


def redact(text: str, *secrets: str | None) -> str:
    """``text`` with every occurrence of each secret replaced by ``***`` (longest first: one may contain another)."""
    for secret in sorted({s for s in secrets if s}, key=len, reverse=True):
        text = text.replace(secret, HIDDEN)
    return text


def url_secrets(url: str | None) -> tuple[str, ...]:
    """What a URL carries that must not be shown: its password, ``user:password``, query values (plain and quoted)."""
    if not url:
        return ()
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return (url,)
    said: list[str] = []
    if parts.password:
        said += [parts.password, f"{parts.username or ''}:{parts.password}", quote(parts.password, safe="")]
    values = [v for _, v in parse_qsl(parts.query, keep_blank_values=True) if len(v) >= MIN_QUERY_SECRET]
    return tuple(s for s in said + values + [quote(v, safe="") for v in values] if s)


def env_secrets() -> tuple[str, ...]:
    """Every secret the environment holds for the clients we run: URL credentials and tokens."""
    said = [s for name in URL_VARIABLES for s in url_secrets(os.environ.get(name))]
    said += [os.environ[name] for name in TOKEN_VARIABLES if len(os.environ.get(name, "")) >= MIN_TOKEN]
    return tuple(said)


def _public_in_text(match: re.Match) -> str:
    url = match.group(0)
    kept = url.rstrip(".,;:!?")  # punctuation after a URL is the sentence's
    return public_url(kept) + url[len(kept):]


def redact_text(text: str, *secrets: str | None) -> str:
    """``text`` with every URL in it made public (``public_url``) and every given or environment secret hidden."""
    return redact(_URL.sub(_public_in_text, text), *secrets, *env_secrets())
