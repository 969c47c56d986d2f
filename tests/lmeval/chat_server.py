"""A loopback OpenAI-compatible chat-completions server whose answers the test decides.

It stands in for a real OpenAI-compatible server (vLLM's ``vllm serve``, or any other serving
stack that speaks ``POST /v1/chat/completions``), which cannot run here (no GPU, no model
weights): lm-eval's ``local-chat-completions`` back end talks to it over real HTTP on 127.0.0.1
exactly as it would to vLLM. Each request's single user message must be one of the prompts the
test registered (the row's ``input``, byte for byte), optionally followed by an assistant message
(an answer prefix lm-eval's ``gen_prefix`` sends as a prefill, recorded as ``prefill``); the server
answers with the text the test chose for that row and records the request, so a test can check what
lm-eval sent (prompt, prefill, ``max_tokens``, ``temperature``, ``stop``). With ``echo_prefill`` it
answers a prefill as llama.cpp's server does, the prefill's text first. An unknown prompt gets HTTP
400, never a made-up answer.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class ChatServer:
    """``with ChatServer({prompt: answer}) as server: ... server.url ...``; ``server.requests`` logs each call."""

    def __init__(self, answers: dict[str, str | None], model: str = "stand-in-model", echo_prefill: bool = False):
        self.answers = dict(answers)
        self.model = model
        self.echo_prefill = echo_prefill
        self.requests: list[dict] = []
        self.unknown: list[str] = []
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        """The chat-completions endpoint, for lm-eval's ``base_url``."""
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1/chat/completions"

    def __enter__(self) -> "ChatServer":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=10)

    def reply(self, body: dict) -> tuple[int, dict]:
        """(status, JSON) for one request body."""
        messages = body.get("messages") or []
        prefill = messages[-1].get("content") if len(messages) == 2 and messages[-1].get("role") == "assistant" else None
        users = [m.get("content") for m in messages if m.get("role") == "user"]
        prompt = users[-1] if len(users) == 1 and len(messages) == 1 + (prefill is not None) else None
        with self._lock:
            self.requests.append({k: v for k, v in body.items() if k != "messages"} | {"prompt": prompt, "prefill": prefill})
            if prompt not in self.answers:
                self.unknown.append(repr(prompt)[:200])
                return 400, {"error": {"message": "unknown prompt (expected one user message holding a row's input)"}}
        content = self.answers[prompt]
        if self.echo_prefill and prefill is not None and content is not None:
            content = prefill + content
        choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        return 200, {"id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": self.model,
                     "choices": [choice], "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}}

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", 0))
                try:
                    body = json.loads(self.rfile.read(length))
                except ValueError:
                    status, payload = 400, {"error": {"message": "invalid JSON"}}
                else:
                    if self.path.rstrip("/") != "/v1/chat/completions":
                        status, payload = 404, {"error": {"message": f"no route {self.path}"}}
                    else:
                        status, payload = server.reply(body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):  # keep test output quiet
                pass

        return Handler
