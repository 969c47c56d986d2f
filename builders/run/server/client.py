"""Calls to an OpenAI-compatible server with the official ``openai`` client (async).

One row = one request: the row's ``input`` as the single user message (``chat``, no system prompt:
the paper's setting) or as the raw prompt (``completions``). Retries are ours, not the client's
(``max_retries=0``), so every wait is bounded and visible: HTTP 408/429/5xx, connection errors
and timeouts are retried with doubling waits (``Retry-After`` honoured), anything else fails the
row at once. The answer is split from the reasoning: the server's ``reasoning_content`` (vLLM,
SGLang; ``reasoning`` in newer vLLM) or a leading ``<think>`` block (``split_reasoning``).
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import re
import time
from dataclasses import dataclass
from typing import Any

from ...base.errors import OneRulerError
from ...scoring import split_reasoning
from ..options import RetryPolicy
from .secrets import redact

RETRY_STATUSES = (408, 429)
ERROR_CHARS = 500
POOL_REQUESTS = 32  # requests in flight per connection pool (see ServerClient._lease)
REASONING_FIELDS = ("reasoning_content", "reasoning")
CUT_BODY = re.compile(r"received (\d+) bytes, expected (\d+)")


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


class RetryableError(Exception):
    """A failure worth another try (``retry_after``: the server's Retry-After, in seconds)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


class BadAnswer(Exception):
    """A server answer without the parts every OpenAI-compatible answer has."""


def split_answer(content: str | None, reasoning: str | None) -> tuple[str, str | None]:
    """(answer, reasoning): the server's reasoning field, plus a leading ``<think>`` block of the content."""
    thought, answer = split_reasoning(content or "")
    parts = [p for p in (reasoning, thought) if p]
    return answer, "\n".join(parts) if parts else None


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


def _usage(usage: Any) -> dict | None:
    if usage is None:
        return None
    details = getattr(usage, "completion_tokens_details", None)
    return {"prompt_tokens": usage.prompt_tokens, "completion_tokens": usage.completion_tokens,
            "reasoning_tokens": getattr(details, "reasoning_tokens", None) if details else None}


def _extra(obj: Any) -> str | None:
    """The reasoning text a server adds to a message or delta (fields outside OpenAI's schema)."""
    for name in REASONING_FIELDS:
        value = getattr(obj, name, None)
        if isinstance(value, str):
            return value
    return None


def response_parts(response: Any, api: str) -> tuple[str | None, str | None, str | None, dict | None]:
    """(content, reasoning, finish_reason, usage) of a non-streamed chat or completions response object."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise BadAnswer("the server's answer has no choices")
    choice = choices[0]
    if api == "chat" and getattr(choice, "message", None) is None:
        raise BadAnswer("the server's answer has a choice without a message")
    if api == "chat":
        return choice.message.content, _extra(choice.message), choice.finish_reason, _usage(response.usage)
    return choice.text, None, choice.finish_reason, _usage(response.usage)


class ServerClient:
    """An ``AsyncOpenAI`` client for one server and model, with our retry policy."""

    def __init__(self, base_url: str, model: str, api: str, api_key: str | None, retry: RetryPolicy,
                 stream: bool = False):
        import openai

        self.openai = openai
        self.model, self.api, self.retry, self.stream = model, api, retry, stream
        self.secret = api_key
        self.base_url = base_url.rstrip("/")
        # local servers need no key; the client insists on one, and "EMPTY" is vLLM's convention
        self._in_flight: dict[int, int] = {}
        self.client = self._new_pool()  # also the one for /v1/models and /tokenize
        self._pools = [self.client]

    @property
    def root_url(self) -> str:
        """The server root (base URL without its ``/v1``): where vLLM and SGLang mount ``/tokenize``."""
        return self.base_url[: -len("/v1")] if self.base_url.endswith("/v1") else self.base_url

    def describe(self, exc: BaseException, slots: int | None = None) -> str:
        """A one-line error text, without the API key, at most ERROR_CHARS long; about the server, in words.

        ``slots``: the requests the server works on at once, when it said (a timeout's words name its queue).
        """
        words = self.in_words(exc, slots)
        if words is not None:
            return redact(words, self.secret)[:ERROR_CHARS]
        status = getattr(exc, "status_code", None)
        text = getattr(exc, "message", None) or str(exc) or type(exc).__name__
        text = f"HTTP {status}: {re.sub(r'^Error code: [0-9]+ - ', '', text)}" if status else f"{type(exc).__name__}: {text}"
        return redact(" ".join(text.split()), self.secret)[:ERROR_CHARS]

    def in_words(self, exc: BaseException, slots: int | None = None) -> str | None:
        """What went wrong with the server's answer, said about the server (None: nothing more to say)."""
        if isinstance(exc, BadAnswer):
            return str(exc)
        if isinstance(exc, UnicodeDecodeError):
            return f"the server's answer is not UTF-8 (byte {exc.start} is {exc.object[exc.start:exc.start + 1]!r})"
        if isinstance(exc, json.JSONDecodeError):
            return f"the server's answer is not valid JSON ({exc.msg} at character {exc.pos})"
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
                       slots: int | None = None) -> Completion:
        """One row, tried up to ``retry.attempts`` times; a failure comes back as a Completion with ``error``.

        ``failover``: other servers can take the row, so a connection that fails outright is not
        retried here but returned at once (``unreachable``). ``slots``: as for ``describe``.
        """
        for attempt in range(self.retry.attempts):
            started = time.monotonic()
            try:
                outcome = await asyncio.wait_for(self._once(prompt, kwargs), self.retry.timeout_s)
            except Exception as exc:  # noqa: BLE001 - every failure is classified, none escapes
                why = self.classify(exc, slots)
                if failover and self.unreachable(exc):
                    return Completion(None, None, None, None, None, self.describe(exc, slots), attempt + 1,
                                      unreachable=True)
                if not isinstance(why, RetryableError):
                    return Completion(None, None, None, None, None, self.describe(exc, slots), attempt + 1)
                if attempt + 1 == self.retry.attempts:
                    return Completion(None, None, None, None, None, f"{why} (gave up after {self.retry.attempts} tries)",
                                      attempt + 1, unreachable=self.unreachable(exc))
                await asyncio.sleep(self.retry.wait(attempt, why.retry_after))
                continue
            content, reasoning, finish, usage, first_byte = outcome
            answer, reasoning = split_answer(content, reasoning)
            # streamed, the answer starts when the server takes the request: its queue is not the row's latency
            begun = first_byte if first_byte is not None else started
            wait = round(first_byte - started, 3) if first_byte is not None else None
            return Completion(answer, finish, reasoning, usage, round(time.monotonic() - begun, 3), None, attempt + 1,
                              wait_s=wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _lease(self):
        """The connection pool with the fewest requests in flight; a new one once all hold POOL_REQUESTS.

        httpcore's pool looks over every connection for every request it places (quadratic in the
        requests in flight): 256 in one pool cost ~3 ms of CPU per request, in pools of 32 a fraction.
        """
        pool = min(self._pools, key=lambda p: self._in_flight[id(p)])
        if self._in_flight[id(pool)] >= POOL_REQUESTS:
            pool = self._new_pool()
            self._pools.append(pool)
        self._in_flight[id(pool)] = self._in_flight.get(id(pool), 0) + 1
        return pool

    def _new_pool(self):
        client = self.openai.AsyncOpenAI(api_key=self.secret or "EMPTY", base_url=self.base_url, max_retries=0,
                                         timeout=self.retry.timeout_s)
        self._in_flight[id(client)] = 0
        return client

    async def _once(self, prompt: str, kwargs: dict[str, Any]):
        pool = self._lease()
        try:
            if self.api == "chat":
                call = pool.chat.completions.create
                args = dict(model=self.model, messages=[{"role": "user", "content": prompt}], **kwargs)
            else:
                call = pool.completions.create
                args = dict(model=self.model, prompt=prompt, **kwargs)
            if self.stream:
                return await self._streamed(call, args)
            return (*response_parts(await call(**args), self.api), None)
        finally:
            self._in_flight[id(pool)] -= 1

    async def _streamed(self, call, args: dict[str, Any]):
        stream = await call(stream=True, stream_options={"include_usage": True}, **args)
        first_byte = time.monotonic()  # the headers: llama.cpp sends them when a slot takes the request
        content: list[str] = []
        reasoning: list[str] = []
        finish = usage = None
        async for chunk in stream:
            if chunk.usage is not None:
                usage = _usage(chunk.usage)
            for choice in chunk.choices:
                part = choice.delta if self.api == "chat" else choice
                content.append((part.content if self.api == "chat" else part.text) or "")
                reasoning.append(_extra(part) or "")
                finish = choice.finish_reason or finish
        return "".join(content), "".join(reasoning) or None, finish, usage, first_byte

    async def served_models(self) -> list[dict] | None:
        """``GET /v1/models`` as dicts (``id``, ``owned_by`` and what else a server adds, e.g. vLLM's ``max_model_len``);
        None if the server has no such list."""
        try:
            page = await asyncio.wait_for(self.client.models.list(), self.retry.timeout_s)
        except self.openai.APIStatusError as exc:
            if exc.status_code == 401:
                raise self.key_refused() from None
            return None
        return [{"id": m.id, "owned_by": getattr(m, "owned_by", None), **(m.model_extra or {})} for m in page.data]

    def key_refused(self) -> OneRulerError:
        """The error of a server that answers HTTP 401: the key is wrong (never shown)."""
        return OneRulerError(f"{self.base_url}: the server refused the API key (HTTP 401); "
                             f"set OPENAI_API_KEY to a key it accepts")

    async def root_json(self, path: str, body: dict | None = None) -> Any:
        """``GET`` (no ``body``) or ``POST`` ``root_url + path`` as parsed JSON, without our retries or deadline:
        the openai client's errors propagate (``probe.ServerProbe`` words them)."""
        if body is None:
            return await self.client.get(self.root_url + path, cast_to=object)
        return await self.client.post(self.root_url + path, body=body, cast_to=object)

    async def close(self) -> None:
        """Close the HTTP connections."""
        for pool in self._pools:
            await pool.close()
