"""SGLang, read from ``python/sglang/srt/entrypoints/http_server.py``, ``openai/protocol.py`` and
``openai/serving_tokenize.py`` (SGLang 0.5.x, 2026) and its ``docs/basic_usage/native_api.md``.

- Kind: ``GET /get_model_info`` (``/model_info`` in newer releases) answers ``{"model_path", ...}``;
  its ``/v1/models`` cards say ``"owned_by": "sglang"``.
- Window: the card's ``max_model_len`` (the server's context length, ``--context-length``).
- Counts: ``POST /v1/tokenize`` ``{"model", "prompt", "add_special_tokens"}`` → ``{"tokens", "count",
  "max_model_len"}``. It encodes the text only: it does not apply the chat template, so the run adds
  a fixed allowance for the template (its ``max_model_len`` there is the tokenizer's, not the window).
- A prompt over the window is refused with HTTP 400, never cut.
- Answer prefix: ``continue_final_message: true`` (``ChatCompletionRequest``; ``serving_chat.py``'s
  ``_handle_last_assistant_message``) takes a final assistant message out of the template and appends its
  tokens after the generation prompt; without it SGLang turns that message into a user message.
"""

from __future__ import annotations

from ...prompt import PrefixForm, Prompt
from ..probe import ServerProbe
from .base import CHAT_TEMPLATE_ALLOWANCE, Dialect, ServerFacts, positive_int, prefilled


class Sglang(Dialect):
    """SGLang's server."""

    name = "SGLang"
    counting = f"SGLang's /v1/tokenize + {CHAT_TEMPLATE_ALLOWANCE} tokens for the chat template (it tokenizes text only)"
    exact = False

    async def probe(self, server: ServerProbe, card: dict | None) -> ServerFacts | None:
        """Facts from ``/get_model_info`` (or ``/model_info``) and the ``/v1/models`` card; None if not SGLang."""
        if (card or {}).get("owned_by") != "sglang":
            info = await server.get_json("/get_model_info") or await server.get_json("/model_info")
            if not isinstance(info, dict) or "model_path" not in info:
                return None
        size = positive_int((card or {}).get("max_model_len"))
        if server.api == "completions":
            self.counting, self.exact = "SGLang's /v1/tokenize", True
        return ServerFacts(self.name, size, "max_model_len from GET /v1/models" if size else "unknown",
                           fix="restart SGLang with a larger --context-length")

    async def prefix_form(self, server: ServerProbe, sample: Prompt) -> PrefixForm:
        """A prefill: SGLang's ``continue_final_message`` appends the final assistant message after the template."""
        return prefilled("SGLang continues a final assistant message given continue_final_message: true (it puts the "
                         "message's tokens after the chat template)", {"continue_final_message": True})

    async def count(self, server: ServerProbe, prompt: Prompt, form: PrefixForm) -> int | None:
        """The text's tokens (prefix included) from ``/v1/tokenize`` (+ the template allowance for chat)."""
        reply = await server.post_json("/v1/tokenize", {"model": server.model, "prompt": form.text(prompt),
                                                         "add_special_tokens": True})
        count = reply.get("count") if isinstance(reply, dict) else None
        if not isinstance(count, int) or isinstance(count, bool):
            server.note("/v1/tokenize", "its answer has no 'count'")
            return None
        return count + (CHAT_TEMPLATE_ALLOWANCE if server.api == "chat" else 0)
