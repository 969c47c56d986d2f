"""A loopback stand-in for vLLM's OpenAI-compatible server (no GPU, no model weights here).

It stands in for ``vllm serve MODEL`` and speaks the same HTTP endpoints, with vLLM's field
names (``vllm/entrypoints/openai/protocol.py``):

- ``GET /v1/models``: ``{"object": "list", "data": [{"id", "object": "model", "owned_by": "vllm",
  "root", "max_model_len", ...}]}``
- ``POST /tokenize`` (at the server root, as vLLM and SGLang mount it): a ``TokenizeChatRequest``
  (``model``, ``messages``, ``add_generation_prompt``) or ``TokenizeCompletionRequest`` (``model``,
  ``prompt``, ``add_special_tokens``) → ``{"count", "max_model_len", "tokens"}``
- ``POST /v1/chat/completions`` and ``POST /v1/completions``, streaming (server-sent events,
  ``data: [DONE]``, a usage chunk with ``stream_options.include_usage``) and not; the message
  carries vLLM's ``reasoning_content``; ``finish_reason`` is ``length`` when ``max_tokens``
  (or ``max_completion_tokens``) cuts the reply, and a prompt + ``max_tokens`` over
  ``max_model_len`` is refused with HTTP 400 as vLLM does.
- An assistant prefill (a final assistant message): ``continue_final_message`` with
  ``add_generation_prompt`` left true (its default) is refused with HTTP 400 as vLLM refuses it, on
  the completions and on ``/tokenize``; the reply is the continuation alone (vLLM's ``echo`` is off).
  The row is told from the user message, whatever follows it.

The "model" is a script: a test sets the reply per row id (read from the prompt, see
:meth:`ServerState.identify`) and faults to return first (HTTP 429 with ``Retry-After``, 500, a
dropped connection, and the answers of a hostile server: ``Fault.shape``). Server-wide faults are
switches on :class:`ServerState`: ``models_fault`` (the model list's shapes), ``hang`` (paths that
never answer), ``query`` (a gateway that routes on its query string: 404 without it), ``basic`` (a
gateway's Basic credential), ``prompt_read`` (a server that reads a shorter prompt than was sent).
Tokens are counted with the real tiktoken cl100k_base, plus a fixed chat
template overhead, so the server's counts differ from the dataset's ``num_tokens`` as a real
server's do. Every request is logged (time, path, JSON body, headers). Threaded, bounded (body size,
socket timeouts), started and stopped by :func:`running_server`.
"""

from __future__ import annotations

import base64
import contextlib
import json
import re
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, Iterator

import batch_api
import tiktoken

MAX_BODY = 64 * 1024 * 1024
SOCKET_TIMEOUT_S = 30
HANG_S = 60  # a hung request is answered by a dropped connection after this long, or when the server stops
HTML = b"<!DOCTYPE html><html><head><title>Gateway</title></head><body>Welcome to the gateway</body></html>"
STREAM_SHAPES = ("role-only", "partial", "done-no-finish", "error-event")  # streamed answers that end wrong (or oddly)
ANSWER_SHAPES = ("no-finish", "parts", "html", "echo-auth")  # whole answers of odd shapes
CHAT_TEMPLATE_TOKENS = 7  # <|im_start|>user\n ... <|im_end|>\n<|im_start|>assistant\n
BOS_TOKENS = 1  # add_special_tokens=True on /v1/completions and /tokenize with a prompt
ROW_ID = re.compile(r"\brow ([\w.-]+/\d+)")


@dataclass
class Reply:
    """What the model answers: the content, and optionally reasoning (vLLM's ``reasoning_content``)."""

    content: str
    reasoning_content: str | None = None


@dataclass
class Fault:
    """A failure returned instead of an answer: an HTTP status (with headers), or a dropped connection (0);
    with ``body``, an HTTP 200 whose JSON body is those bytes (``cut``: the connection closes half-way).

    ``shape``: the answer, made odd. Streamed (``STREAM_SHAPES``): the role chunk then the connection
    closed (``role-only``), part of the content then closed (``partial``), every chunk and ``[DONE]``
    but no finish_reason (``done-no-finish``), an error event then ``[DONE]`` as vLLM and TGI send
    (``error-event``). Whole (``ANSWER_SHAPES``): no finish_reason (``no-finish``), the content as a list
    of parts with an image among them (``parts``), an HTML page with status 200 (``html``), an HTTP 400
    whose text echoes the Authorization header and the query (``echo-auth``, as some gateways do)."""

    status: int
    headers: dict = field(default_factory=dict)
    message: str = "injected fault"
    body: bytes | None = None
    cut: bool = False
    shape: str | None = None


@dataclass
class Logged:
    """One request as the server received it."""

    time: float
    method: str
    path: str
    body: dict | None
    headers: dict  # lower-case names
    row: str | None = None
    query: str = ""  # the query string the request came with (routes see the path without it)


class ServerState:
    """The served model, its scripted replies and faults, and the request log (shared by handler threads)."""

    def __init__(self, model: str = "test-model", max_model_len: int | None = 7990, api_key: str | None = None):
        self.model = model
        self.max_model_len = max_model_len
        self.api_key = api_key
        self.tokenize_enabled = True
        self.delay_s = 0.0
        self.replies: dict[str, Reply] = {}
        self.default_reply: Callable[[str | None], Reply] = lambda row: Reply("none")
        self.faults: dict[str, list[Fault]] = {}
        self.ids_by_prompt: dict[str, str] = {}
        self.log: list[Logged] = []
        self.lock = threading.Lock()
        self.encoding = tiktoken.get_encoding("cl100k_base")
        self.down = False  # True: every connection is dropped unanswered, as by a killed server
        self.models_fault: str | None = None  # GET /v1/models: "odd" entries, "500", "not-utf8", "html"
        self.models_body: bytes | None = None  # GET /v1/models answers these bytes (status 200), whatever they are
        self.hang: set[str] = set()  # paths whose requests are never answered (until the server stops)
        self.released = threading.Event()  # set when the server stops: hung requests end
        self.query: dict[str, str] | None = None  # a gateway's required query parameters (404 without them)
        self.basic: tuple[str, str] | None = None  # a gateway's Basic credential, accepted instead of the key
        self.prompt_read: int | None = None  # prompt tokens the server says it read, whatever was sent
        self.files: dict[str, bytes] = {}  # the Batch API's uploaded and result files
        self.batches: dict[str, dict] = {}

    def identify(self, prompt: str) -> str | None:
        """The row id of a prompt: registered prompts first, else a ``row <config>/<index>`` marker in it."""
        if prompt in self.ids_by_prompt:
            return self.ids_by_prompt[prompt]
        found = ROW_ID.search(prompt)
        return found.group(1) if found else None

    def requests(self, path: str) -> list[Logged]:
        """The logged requests to one path."""
        with self.lock:
            return [r for r in self.log if r.path == path]

    def count(self, text: str) -> int:
        """Tokens of a text (cl100k_base, no special tokens)."""
        return len(self.encoding.encode(text, disallowed_special=()))

    def prefill_error(self, body: dict) -> str | None:
        """vLLM's refusal of a chat request that asks to continue the final message and to open a new turn."""
        if body.get("continue_final_message") and body.get("add_generation_prompt", True):
            return "Cannot set both `continue_final_message` and `add_generation_prompt` to True."
        return None

    def shown(self, body: dict, reply: Reply) -> Reply:
        """The answer as the server returns it (vLLM: the model's reply; a server that repeats a prefill: after it)."""
        return reply

    def prompt_tokens(self, body: dict, chat: bool) -> int:
        """Tokens of a request's prompt as this server counts it (chat template or BOS included)."""
        if chat:
            return sum(self.count(m.get("content") or "") for m in body["messages"]) + CHAT_TEMPLATE_TOKENS
        return self.count(body["prompt"]) + (BOS_TOKENS if body.get("add_special_tokens", True) else 0)

    def next_fault(self, row: str | None) -> Fault | None:
        """The next scripted fault for a row (each is returned once)."""
        with self.lock:
            queue = self.faults.get(row or "")
            return queue.pop(0) if queue else None


def truncate(state: ServerState, reply: Reply, max_tokens: int, stop: list[str]) -> tuple[Reply, str, int]:
    """(reply as generated within max_tokens and stop strings, finish_reason, completion tokens)."""
    reasoning = reply.reasoning_content or ""
    content = reply.content
    for s in stop:
        if s and s in content:
            content = content[:content.index(s)]
    r_tokens = state.encoding.encode(reasoning, disallowed_special=())
    c_tokens = state.encoding.encode(content, disallowed_special=())
    if len(r_tokens) + len(c_tokens) <= max_tokens:
        return Reply(content, reply.reasoning_content), "stop", len(r_tokens) + len(c_tokens)
    if len(r_tokens) >= max_tokens:
        return Reply("", state.encoding.decode(r_tokens[:max_tokens])), "length", max_tokens
    kept = state.encoding.decode(c_tokens[: max_tokens - len(r_tokens)])
    return Reply(kept, reply.reasoning_content), "length", max_tokens


class Handler(BaseHTTPRequestHandler):
    """Routes the four endpoints; everything else is 404."""

    protocol_version = "HTTP/1.1"
    server: "Server"

    def log_message(self, format, *args):  # noqa: A002 - keep test output clean
        pass

    def setup(self):
        super().setup()
        self.request.settimeout(SOCKET_TIMEOUT_S)

    def parse_request(self) -> bool:
        """The request line and headers; ``path`` without its query, which is kept in ``query``. A request that
        lacks the gateway's query is refused here; one to a hung path waits here, and is never answered."""
        if not super().parse_request():
            return False
        self.path, _, self.query = self.path.partition("?")
        state = self.server.state
        given = dict(urllib.parse.parse_qsl(self.query))
        if state.query and any(given.get(k) != v for k, v in state.query.items()):
            self._record(None)
            self._error(404, f"no route {self.path} without the gateway's query")
            return False
        if self.path in state.hang:
            self._record(None)
            state.released.wait(HANG_S)
            self.close_connection = True
            return False
        return True

    # ------------------------------------------------------------------ plumbing

    def _json(self, status: int, obj, headers: dict | None = None) -> None:
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for k, v in (headers or {}).items():
            self.send_header(k, str(v))
        self.end_headers()
        self.wfile.write(data)

    def _raw(self, fault: Fault) -> None:
        """A 200 with the fault's body as JSON; ``cut``: Content-Length says twice as much and the connection closes."""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(fault.body) * (2 if fault.cut else 1)))
        self.end_headers()
        self.wfile.write(fault.body)
        self.wfile.flush()
        if fault.cut:
            self.close_connection = True
            self.request.shutdown(2)

    def _error(self, status: int, message: str, headers: dict | None = None) -> None:
        self._json(status, error_object(status, message), headers)

    def _drop(self) -> bool:
        """A server that is down drops the connection without answering (True: dropped)."""
        if not self.server.state.down:
            return False
        self.close_connection = True
        self.request.shutdown(2)
        return True

    def _body(self) -> dict | None:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise ValueError("request too large")
        raw = self.rfile.read(length) if length else b""
        return json.loads(raw) if raw else None

    def _authorized(self) -> bool:
        state = self.server.state
        given = self.headers.get("Authorization")
        basic = "Basic " + base64.b64encode(":".join(state.basic).encode()).decode() if state.basic else None
        if basic is not None and given == basic:
            return True
        return (state.api_key is None and basic is None) or given == f"Bearer {state.api_key}"

    def _record(self, body: dict | None, row: str | None = None) -> None:
        state = self.server.state
        with state.lock:
            state.log.append(Logged(time.monotonic(), self.command, self.path, body,
                                     {k.lower(): v for k, v in self.headers.items()}, row, self.query))

    # ------------------------------------------------------------------ endpoints

    def do_GET(self):
        if self._drop():
            return None
        self._record(None)
        if self.path.startswith(("/v1/batches/", "/v1/files/")):
            return batch_api.get(self)
        if not self._authorized():
            return self._error(401, "Unauthorized")
        if self.path != "/v1/models":
            return self._error(404, f"no route {self.path}")
        state = self.server.state
        card = {"id": state.model, "object": "model", "created": 0, "owned_by": "vllm", "root": state.model,
                "parent": None, "max_model_len": state.max_model_len, "permission": []}
        if state.max_model_len is None:
            del card["max_model_len"]
        self._models([card])

    def _models(self, cards: list) -> None:
        """``GET /v1/models`` with these cards, or as ``models_fault`` has it."""
        fault = self.server.state.models_fault
        if self.server.state.models_body is not None:
            return self._bytes(200, self.server.state.models_body, "application/json")
        if fault == "500":
            return self._error(500, "model registry unavailable")
        if fault in ("not-utf8", "html"):
            data = b'{"object": "list", "data": [{"id": "m\xff\xfe"}]}' if fault == "not-utf8" else HTML
            return self._bytes(200, data, "application/json" if fault == "not-utf8" else "text/html")
        self._json(200, {"object": "list", "data": [5, *cards, None] if fault == "odd" else cards})

    def _bytes(self, status: int, data: bytes, content_type: str) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        if self._drop():
            return None
        if self.path in ("/v1/files", "/v1/batches"):
            return batch_api.post(self)
        body = self._body()
        state = self.server.state
        if self.path == "/tokenize" and state.tokenize_enabled:
            self._record(body)
            refused = state.prefill_error(body) if "messages" in body else None
            return self._error(400, refused) if refused else self._tokenize(body)
        if self.path not in ("/v1/chat/completions", "/v1/completions"):
            self._record(body)
            return self._error(404, f"no route {self.path}")
        chat = self.path == "/v1/chat/completions"
        prompt = user_text(body) if chat else body["prompt"]
        row = state.identify(prompt)
        self._record(body, row)
        if not self._authorized():
            return self._error(401, "Unauthorized")
        if body.get("model") != state.model:
            return self._error(404, f"The model `{body.get('model')}` does not exist.")
        fault = state.next_fault(row)
        if fault is not None:
            if fault.status == 0:  # drop the connection without an answer
                self.close_connection = True
                self.request.shutdown(2)
                return None
            if fault.body is not None:
                return self._raw(fault)
            if fault.shape is not None:
                return self._shaped(fault.shape, body, chat, row)
            return self._error(fault.status, fault.message, fault.headers)
        if state.delay_s:
            time.sleep(state.delay_s)
        self._complete(body, chat, row)

    def _shaped(self, shape: str, body: dict, chat: bool, row: str | None) -> None:
        """The answer of a hostile server (``Fault.shape``)."""
        if shape == "html":
            return self._bytes(200, HTML, "text/html; charset=utf-8")
        if shape == "echo-auth":
            said = f"rejected credential {self.headers.get('Authorization')} for {self.path}?{self.query}"
            return self._error(400, said)
        status, obj, streamed = completion(self.server.state, body, chat, row)
        if shape in STREAM_SHAPES:
            return self._stream(body, chat, *streamed, shape=shape)
        choice = obj["choices"][0]
        if shape == "no-finish":
            choice["finish_reason"] = None
        elif shape == "parts" and chat:
            text = choice["message"]["content"]
            choice["message"]["content"] = [{"type": "text", "text": text[:3]},
                                            {"type": "image_url", "image_url": {"url": "data:,"}},
                                            {"type": "text", "text": text[3:]}]
        self._json(status, obj)

    def _tokenize(self, body: dict) -> None:
        state = self.server.state
        chat = "messages" in body
        count = state.prompt_tokens(body, chat)
        tokens = list(range(count))  # ids do not matter to the client, only how many
        self._json(200, {"count": count, "max_model_len": state.max_model_len, "tokens": tokens})

    def _complete(self, body: dict, chat: bool, row: str | None) -> None:
        status, obj, streamed = completion(self.server.state, body, chat, row)
        if status != 200:
            return self._json(status, obj)
        if body.get("stream"):
            return self._stream(body, chat, *streamed)
        self._json(200, obj)

    def _stream(self, body: dict, chat: bool, reply: Reply, finish: str, usage: dict, shape: str | None = None) -> None:
        state = self.server.state
        head = {"id": "chatcmpl-1" if chat else "cmpl-1", "created": 0, "model": state.model,
                "object": "chat.completion.chunk" if chat else "text_completion"}
        pieces: list[dict] = []
        if chat:
            pieces.append({"role": "assistant", "content": ""})
            pieces += [{"reasoning_content": p} for p in _split(reply.reasoning_content or "")]
            pieces += [{"content": p} for p in _split(reply.content)]
        else:
            pieces += [{"text": p} for p in _split(reply.content)]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True
        sent = {"role-only": 1, "partial": 2, "error-event": 2}.get(shape or "", len(pieces))
        for n, piece in enumerate(pieces[:sent]):
            last = n == len(pieces) - 1 and shape != "done-no-finish"
            choice = {"index": 0, "logprobs": None, "finish_reason": finish if last else None}
            choice.update({"delta": piece} if chat else piece)
            self._event({**head, "choices": [choice]})
        if shape in ("role-only", "partial"):  # the connection closes before the answer ended
            return
        if shape == "error-event":  # vLLM, SGLang and TGI send an error event, then [DONE]
            self._event({"error": {"message": "the engine died mid-answer", "type": "InternalServerError",
                                   "code": 500}})
        elif (body.get("stream_options") or {}).get("include_usage"):
            self._event({**head, "choices": [], "usage": usage})
        self.wfile.write(b"data: [DONE]\n\n")
        self.wfile.flush()

    def _event(self, obj: dict) -> None:
        self.wfile.write(b"data: " + json.dumps(obj).encode() + b"\n\n")
        self.wfile.flush()


def user_text(body: dict) -> str:
    """The content of a chat request's last user message (a prefill's assistant message may follow it)."""
    return next((m.get("content") or "" for m in reversed(body["messages"]) if m.get("role") == "user"), "")


def completion(state: ServerState, body: dict, chat: bool, row: str | None) -> tuple[int, dict, tuple]:
    """(HTTP status, response or error object, (reply, finish, usage) for streaming) of one completion request."""
    refused = state.prefill_error(body) if chat else None
    if refused:
        return 400, error_object(400, refused), ()
    prompt_tokens = state.prompt_tokens(body, chat)
    max_tokens = body.get("max_completion_tokens") or body.get("max_tokens") or 16
    if state.max_model_len is not None and prompt_tokens + max_tokens > state.max_model_len:
        where = "messages" if chat else "prompt"
        return 400, error_object(400, f"This model's maximum context length is {state.max_model_len} tokens. However, "
                                      f"you requested {prompt_tokens + max_tokens} tokens ({prompt_tokens} in the {where}, "
                                      f"{max_tokens} in the completion). Please reduce the length of the {where} or "
                                      f"completion."), ()
    scripted = state.replies.get(row or "") or state.default_reply(row)
    stop = body.get("stop") or []
    reply, finish, n = truncate(state, scripted, max_tokens, [stop] if isinstance(stop, str) else stop)
    reply = state.shown(body, reply)
    read = state.prompt_read if state.prompt_read is not None else prompt_tokens
    usage = {"prompt_tokens": read, "total_tokens": read + n, "completion_tokens": n, "prompt_tokens_details": None}
    if chat:
        choice = {"index": 0, "message": {"role": "assistant", "content": reply.content,
                                          "reasoning_content": reply.reasoning_content, "tool_calls": []},
                  "logprobs": None, "finish_reason": finish, "stop_reason": None}
        obj = {"id": "chatcmpl-1", "object": "chat.completion", "created": 0, "model": state.model,
               "choices": [choice], "usage": usage}
    else:
        choice = {"index": 0, "text": reply.content, "logprobs": None, "finish_reason": finish, "stop_reason": None}
        obj = {"id": "cmpl-1", "object": "text_completion", "created": 0, "model": state.model,
               "choices": [choice], "usage": usage}
    return 200, obj, (reply, finish, usage)


def error_object(status: int, message: str) -> dict:
    """An OpenAI-style error body."""
    kind = {400: "BadRequestError", 401: "Unauthorized", 404: "NotFoundError", 429: "RateLimitError"}
    return {"error": {"message": message, "type": kind.get(status, "InternalServerError"), "param": None, "code": status}}


def _split(text: str) -> list[str]:
    """A text in three pieces (streamed as three chunks); nothing for an empty text."""
    if not text:
        return []
    step = max(1, len(text) // 3)
    return [text[i:i + step] for i in range(0, len(text), step)]


class Server(ThreadingHTTPServer):
    """The threaded HTTP server holding a ServerState."""

    daemon_threads = True

    def __init__(self, state: ServerState, handler: type = Handler):
        super().__init__(("127.0.0.1", 0), handler)
        self.state = state

    @property
    def base_url(self) -> str:
        """The OpenAI base URL of this server (``http://127.0.0.1:PORT/v1``)."""
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@contextlib.contextmanager
def running_server(state: ServerState | None = None, handler: type = Handler) -> Iterator[Server]:
    """Serve on 127.0.0.1 (a free port) in a background thread until the block ends (``handler``: the routes)."""
    server = Server(state or ServerState(), handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.state.released.set()  # hung requests end
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)
