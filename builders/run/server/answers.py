"""What a server answered, read from its bytes: a whole answer (JSON), a streamed one (server-sent events),
or a JSON endpoint's answer; every shape that is not an answer is a ``BadAnswer`` in words.

An answer's text is its message ``content`` (chat) or ``text`` (completions): a string, or a list of
parts whose text parts are joined (parts that are not text are left out, and a note says so). The
reasoning is the server's ``reasoning_content`` (vLLM, SGLang; ``reasoning`` in newer vLLM, Ollama).

A streamed answer counts only once the stream ended properly: a ``finish_reason`` was sent, or
``data: [DONE]`` (for a server that sends no finish reason). What servers send (read from their code):
vLLM, SGLang, TGI and Ollama a last chunk with ``finish_reason``, a usage chunk, then ``[DONE]`` (vLLM,
SGLang and TGI also after an error event); llama.cpp's server a last chunk with ``finish_reason``,
then ``[DONE]`` on its OpenAI endpoints (builds before 2025 send no ``[DONE]``), and no ``[DONE]`` after
an error event. A stream that closes before either, or that carries an error event, is a failure.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

REASONING_FIELDS = ("reasoning_content", "reasoning")
NO_FINISH = "answered without a finish_reason: recorded with finish_reason null (whether max tokens cut it is unknown)"
NOT_TEXT = "answered with parts that are not text: left out of the prediction"
ODD_FINISH = "answered with a finish_reason that is not a string: recorded as null"
SHOWN_CHARS = 40


class BadAnswer(Exception):
    """A server answer that is not one (its shape, its encoding, a stream cut short), said in words."""


def _kind(value: Any) -> str:
    """The JSON kind of a value, in words."""
    if value is None:
        return "null"
    return {bool: "true/false", int: "a number", float: "a number", str: "a string", list: "a list",
            dict: "an object"}.get(type(value), type(value).__name__)


def parse_json(raw: bytes, what: str = "the server's answer", content_type: str | None = None) -> Any:
    """``raw`` as JSON; a BadAnswer saying why it is not (not UTF-8, not JSON: what it begins with)."""
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadAnswer(f"{what} is not UTF-8 (byte {exc.start} is {raw[exc.start:exc.start + 1]!r})") from None
    try:
        return json.loads(text)
    except ValueError as exc:
        start = text.lstrip()[:1]
        if start and start not in "{[\"-0123456789tfn":  # not even the start of JSON: an HTML page, plain text
            kind = f"Content-Type {content_type}; " if content_type else ""
            raise BadAnswer(f"{what} is not JSON ({kind}it begins {text.strip()[:SHOWN_CHARS]!r})") from None
        msg, pos = (exc.msg, exc.pos) if isinstance(exc, json.JSONDecodeError) else (str(exc), 0)
        raise BadAnswer(f"{what} is not valid JSON ({msg} at character {pos})") from None


@dataclass(frozen=True)
class AnswerParts:
    """One answer: its text, reasoning, finish reason, usage, and notes on what was missing or left out."""

    content: str
    reasoning: str | None
    finish_reason: str | None
    usage: dict | None
    notes: tuple[str, ...] = ()


def text_of(value: Any, where: str, what: str = "the server's answer") -> tuple[str, tuple[str, ...]]:
    """(text, notes) of a content value: a string, null, or a list of parts (text parts joined, others noted)."""
    if value is None:
        return "", ()
    if isinstance(value, str):
        return value, ()
    if not isinstance(value, list):
        raise BadAnswer(f"{what} has a {where} that is {_kind(value)}, not text")
    texts, other = [], 0
    for part in value:
        if isinstance(part, str):
            texts.append(part)
        elif isinstance(part, dict) and part.get("type", "text") == "text" and isinstance(part.get("text"), str):
            texts.append(part["text"])
        else:
            other += 1
    return "".join(texts), (NOT_TEXT,) if other else ()


def reasoning_of(obj: dict) -> str | None:
    """The reasoning text a server adds to a message or delta (fields outside OpenAI's schema)."""
    for name in REASONING_FIELDS:
        value = obj.get(name)
        if isinstance(value, str):
            return value
    return None


def finish_of(value: Any) -> tuple[str | None, tuple[str, ...]]:
    """(finish reason, notes): a non-empty string, else None (TGI sends "" until the last chunk)."""
    if isinstance(value, str):
        return value or None, ()
    return None, (() if value is None else (ODD_FINISH,))


def usage_of(value: Any) -> dict | None:
    """``prompt_tokens``, ``completion_tokens``, ``reasoning_tokens`` of a usage object (None: no usage object)."""
    if not isinstance(value, dict):
        return None

    def count(obj: Any, name: str) -> int | None:
        n = obj.get(name) if isinstance(obj, dict) else None
        return n if isinstance(n, int) and not isinstance(n, bool) else None

    return {"prompt_tokens": count(value, "prompt_tokens"), "completion_tokens": count(value, "completion_tokens"),
            "reasoning_tokens": count(value.get("completion_tokens_details"), "reasoning_tokens")}


def _first_choice(body: Any, what: str) -> dict:
    if not isinstance(body, dict):
        raise BadAnswer(f"{what} is {_kind(body)}, not an object")
    choices = body.get("choices")
    if not isinstance(choices, list) or not choices:
        raise BadAnswer(f"{what} has no choices")
    if not isinstance(choices[0], dict):
        raise BadAnswer(f"{what} has a choice that is {_kind(choices[0])}, not an object")
    return choices[0]


def answer_parts(body: Any, api: str, what: str = "the server's answer") -> AnswerParts:
    """The answer of a parsed, non-streamed chat or completions response (a BadAnswer if it holds none)."""
    choice = _first_choice(body, what)
    if api == "chat":
        message = choice.get("message")
        if not isinstance(message, dict):
            raise BadAnswer(f"{what} has a choice without a message")
        text, notes = text_of(message.get("content"), "message content", what)
        reasoning = reasoning_of(message)
    else:
        text, notes = text_of(choice.get("text"), "text", what)
        reasoning = None
    finish, odd = finish_of(choice.get("finish_reason"))
    notes += odd + ((NO_FINISH,) if finish is None and not odd else ())
    return AnswerParts(text, reasoning, finish, usage_of(body.get("usage")), tuple(dict.fromkeys(notes)))


class StreamReader:
    """A streamed answer, fed line by line (server-sent events): its parts once it ended properly."""

    def __init__(self, api: str):
        self.api = api
        self.chunks = 0
        self.done = False  # ``data: [DONE]`` was read
        self.content: list[str] = []
        self.reasoning: list[str] = []
        self.finish: str | None = None
        self.usage: dict | None = None
        self.notes: list[str] = []
        self._data: list[str] = []
        self._pending = b""

    def feed(self, data: bytes) -> None:
        """Bytes as they arrive; every complete line is read."""
        lines = (self._pending + data).split(b"\n")
        self._pending = lines.pop()
        for line in lines:
            self._line(line.rstrip(b"\r"))

    def _line(self, raw: bytes) -> None:
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise BadAnswer(f"chunk {self.chunks + 1} of the stream is not UTF-8 (byte {exc.start} of its line is "
                            f"{raw[exc.start:exc.start + 1]!r})") from None
        if not line:  # an event ends at a blank line
            if self._data:
                self._event("\n".join(self._data))
                self._data = []
        elif line.startswith("data:"):
            self._data.append(line[5:].removeprefix(" "))
        # other fields (event:, id:, retry:) and comments (":", keep-alive pings) carry nothing of the answer

    def _event(self, data: str) -> None:
        if data.strip() == "[DONE]":
            self.done = True
            return
        self.chunks += 1
        chunk = parse_json(data.encode("utf-8"), f"chunk {self.chunks} of the stream")
        if not isinstance(chunk, dict):
            raise BadAnswer(f"chunk {self.chunks} of the stream is {_kind(chunk)}, not an object")
        error = chunk.get("error") or (chunk if chunk.get("object") == "error" else None)
        if error:
            said = error.get("message") if isinstance(error, dict) else error
            raise BadAnswer(f"the server reported an error in the stream after {self.chunks - 1} chunk(s): "
                            f"{' '.join(str(said).split())}")
        if chunk.get("usage") is not None:
            self.usage = usage_of(chunk["usage"])
        choices = chunk.get("choices")
        if choices is None:
            return
        if not isinstance(choices, list):
            raise BadAnswer(f"chunk {self.chunks} of the stream has choices that are {_kind(choices)}, not a list")
        for choice in choices:
            self._choice(choice)

    def _choice(self, choice: Any) -> None:
        if not isinstance(choice, dict):
            raise BadAnswer(f"chunk {self.chunks} of the stream has a choice that is {_kind(choice)}, not an object")
        part = (choice.get("delta") or choice.get("message") or {}) if self.api == "chat" else choice
        if not isinstance(part, dict):
            raise BadAnswer(f"chunk {self.chunks} of the stream has a delta that is {_kind(part)}, not an object")
        text, notes = text_of(part.get("content") if self.api == "chat" else part.get("text"), "content")
        self.content.append(text)
        self.reasoning.append((reasoning_of(part) if self.api == "chat" else None) or "")
        finish, odd = finish_of(choice.get("finish_reason"))
        self.finish = finish or self.finish
        self.notes += [*notes, *odd]

    def close(self) -> None:
        """The stream has closed: a last line without its newline is read; an event without its blank line
        is dropped (it may be cut), unless it is ``[DONE]``."""
        if self._pending:
            self._line(self._pending.rstrip(b"\r"))
            self._pending = b""
        if [d.strip() for d in self._data] == ["[DONE]"]:
            self.done = True
        self._data = []

    def parts(self) -> AnswerParts:
        """The answer, once the stream has closed; a BadAnswer if it closed before the answer ended."""
        if self.finish is None and not self.done:
            raise BadAnswer(f"the stream closed after {self.chunks} chunk(s), before the answer ended (no "
                            f"finish_reason and no [DONE])")
        notes = self.notes + ([NO_FINISH] if self.finish is None else [])
        return AnswerParts("".join(self.content), "".join(self.reasoning) or None, self.finish, self.usage,
                           tuple(dict.fromkeys(notes)))


@dataclass(frozen=True)
class ModelList:
    """``GET /v1/models``: the model cards (None: no list, ``problem`` says why) and entries that are not cards."""

    cards: list[dict] | None
    problem: str | None = None
    odd: tuple[str, ...] = ()


def model_list(body: Any) -> ModelList:
    """The cards of a parsed model list: entries that are objects with a string ``id``; the others named."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list):
        return ModelList(None, f"its answer is {_kind(body)} without a 'data' list" if not isinstance(body, dict)
                         else "its answer has no 'data' list")
    cards, odd = [], []
    for n, entry in enumerate(data, 1):
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            cards.append(entry)
        elif isinstance(entry, dict):
            odd.append(f"entry {n} has no string 'id'")
        else:
            odd.append(f"entry {n} is {_kind(entry)}")
    return ModelList(cards, None, tuple(odd))
