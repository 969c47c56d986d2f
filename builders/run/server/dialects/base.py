"""What a server says about itself (``ServerFacts``), the shape of a dialect, and what the preflight learnt
of one server (``KnownServer``).

A dialect knows one server's own endpoints: ``probe`` asks them and answers None when the server
does not speak it (a 404, another shape), ``prefix_form`` says how the server takes an answer prefix
(a final assistant message it continues, or the prefix appended to the prompt: ``run/prompt.py``),
``count`` counts one prompt as that server will see it, sent in that form (None: it cannot). They
speak to the server through a ``probe.ServerProbe`` only (JSON calls under the server root, the run's
model and API, a note of what failed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...prompt import APPENDED, PREFILL, PrefixForm, Prompt
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

    # Why a server of this dialect gets an answer prefix appended to the prompt (a dialect that continues a final
    # assistant message says so in ``prefix_form`` instead).
    appends = "whether it continues a final assistant message cannot be told"

    async def prefix_form(self, server: ServerProbe, sample: Prompt) -> PrefixForm:
        """How this server takes an answer prefix (``sample``: the first row to send that has one, for a dialect that
        checks on the server). The safe form unless the dialect knows better: appended to the prompt."""
        return appended(f"{self.name}: {self.appends}")

    async def count(self, server: ServerProbe, prompt: Prompt, form: PrefixForm) -> int | None:
        """Tokens of ``prompt`` sent in ``form`` by the run (chat template or BOS included); None: cannot count."""
        return None

    async def prefill_if_templated(self, server: ServerProbe, path: str, key: str, sample: Prompt,
                                   prefill: PrefixForm, closed: str) -> PrefixForm:
        """``prefill`` if the server's own templating (``path``, its text under ``key``) of ``sample`` sent as a prefill
        ends with the prefix, else appended, saying why (``closed``: what the server did instead)."""
        reply = await server.post_json(path, {"model": server.model, "messages": prefill.messages(sample)})
        if ends_with_prefix(reply.get(key) if isinstance(reply, dict) else None, sample.prefix):
            return prefill
        problem = server.problems.pop(path, None)  # said here: not a problem of the counts
        said = f"failed ({problem})" if problem else closed
        return appended(f"{self.name}'s {path} of the first row with a prefix as a final assistant message {said}")


def appended(why: str) -> PrefixForm:
    """The prefix appended to the prompt (RULER's base template), and why."""
    return PrefixForm(APPENDED, why)


def prefilled(why: str, fields: dict | None = None, echoed: bool = False) -> PrefixForm:
    """The prefix as a final assistant message the server continues (``fields``: what the request needs for it)."""
    return PrefixForm(PREFILL, why, tuple((fields or {}).items()), echoed)


def ends_with_prefix(templated: object, prefix: str) -> bool:
    """Whether a server's templated prompt ends with the prefix (whitespace at either end aside): the assistant
    message left open for the model to continue, not closed by its turn's end or followed by a new turn."""
    return isinstance(templated, str) and templated.rstrip().endswith(prefix.strip())


def positive_int(value: Any) -> int | None:
    """``value`` if it is a positive int (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


@dataclass(frozen=True)
class KnownServer:
    """What the preflight learnt of one server: its dialect, what it says about itself, and the probe that asks it."""

    dialect: Dialect
    facts: ServerFacts
    probe: ServerProbe

    async def count(self, prompt: Prompt, form: PrefixForm) -> int | None:
        """Prompt tokens as the server counts them, sent in ``form``, in its own dialect (None: it cannot count)."""
        return await self.dialect.count(self.probe, prompt, form)

    async def prefix_form(self, sample: Prompt) -> PrefixForm:
        """How this server takes an answer prefix, in its own dialect."""
        return await self.dialect.prefix_form(self.probe, sample)

    def problems(self) -> str:
        """Why the server's endpoints gave no usable answer (``no answer`` when nothing was noted)."""
        return "; ".join(self.probe.problems.values()) or "no answer"
