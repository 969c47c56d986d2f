"""Hosted OpenAI models (api.openai.com and servers that answer like it).

- Kind: its ``GET /v1/models`` cards say ``"owned_by"`` ``"openai"``, ``"system"`` or ``"openai-internal"``.
- Window: not reported by the API: ``--max-model-len`` (the model page's context window) or unknown.
- Counts: no tokenize endpoint; tiktoken knows each model's encoding (``tiktoken.encoding_for_model``),
  and a chat request adds a documented overhead: 3 tokens per message, the role's tokens and 3 to
  prime the reply (openai-cookbook, "How to count tokens with tiktoken", 2024) — 7 for the run's one
  user message.
- Answer prefix: the chat API does not continue a final assistant message; it is appended to the prompt.
"""

from __future__ import annotations

from ...prompt import PrefixForm, Prompt
from ..probe import ServerProbe
from .base import Dialect, ServerFacts

OWNERS = ("openai", "system", "openai-internal")
PER_MESSAGE, REPLY_PRIMING = 3, 3


class HostedOpenAI(Dialect):
    """OpenAI's API."""

    name = "OpenAI API"
    counting = ""
    appends = "its chat API does not continue a final assistant message"

    def __init__(self) -> None:
        self.encoding = None

    async def probe(self, server: ServerProbe, card: dict | None) -> ServerFacts | None:
        """Facts from the ``/v1/models`` card's owner; the encoding from tiktoken if it knows the model."""
        if (card or {}).get("owned_by") not in OWNERS:
            return None
        import tiktoken

        try:
            self.encoding = tiktoken.encoding_for_model(server.model)
        except (KeyError, ValueError):
            self.encoding = None
        if self.encoding is not None:
            extra = " + the chat overhead (7)" if server.api == "chat" else ""
            self.counting = f"tiktoken {self.encoding.name} (the model's encoding){extra}"
        return ServerFacts(self.name, None, "not reported by the API", fix="choose a model with a larger window")

    async def count(self, server: ServerProbe, prompt: Prompt, form: PrefixForm) -> int | None:
        """The prompt's tokens (the prefix appended) in the model's encoding, plus the chat overhead."""
        if self.encoding is None:
            server.note("tiktoken", f"tiktoken does not know {server.model!r}")
            return None
        n = len(self.encoding.encode(form.text(prompt), disallowed_special=()))
        role = len(self.encoding.encode("user"))
        return n + (PER_MESSAGE + role + REPLY_PRIMING if server.api == "chat" else 0)
