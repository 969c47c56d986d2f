"""Each server's own dialect: recognised from what it answers (never from its URL), then asked for its
window, its parallel slots and its prompt counts in its own way.

Order: the ``GET /v1/models`` card's ``owned_by`` names the likely dialect, which is probed first;
then every other dialect is probed in a fixed order (each probe is one or two GETs that other servers
answer with 404); a server no probe recognises keeps vLLM's de facto field names (``Compatible``).
"""

from __future__ import annotations

from ..probe import ServerProbe
from .base import CHAT_TEMPLATE_ALLOWANCE, Dialect, KnownServer, ServerFacts
from .hosted import OWNERS, HostedOpenAI
from .llamacpp import LlamaCpp
from .ollama import Ollama
from .sglang import Sglang
from .tgi import Tgi
from .vllm import Compatible, Vllm

__all__ = ["CHAT_TEMPLATE_ALLOWANCE", "Dialect", "KnownServer", "ServerFacts", "detect"]


def _candidates(card: dict | None, model: str) -> list[Dialect]:
    dialects: list[Dialect] = [Vllm(), HostedOpenAI(), LlamaCpp(), Ollama(), Tgi(), Sglang()]
    owner = (card or {}).get("owned_by")
    owner = owner if isinstance(owner, str) else None  # a card of another shape hints at nothing
    hint = {"vllm": Vllm, "llamacpp": LlamaCpp, "sglang": Sglang, "library": Ollama, "ollama": Ollama}.get(owner)
    if owner in OWNERS:
        hint = HostedOpenAI
    elif owner is not None and owner == (card or {}).get("id", model) and hint is None:
        hint = Tgi  # TGI's card is owned by its model id
    return sorted(dialects, key=lambda d: not isinstance(d, hint)) if hint else dialects


async def detect(server: ServerProbe, card: dict | None) -> KnownServer:
    """The server's dialect and what it says about itself; connection errors propagate."""
    for dialect in _candidates(card, server.model):
        facts = await dialect.probe(server, card)
        if facts is not None:
            return KnownServer(dialect, facts, server)
    fallback = Compatible()
    return KnownServer(fallback, await fallback.probe(server, card), server)  # type: ignore[arg-type]
