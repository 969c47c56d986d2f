"""What a server says about itself (``ServerFacts``), the shape of a dialect, and what the preflight learnt
of one server (``KnownServer``).

A dialect knows one server's own endpoints: ``probe`` asks them and answers None when the server
does not speak it (a 404, another shape), ``count`` counts one prompt as that server will see it
(None: it cannot). Both speak to the server through a ``probe.ServerProbe`` only (JSON calls under
the server root, the run's model and API, a note of what failed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..probe import ServerProbe
# Tokens a chat template may add around one user message when a count cannot include the template
# itself (role headers, a default system prompt: Llama 3.1 adds ~30, Qwen 2.5 ~25).
CHAT_TEMPLATE_ALLOWANCE = 64


@dataclass(frozen=True)
class ServerFacts:
    """The server's software, its window and where that came from, its parallel slots, and how to widen it."""

    software: str  # what answers: "vLLM", "llama.cpp", "OpenAI-compatible" (its dialect's name)
    window: int | None
    window_source: str
    prompt_limit: int | None = None  # a cap on the prompt alone (TGI's max_input_tokens)
    slots: int | None = None  # requests it works on at once (llama.cpp's total_slots); None: not said
    shared_cache: int | None = None  # tokens its slots hold together (one KV cache shared by all); None: each its own
    shared_source: str = ""  # how the shared cache was learnt, for the preflight line
    more_at_once: str = ""  # how to hold more requests at once ({together}, {separate}, {slots}, {window})
    capacity_error: str | None = None  # the text of an answer that says the shared cache is full: resend, do not fail
    fix: str = "serve the model with a larger window"
    truncates: bool = False  # cuts a prompt longer than its window instead of refusing it (Ollama)
    notes: tuple[str, ...] = ()  # what the run should say before it sends anything


class Dialect:
    """One server software's dialect: how to recognise it and how it counts prompt tokens."""

    name = "OpenAI-compatible"
    counting = ""  # how ``count`` counts, for the preflight line ("" : it does not)
    exact = True  # the count is the server's own (False: an allowance is added for the chat template)

    async def probe(self, server: ServerProbe, card: dict | None) -> ServerFacts | None:
        """The server's facts, or None if it does not speak this dialect (``card``: its entry in ``GET /v1/models``)."""
        raise NotImplementedError

    async def count(self, server: ServerProbe, prompt: str) -> int | None:
        """Tokens of ``prompt`` as sent by the run (chat template or BOS included); None: cannot count."""
        return None


def messages(prompt: str) -> list[dict]:
    """The chat messages the run sends for a prompt: it alone, as the user (no system prompt)."""
    return [{"role": "user", "content": prompt}]


def positive_int(value: Any) -> int | None:
    """``value`` if it is a positive int (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


@dataclass(frozen=True)
class KnownServer:
    """What the preflight learnt of one server: its dialect, what it says about itself, and the probe that asks it."""

    dialect: Dialect
    facts: ServerFacts
    probe: ServerProbe

    async def count(self, prompt: str) -> int | None:
        """Prompt tokens as the server counts them, in its own dialect (None: it cannot count)."""
        return await self.dialect.count(self.probe, prompt)

    def problems(self) -> str:
        """Why the server's endpoints gave no usable answer (``no answer`` when nothing was noted)."""
        return "; ".join(self.probe.problems.values()) or "no answer"
