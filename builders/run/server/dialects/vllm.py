"""vLLM (``vllm serve``), read from vLLM 0.11's ``vllm/entrypoints/openai/protocol.py`` and ``api_server.py``.

- Kind: its ``GET /v1/models`` cards say ``"owned_by": "vllm"``.
- Window: the card's ``max_model_len`` (``--max-model-len``, else the model's own).
- Counts: ``POST /tokenize`` at the server root with the chat messages and ``add_generation_prompt``
  (``TokenizeChatRequest``: the chat template applied) or, for ``--api completions``, the prompt with
  ``add_special_tokens`` (``TokenizeCompletionRequest``) → ``{"count", "max_model_len", "tokens"}``.
- Answer prefix: a final assistant message is continued with ``continue_final_message: true`` and
  ``add_generation_prompt: false`` (``ChatCompletionRequest``'s extra parameters; vLLM refuses both true;
  ``echo`` stays false, so the answer is the continuation alone); ``/tokenize`` takes the same two fields.
- Slots: vLLM batches continuously; it states no fixed number.
- A prompt + ``max_tokens`` over the window is refused with HTTP 400 (never cut).
"""

from __future__ import annotations

from typing import Any

from ...prompt import PrefixForm, Prompt
from ..probe import ServerProbe
from .base import Dialect, ServerFacts, appended, positive_int, prefilled

CONTINUE = {"continue_final_message": True, "add_generation_prompt": False}


class Vllm(Dialect):
    """vLLM's OpenAI-compatible server."""

    name = "vLLM"
    counting = "the server's /tokenize (vLLM: the chat template applied)"
    fix = "restart vLLM with a larger --max-model-len"

    def claims(self, card: dict | None) -> bool:
        """Whether the ``/v1/models`` card is one vLLM writes."""
        return card is not None and card.get("owned_by") == "vllm"

    async def probe(self, server: ServerProbe, card: dict | None) -> ServerFacts | None:
        """vLLM's facts from its card (no other request needed)."""
        if not self.claims(card):
            return None
        return self.facts(card)

    def facts(self, card: dict | None) -> ServerFacts:
        """The window from a card's ``max_model_len``."""
        size = positive_int((card or {}).get("max_model_len"))
        return ServerFacts(self.name, size, "max_model_len from GET /v1/models" if size else "unknown", fix=self.fix)

    async def prefix_form(self, server: ServerProbe, sample: Prompt) -> PrefixForm:
        """A prefill: vLLM's documented chat parameters make it continue the final assistant message."""
        return prefilled("vLLM continues a final assistant message given continue_final_message: true and "
                         "add_generation_prompt: false (its chat API's own parameters)", CONTINUE)

    async def count(self, server: ServerProbe, prompt: Prompt, form: PrefixForm) -> int | None:
        """vLLM's ``POST /tokenize`` count (``server.problems['/tokenize']`` says why when None)."""
        body: dict[str, Any] = {"model": server.model}
        if server.api == "chat":
            body.update(messages=form.messages(prompt), add_generation_prompt=True)
            body.update(form.extra(prompt))  # a prefill: the same fields as the chat request
        else:
            body.update(prompt=form.text(prompt), add_special_tokens=True)
        reply = await server.post_json("/tokenize", body)
        if reply is None:
            return None
        count = reply.get("count") if isinstance(reply, dict) else None
        if not isinstance(count, int) or isinstance(count, bool):
            server.note("/tokenize", "its answer has no 'count'", replace=True)
            return None
        return count


class Compatible(Vllm):
    """A server of unknown software: vLLM's field names are the de facto convention (``max_model_len``, ``/tokenize``)."""

    name = "OpenAI-compatible server"
    fix = "serve the model with a larger window"

    async def prefix_form(self, server: ServerProbe, sample: Prompt) -> PrefixForm:
        """The safe form: whether a server of unknown software continues a final assistant message cannot be told."""
        return appended(f"a server of unknown software: {self.appends}")

    async def probe(self, server: ServerProbe, card: dict | None) -> ServerFacts | None:
        """The card's ``max_model_len`` if it has one; the window is unknown otherwise."""
        facts = self.facts(card)
        return facts if facts.window else ServerFacts(self.name, None, "unknown", fix=self.fix)
