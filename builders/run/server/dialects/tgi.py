"""Hugging Face Text Generation Inference, read from ``router/src/server.rs`` and ``router/src/lib.rs`` (TGI v3.3.7).

- Kind: ``GET /info`` answers ``Info`` (``"router": "text-generation-router"``, ``max_input_tokens``,
  ``max_total_tokens``, ``max_concurrent_requests``, ``version``, ...); its ``/v1/models`` card says
  ``"owned_by": <model_id>``.
- Window: ``max_total_tokens`` (prompt + new tokens); the prompt alone is capped at ``max_input_tokens``.
- Counts: ``POST /chat_tokenize`` with a chat request → ``{"tokenize_response": [tokens],
  "templated_text"}`` (the chat template applied); ``POST /tokenize`` ``{"inputs"}`` → a list of
  ``{"id", "text", "start", "stop"}`` for a raw prompt.
- Over either limit a request is refused with HTTP 422 (``ValidationError``), never cut.
- Slots: TGI batches continuously; ``max_concurrent_requests`` is a queue cap, not parallel slots.
"""

from __future__ import annotations

from ..probe import ServerProbe
from .base import Dialect, ServerFacts, messages, positive_int


class Tgi(Dialect):
    """Text Generation Inference's router."""

    name = "TGI"
    counting = "TGI's /chat_tokenize (the chat template applied)"

    async def probe(self, server: ServerProbe, card: dict | None) -> ServerFacts | None:
        """Facts from ``GET /info``; None if not TGI."""
        info = await server.get_json("/info")
        if not isinstance(info, dict) or "max_total_tokens" not in info:
            return None
        total, prompt = positive_int(info.get("max_total_tokens")), positive_int(info.get("max_input_tokens"))
        if server.api == "completions":
            self.counting = "TGI's /tokenize"
        return ServerFacts(self.name, total, "max_total_tokens from GET /info" if total else "unknown",
                           prompt_limit=prompt,
                           fix="restart TGI with larger --max-total-tokens and --max-input-tokens")

    async def count(self, server: ServerProbe, prompt: str) -> int | None:
        """Tokens from ``/chat_tokenize`` (chat) or ``/tokenize`` (completions)."""
        if server.api == "chat":
            reply = await server.post_json("/chat_tokenize", {"model": server.model, "messages": messages(prompt)})
            tokens = reply.get("tokenize_response") if isinstance(reply, dict) else None
        else:
            tokens = await server.post_json("/tokenize", {"inputs": prompt})
        if not isinstance(tokens, list):
            server.note("/chat_tokenize", "its answer has no token list")
            return None
        return len(tokens)
