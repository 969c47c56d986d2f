"""Calls to an OpenAI-compatible server with the official ``openai`` client (async).

One row = one request: the row's ``input`` as the single user message (``chat``, no system prompt:
the paper's setting) or as the raw prompt (``completions``). Retries are ours, not the client's
(``max_retries=0``), so every wait is bounded and visible: HTTP 408/429/5xx, connection errors,
timeouts and answers that are not answers (``answers.py``: a stream cut short, a body that is not
JSON) are retried with doubling waits (``Retry-After`` honoured, at most ``RetryPolicy.max_wait_s``;
a long wait is said on stderr), anything else fails the row at once. Answers are read from their
bytes (``answers.py``) and split from the reasoning: the server's ``reasoning_content`` (vLLM,
SGLang; ``reasoning`` in newer vLLM) or a leading ``<think>`` block (``split_reasoning``).

The base URL's credentials and query are handled by ``secrets.BaseAddress``: the query goes with
every request, the URL shown (``shown``) has neither, and error texts are scrubbed of every secret.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass
from typing import Any, Callable

from ...base.errors import OneRulerError, named_setting
from ...base.retry import RetryPolicy, retry_after_seconds
from ...scoring import split_reasoning
from ..settings import LOAD_TIMEOUT_S
from .answers import AnswerParts, BadAnswer, ModelList, StreamReader, answer_parts, model_list, parse_json
from .secrets import BaseAddress, redact

RETRY_STATUSES = (408, 429)
ERROR_CHARS = 500
REQUESTS_PER_CLIENT = 32  # requests in flight per HTTP client (its own connections; see ServerClient._lease)
CUT_BODY = re.compile(r"received (\d+) bytes, expected (\d+)")
LOUD_WAIT_S = 10.0  # a wait between tries this long (or one shortened by the cap) is said, at most once per 10 s


@dataclass(frozen=True)
class Completion:
    """The outcome of one row: the answer (or the error after the last try) and what it cost."""

    prediction: str | None
    finish_reason: str | None
    reasoning: str | None
    usage: dict | None
    latency_s: float | None
    error: str | None = None
    attempts: int = 1
    unreachable: bool = False  # the connection failed (refused, reset): the server may be down
    wait_s: float | None = None  # streamed: seconds until the server started answering (its queue included)
    notes: tuple[str, ...] = ()  # what the answer lacked or held that is not text (``answers.NO_FINISH``, ...)
    over_capacity: bool = False  # the server said its shared cache is full (``capacity.py``): resend, do not fail


class RetryableError(Exception):
    """A failure worth another try (``retry_after``: the server's Retry-After, in seconds)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class ServerHung(OneRulerError):
    """A server that took the connection but sent no answer to a request within its deadline."""


def split_answer(content: str | None, reasoning: str | None) -> tuple[str, str | None]:
    """(answer, reasoning): the server's reasoning field, plus a leading ``<think>`` block of the content."""
    thought, answer = split_reasoning(content or "")
    parts = [p for p in (reasoning, thought) if p]
    return answer, "\n".join(parts) if parts else None


class ServerClient:
    """An ``AsyncOpenAI`` client for one server and model, with our retry policy.

    ``say``: where a long wait is told (stderr); ``load_timeout_s``: how long a model may take to load
    when a dialect asks the server to load it (``--load-timeout``).
    """

    def __init__(self, base_url: str, model: str, api: str, api_key: str | None, retry: RetryPolicy,
                 stream: bool = False, say: Callable[[str], None] | None = None,
                 load_timeout_s: float = LOAD_TIMEOUT_S):
        import openai

        self.openai = openai
        self.model, self.api, self.retry, self.stream = model, api, retry, stream
        self.secret = api_key
        self.address = BaseAddress.parse(base_url)
        self.base_url = self.address.url  # what requests go to: no user info, no query
        self.shown = self.address.shown  # what messages say: credentials and query values as ***
        self.secrets = (api_key, *self.address.secrets())
        self.say = say or (lambda message: None)
        self.load_timeout_s = load_timeout_s
        self._said_wait = -LOUD_WAIT_S
        self._in_flight: dict[int, int] = {}
        self.client = self._new_http_client()  # also the one for /v1/models and /tokenize
        self._http_clients = [self.client]

    @property
    def root_url(self) -> str:
        """The server root (base URL without its ``/v1``): where vLLM and SGLang mount ``/tokenize``."""
        return self.base_url[: -len("/v1")] if self.base_url.endswith("/v1") else self.base_url

    def describe(self, exc: BaseException, slots: int | None = None) -> str:
        """A one-line error text, without any secret, at most ERROR_CHARS long; about the server, in words.

        ``slots``: the requests the server works on at once, when it said (a timeout's words name its queue).
        """
        words = self.in_words(exc, slots)
        if words is None:
            status = getattr(exc, "status_code", None)
            text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
            words = f"HTTP {status}: {re.sub(r'^Error code: [0-9]+ - ', '', text)}" if status else \
                f"{type(exc).__name__}: {text}"
        return redact(" ".join(words.split()), *self.secrets)[:ERROR_CHARS]

    def in_words(self, exc: BaseException, slots: int | None = None) -> str | None:
        """What went wrong with the server's answer, said about the server (None: nothing more to say)."""
        if isinstance(exc, BadAnswer):
            return str(exc)
        if isinstance(exc, (asyncio.TimeoutError, self.openai.APITimeoutError)):
            queue = f"; it works on {slots} request(s) at once and a request waiting in its queue counts too" \
                if slots else ""
            return (f"the server sent no complete answer within --timeout {self.retry.timeout_s:g} s (raise --timeout, "
                    f"or lower --concurrency{queue})")
        cause: BaseException | None = exc
        while cause is not None:  # httpx's RemoteProtocolError, wrapped by openai's APIConnectionError
            cut = CUT_BODY.search(str(cause))
            if cut:
                return f"the connection closed after {cut.group(1)} of {cut.group(2)} bytes of the server's answer"
            cause = cause.__cause__ or cause.__context__
        return None

    def classify(self, exc: BaseException, slots: int | None = None) -> BaseException:
        """A RetryableError for what deserves another try, else the exception unchanged."""
        if isinstance(exc, self.openai.APIStatusError):
            if exc.status_code in RETRY_STATUSES or exc.status_code >= 500:
                return RetryableError(self.describe(exc, slots), retry_after_seconds(exc.response.headers))
            return exc
        if isinstance(exc, (self.openai.APIConnectionError, asyncio.TimeoutError, BadAnswer, ValueError)) or \
                type(exc).__module__.split(".")[0] in ("httpx", "httpx2", "httpcore", "anyio"):
            return RetryableError(self.describe(exc, slots))
        return exc

    def unreachable(self, exc: BaseException) -> bool:
        """Whether a failure means the server could not be reached at all (refused, reset), not that it is slow."""
        return isinstance(exc, self.openai.APIConnectionError) and not isinstance(exc, self.openai.APITimeoutError)

    async def complete(self, prompt: str, kwargs: dict[str, Any], failover: bool = False,
                       slots: int | None = None, capacity: str | None = None) -> Completion:
        """One row, tried up to ``retry.attempts`` times; a failure comes back as a Completion with ``error``.

        ``failover``: other servers can take the row, so a connection that fails outright is not
        retried here but returned at once (``unreachable``). ``slots``: as for ``describe``.
        ``capacity``: the text of the server's answer when its shared cache is full; such an answer
        comes back at once, ``over_capacity`` (the sender resends it with fewer in flight).
        Whatever the server answers, this returns: nothing it sends can fail another row.
        """
        for attempt in range(self.retry.attempts):
            started = time.monotonic()
            try:
                parts, first_byte = await asyncio.wait_for(self._once(prompt, kwargs), self.retry.timeout_s)
                answer, reasoning = split_answer(parts.content, parts.reasoning)
            except Exception as exc:  # noqa: BLE001 - every failure is classified, none escapes
                why = self.classify(exc, slots)
                said = self.describe(exc, slots)
                if capacity and capacity in said:
                    return Completion(None, None, None, None, None, said, attempt + 1, over_capacity=True)
                if failover and self.unreachable(exc):
                    return Completion(None, None, None, None, None, said, attempt + 1, unreachable=True)
                if not isinstance(why, RetryableError):
                    return Completion(None, None, None, None, None, said, attempt + 1)
                if attempt + 1 == self.retry.attempts:
                    return Completion(None, None, None, None, None, f"{why} (gave up after {self.retry.attempts} tries)",
                                      attempt + 1, unreachable=self.unreachable(exc))
                await asyncio.sleep(self._wait(attempt, why))
                continue
            # streamed, the answer starts when the server takes the request: its queue is not the row's latency
            begun = first_byte if first_byte is not None else started
            wait = round(first_byte - started, 3) if first_byte is not None else None
            return Completion(answer, parts.finish_reason, reasoning, parts.usage, round(time.monotonic() - begun, 3),
                              None, attempt + 1, wait_s=wait, notes=parts.notes)
        raise AssertionError("unreachable")  # pragma: no cover

    def _wait(self, attempt: int, why: RetryableError) -> float:
        """Seconds to wait before the next try; a long one (or one the cap shortened) is said on stderr."""
        wait = self.retry.wait(attempt, why.retry_after)
        capped = why.retry_after is not None and why.retry_after > wait
        now = time.monotonic()
        if (capped or wait >= LOUD_WAIT_S) and now - self._said_wait >= LOUD_WAIT_S:
            self._said_wait = now
            reason = (f"the server asked for {why.retry_after:g} s (Retry-After) and --max-retry-wait caps a wait at "
                      f"{self.retry.max_wait_s:g} s" if capped else f"after: {why}")
            self.say(f"waiting {wait:g} s before another try at {self.shown} ({reason})")
        return wait

    def _lease(self):
        """The HTTP client with the fewest requests in flight; a new one once all hold REQUESTS_PER_CLIENT.

        httpcore looks over every connection of a client for every request it places (quadratic in the
        requests in flight): 256 on one client cost ~3 ms of CPU per request, on clients of 32 a fraction.
        """
        http = min(self._http_clients, key=lambda c: self._in_flight[id(c)])
        if self._in_flight[id(http)] >= REQUESTS_PER_CLIENT:
            http = self._new_http_client()
            self._http_clients.append(http)
        self._in_flight[id(http)] = self._in_flight.get(id(http), 0) + 1
        return http

    def _new_http_client(self):
        # local servers need no key; the client insists on one, and "EMPTY" is vLLM's convention
        client = self.openai.AsyncOpenAI(api_key=self.secret or "EMPTY", base_url=self.base_url, max_retries=0,
                                         timeout=self.retry.timeout_s, default_query=dict(self.address.query) or None,
                                         default_headers=self.address.headers(self.secret) or None)
        self._in_flight[id(client)] = 0
        return client

    async def _once(self, prompt: str, kwargs: dict[str, Any]) -> tuple[AnswerParts, float | None]:
        http = self._lease()
        try:
            if self.api == "chat":
                resource = http.chat.completions
                args = dict(model=self.model, messages=[{"role": "user", "content": prompt}], **kwargs)
            else:
                resource = http.completions
                args = dict(model=self.model, prompt=prompt, **kwargs)
            if self.stream:
                return await self._streamed(resource, args)
            raw = await resource.with_raw_response.create(**args)
            response = raw.http_response
            return answer_parts(parse_json(response.content, content_type=response.headers.get("content-type")),
                                self.api), None
        finally:
            self._in_flight[id(http)] -= 1

    async def _streamed(self, resource, args: dict[str, Any]) -> tuple[AnswerParts, float | None]:
        reader = StreamReader(self.api)
        async with resource.with_streaming_response.create(stream=True, stream_options={"include_usage": True},
                                                           **args) as response:
            first_byte = time.monotonic()  # the headers: llama.cpp sends them when a slot takes the request
            async for data in response.iter_bytes():
                reader.feed(data)
        reader.close()
        return reader.parts(), first_byte

    async def served_models(self) -> ModelList:
        """``GET /v1/models``: the model cards as dicts (``id``, ``owned_by`` and what else a server adds, e.g.
        vLLM's ``max_model_len``), what is not a card, or why there is no list. HTTP 401 is an error."""
        try:
            raw = await asyncio.wait_for(self.client.models.with_raw_response.list(), self.retry.timeout_s)
        except (asyncio.TimeoutError, self.openai.APITimeoutError):
            raise self.hung("GET /v1/models", self.retry.timeout_s, "timeout_s",
                            "if it is still loading the model, wait until it answers and rerun") from None
        except self.openai.APIStatusError as exc:
            if exc.status_code == 401:
                raise self.key_refused() from None
            return ModelList(None, self.describe(exc))
        response = raw.http_response
        try:
            return model_list(parse_json(response.content, "its answer", response.headers.get("content-type")))
        except BadAnswer as exc:
            return ModelList(None, redact(str(exc), *self.secrets))

    def key_refused(self) -> OneRulerError:
        """The error of a server that answers HTTP 401: the key is wrong (never shown)."""
        return OneRulerError(f"{self.shown}: the server refused the API key (HTTP 401); "
                             f"set OPENAI_API_KEY to a key it accepts")

    def hung(self, request: str, seconds: float, setting: str | None, hint: str) -> ServerHung:
        """The error of a request the server took and never answered: what, how long (``setting``: the setting that
        sets the deadline, ``timeout_s`` or ``load_timeout_s``, if one does), what to try."""
        named = named_setting(setting) if setting else None
        bound = f" ({named})" if named else ""
        other = f"raise {named} or restart the server" if named else "restart the server"
        return ServerHung(f"{self.shown}: {request} did not answer within {seconds:g} s{bound}; the server took the "
                          f"connection but sent nothing back. {hint[:1].upper()}{hint[1:]}; otherwise {other}")

    async def root_json(self, path: str, body: dict | None = None, timeout: float | None = None) -> Any:
        """``GET`` (no ``body``) or ``POST`` ``root_url + path`` as parsed JSON, without our retries (``timeout``: the
        request's own): the openai client's errors and a ``BadAnswer`` propagate (``probe.ServerProbe`` words them)."""
        options: Any = {"timeout": timeout} if timeout else {}
        if body is None:
            raw = await self.client.get(self.root_url + path, cast_to=bytes, options=options)
        else:
            raw = await self.client.post(self.root_url + path, body=body, cast_to=bytes, options=options)
        return parse_json(raw, "its answer")

    async def close(self) -> None:
        """Close the HTTP connections."""
        for http in self._http_clients:
            await http.close()
