"""Every call to the Hub, bounded: a deadline on each request, retries of what the Hub says is transient, one line
per failure, no secret in it.

``huggingface_hub`` is used as is, with its own client configured once (``configure``, through its public
``set_client_factory``): the same client with hooks that bound every request to a deadline
(``ONERULER_HUB_TIMEOUT`` seconds, 60 by default; the client's own default is none, so a Hub that stops
answering would hang a command until killed, and its own retry of a file's metadata waits 60 s a try),
cap every ``Retry-After`` the client honours at the cap ``run`` has (its own retries of downloads and LFS
uploads included), and end the repeated ``409 Conflict`` that ``HfApi.create_repo`` retries without end.
File downloads keep the client's shorter bounds (``HF_HUB_ETAG_TIMEOUT``, ``HF_HUB_DOWNLOAD_TIMEOUT``,
10 s each) and its own retries (``ONCE`` here: not retried twice), and the client's own log lines (its
retries name the URLs, pre-signed storage ones with their ``sig=``) pass through the one redaction
(``base/redact.py``).

``hub_call(what, call)`` runs one call: a 408, 429 or 5xx answer, a timeout or a connection cut is
retried with the policy ``run`` uses (``base/retry.py``: doubling waits, the Hub's ``Retry-After``
honoured up to the same cap), each wait said on stderr with its cause; anything else, or the last
failure, is a ``HubCallError`` whose message names what was asked and what the Hub did. A write
(``landed`` given) is retried only after ``landed()`` says the Hub did not apply it: a commit whose
answer was cut may have been applied, and doing it twice would duplicate it.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from typing import Any, Callable, TypeVar

from ..base.errors import OneRulerError, one_line
from ..base.redact import redact_text
from ..base.retry import RetryPolicy, retry_after_seconds

T = TypeVar("T")
TIMEOUT_ENV = "ONERULER_HUB_TIMEOUT"
DEFAULT_TIMEOUT_S = 60.0
HUB_RETRY = RetryPolicy(attempts=4, base_s=1.0, max_wait_s=120.0)  # run's cap on a wait, Retry-After included
ONCE = RetryPolicy(attempts=1)  # a call the client retries itself (a file download: five tries, waits capped by us)
TRANSIENT_STATUSES = (408, 429, 500, 502, 503, 504)
MAX_CONFLICTS = 5  # create_repo retries "another conflicting operation is in progress" forever; we stop here
_CONFIGURED = threading.Lock()
_state: dict[str, Any] = {}


class HubCallError(OneRulerError):
    """A Hub call that failed for good: ``status`` (None: no answer), ``cause`` the client's exception."""

    def __init__(self, what: str, cause: BaseException, tries: int = 1):
        gave_up = f" (gave up after {tries} tries)" if tries > 1 else ""
        super().__init__(f"{what}: {failure(cause)}{gave_up}")
        self.cause, self.status, self.tries = cause, status_of(cause), tries


class _Conflicts(Exception):
    """The Hub kept answering 409 Conflict to a repository's creation."""


def timeout_s() -> float:
    """The deadline of one request to the Hub's API, in seconds (``ONERULER_HUB_TIMEOUT``, 60 by default)."""
    try:
        value = float(os.environ.get(TIMEOUT_ENV) or DEFAULT_TIMEOUT_S)
    except ValueError:
        raise OneRulerError(f"{TIMEOUT_ENV}={os.environ[TIMEOUT_ENV]!r}: give a number of seconds, e.g. 60") from None
    if value <= 0:
        raise OneRulerError(f"{TIMEOUT_ENV} must be a positive number of seconds (got {value:g})")
    return value


def http_library():
    """The HTTP library huggingface_hub's client is made with (httpx in 1.x, httpx2 in 2.x)."""
    from huggingface_hub import get_session

    return sys.modules[type(get_session()).__module__.split(".")[0]]


ASKED_HEADER = "X-Oneruler-Retry-After-Asked"  # the Hub's own Retry-After, kept beside the capped one


def _bound_request(request) -> None:
    """A request hook: no deadline of any request longer than ours (huggingface_hub's own retry of a file's
    metadata waits 60 s per try, and its client none)."""
    limit = timeout_s()
    timeout = request.extensions.get("timeout")
    if isinstance(timeout, dict):
        request.extensions["timeout"] = {k: limit if v is None else min(v, limit) for k, v in timeout.items()}


def _bound_response(response) -> None:
    """A response hook: a Retry-After capped at ``HUB_RETRY.max_wait_s`` whoever honours it (huggingface_hub's own
    retries of downloads and LFS uploads too), and the Nth 409 in a row to a repository's creation ending the
    client's own endless loop."""
    asked = retry_after_seconds(response.headers)
    if asked is not None and asked > HUB_RETRY.max_wait_s:
        response.headers[ASKED_HEADER] = f"{asked:g}"
        response.headers["Retry-After"] = f"{HUB_RETRY.max_wait_s:g}"
    counts = _state.setdefault("conflicts", threading.local())
    if response.status_code == 409 and response.request.url.path.endswith("/api/repos/create"):
        counts.n = getattr(counts, "n", 0) + 1
        if counts.n >= MAX_CONFLICTS:
            counts.n = 0
            raise _Conflicts(f"the Hub answered 409 Conflict {MAX_CONFLICTS} times in a row to creating the repository")
    else:
        counts.n = 0


class _Redacting(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        record.msg, record.args = redact_text(record.getMessage()), ()
        return True


def configure() -> None:
    """Bound huggingface_hub's client (a timeout, the 409 guard) and redact its log lines; once per process."""
    from huggingface_hub import get_session, set_client_factory
    from huggingface_hub.utils import logging as hub_logging

    with _CONFIGURED:
        if _state.get("configured"):
            return
        library = http_library()
        hooks = {k: list(v) for k, v in get_session().event_hooks.items()}  # the client's own (its headers)
        hooks.setdefault("request", []).append(_bound_request)
        hooks.setdefault("response", []).append(_bound_response)
        limit = timeout_s()
        set_client_factory(lambda: library.Client(event_hooks=hooks, follow_redirects=True,
                                                  timeout=library.Timeout(limit, connect=min(limit, 10.0))))
        root = hub_logging.get_logger()
        for target in [root, *root.handlers]:
            target.addFilter(_Redacting())
        if not sys.stderr.isatty():  # bars on a terminal; elsewhere they are noise between the lines that say things
            from huggingface_hub.utils import disable_progress_bars

            disable_progress_bars()
        _state["configured"] = True


def answered(exc: BaseException | None) -> BaseException | None:
    """The exception along the causes that carries the Hub's answer (huggingface_hub's ``LocalEntryNotFoundError``
    wraps the failed request's), or None when no answer came."""
    while exc is not None:
        if isinstance(getattr(getattr(exc, "response", None), "status_code", None), int):
            return exc
        exc = exc.__cause__ or exc.__context__
    return None


def status_of(exc: BaseException | None) -> int | None:
    """The HTTP status of a failed call (looked for along the exception's causes), None when there was no answer."""
    found = answered(exc)
    return found.response.status_code if found is not None else None


def _network_error(exc: BaseException) -> BaseException | None:
    """The HTTP library's own exception along the causes (huggingface_hub's ``LocalEntryNotFoundError`` wraps the
    failed request; the library's wraps its transport's), or None."""
    library = http_library()
    network_errors = (library.TimeoutException, library.NetworkError, library.RemoteProtocolError, _Conflicts)
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, network_errors):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


def unanswered(exc: BaseException) -> bool:
    """No answer came: a timeout, a refused or cut connection (a write may or may not have been applied)."""
    root = _network_error(exc)
    return status_of(exc) is None and root is not None and not isinstance(root, _Conflicts)


def _off_the_hub(exc: BaseException) -> bool:
    """The request that got no answer went elsewhere than the Hub's API (an LFS upload to storage): huggingface_hub
    retried it already, five times."""
    from huggingface_hub import constants

    def origin(url) -> tuple:
        return url.scheme, url.host, url.port

    try:
        sent = _network_error(exc).request.url  # type: ignore[union-attr]
    except (AttributeError, RuntimeError):  # no request attached: count it as the Hub's
        return False
    return origin(sent) != origin(http_library().URL(constants.ENDPOINT))


def transient(exc: BaseException) -> bool:
    """What the Hub says is worth another try: 408, 429, 5xx, or no answer at all from the Hub (an upload to storage
    that failed is not retried again: the client retried it)."""
    return status_of(exc) in TRANSIENT_STATUSES or (unanswered(exc) and not _off_the_hub(exc))


def failure(exc: BaseException) -> str:
    """What the Hub did, in one line: its status and message, no answer in time, or a connection cut."""
    library = http_library()
    root = _network_error(exc)
    status = status_of(exc)
    if status is not None:
        carrier = answered(exc)
        response = carrier.response
        said = response.headers.get("X-Error-Message") or one_line(carrier)
        reason = getattr(response, "reason_phrase", "") or ""
        return redact_text(f"HTTP {status}{' ' + reason if reason else ''}: {said}")
    if isinstance(root, library.TimeoutException):
        return (f"the Hub did not answer in time (a request's deadline: {TIMEOUT_ENV}, {timeout_s():g} s; "
                f"files: HF_HUB_ETAG_TIMEOUT, HF_HUB_DOWNLOAD_TIMEOUT)")
    if isinstance(root, library.RemoteProtocolError) or isinstance(root, library.ReadError):
        return "the connection was cut before the Hub answered"
    if isinstance(root, library.NetworkError):
        return f"cannot reach the Hub ({one_line(root)})"
    if isinstance(root, _Conflicts):
        return str(root)
    return one_line(exc)


def _say(text: str) -> None:
    print(redact_text(text), file=sys.stderr, flush=True)


def hub_call(what: str, call: Callable[[], T], landed: Callable[[], T | None] | None = None,
             retry: RetryPolicy = HUB_RETRY, say: Callable[[str], None] = _say) -> T:
    """``call()``, retried while the Hub says the failure is transient; a write (``landed`` given) only after
    ``landed()`` finds it was not applied (what it returns, when it was, is the result). ``what`` names the call
    in the waits said and in the ``HubCallError`` of a failure."""
    configure()
    for attempt in range(retry.attempts):
        try:
            return call()
        except OneRulerError:
            raise
        except Exception as exc:  # noqa: BLE001 - the client's errors, classified below
            found = landed() if landed is not None and (transient(exc) or unanswered(exc)) else None
            if found is not None:
                say(f"{what}: {failure(exc)}; the Hub had applied it")
                return found
            if not transient(exc) or attempt + 1 == retry.attempts:
                raise HubCallError(what, exc, attempt + 1) from None
            headers = getattr(getattr(answered(exc), "response", None), "headers", None)
            asked = float(headers[ASKED_HEADER]) if headers is not None and ASKED_HEADER in headers else \
                retry_after_seconds(headers)
            wait = retry.wait(attempt, asked)
            capped = f" (the Hub asked for {asked:g} s; a wait is capped at {retry.max_wait_s:g} s)" \
                if asked is not None and asked > wait else ""
            say(f"{what}: {failure(exc)}; waiting {wait:g} s before try {attempt + 2} of {retry.attempts}{capped}")
            time.sleep(wait)
    raise AssertionError("unreachable")  # pragma: no cover
