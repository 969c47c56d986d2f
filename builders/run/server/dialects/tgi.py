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
- Answer prefix: a final assistant message is always continued (``infer/chat_template.rs``: the
  templated text is cut after the last place the message's text occurs, trailing whitespace trimmed),
  unless the model's template changes the text (a ``| trim`` drops RULER's leading space): then TGI
  cannot find it and sends the closed turn and a new one. So the run asks ``/chat_tokenize`` (the same
  templating) for the first row with a prefix and prefills only if the templated text ends with it.
"""

from __future__ import annotations

from ...prompt import PrefixForm, Prompt
from ..probe import ServerProbe
from .base import Dialect, ServerFacts, positive_int, prefilled


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

    async def prefix_form(self, server: ServerProbe, sample: Prompt) -> PrefixForm:
        """A prefill if ``/chat_tokenize`` of the sample with its prefix as the assistant's ends with the prefix."""
        prefill = prefilled("TGI continues a final assistant message: its /chat_tokenize of the first row with a "
                            "prefix ends with the prefix")
        return await self.prefill_if_templated(server, "/chat_tokenize", "templated_text", sample, prefill,
                                               "does not end with the prefix (the model's chat template changes the "
                                               "message, so TGI cannot find it to continue)")

    async def count(self, server: ServerProbe, prompt: Prompt, form: PrefixForm) -> int | None:
        """Tokens from ``/chat_tokenize`` (chat) or ``/tokenize`` (completions)."""
        if server.api == "chat":
            reply = await server.post_json("/chat_tokenize", {"model": server.model, "messages": form.messages(prompt)})
            tokens = reply.get("tokenize_response") if isinstance(reply, dict) else None
        else:
            tokens = await server.post_json("/tokenize", {"inputs": form.text(prompt)})
        if not isinstance(tokens, list):
            server.note("/chat_tokenize", "its answer has no token list")
            return None
        return len(tokens)
