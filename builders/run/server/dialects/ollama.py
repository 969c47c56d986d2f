"""Ollama, read from its ``docs/api.md``, ``docs/context-length.mdx`` and ``api/types.go`` (v0.33.0).

- Kind: ``GET /api/version`` answers ``{"version"}``.
- Window: the *effective* ``num_ctx``, which is what Ollama's OpenAI endpoint uses: a Modelfile's
  ``PARAMETER num_ctx`` (in ``POST /api/show``'s ``parameters``), else the ``context_length`` the
  model was loaded with (``GET /api/ps``; the model is loaded first with an empty ``POST /api/generate``
  when it is not: said on stderr, bounded by ``--load-timeout``), else the server's default
  (``OLLAMA_CONTEXT_LENGTH``; 4k under 24 GiB of VRAM),
  which the API does not report. The model's own limit is ``model_info["<arch>.context_length"]``.
- Ollama **silently truncates** a prompt longer than ``num_ctx`` (it keeps the end and reports the
  cut size in ``usage.prompt_tokens``): the preflight refuses rows that do not fit, and the run's
  truncation guard catches any that get through.
- Counts: Ollama has no tokenize endpoint; the run estimates (or counts with ``--tokenizer``).
- Slots: ``OLLAMA_NUM_PARALLEL`` is not reported.
- Answer prefix: whether a final assistant message is continued depends on the model's template
  (``template/template.go``: a legacy template is cut after ``.Response``; a ``.Messages`` template
  decides itself), and no endpoint shows the prompt Ollama makes: the prefix is appended to the prompt.
"""

from __future__ import annotations

from typing import Any

from ..probe import ServerProbe
from .base import Dialect, ServerFacts, positive_int

DEFAULT_NUM_CTX = 4096  # docs/context-length.mdx (v0.33): the default under 24 GiB of VRAM
FIX = ("restart Ollama with OLLAMA_CONTEXT_LENGTH={need} (`OLLAMA_CONTEXT_LENGTH={need} ollama serve`), or create a "
       "model whose Modelfile says `PARAMETER num_ctx {need}` (`ollama create`) and run that one")


def num_ctx_parameter(parameters: Any) -> int | None:
    """``num_ctx`` from ``/api/show``'s ``parameters`` text (one ``name value`` per line)."""
    for line in (parameters or "").splitlines() if isinstance(parameters, str) else []:
        name, _, value = line.strip().partition(" ")
        if name == "num_ctx" and value.strip().isdigit():
            return int(value.strip())
    return None


def trained_context(show: dict) -> int | None:
    """The model's own context length, ``model_info["<architecture>.context_length"]``."""
    info = show.get("model_info") if isinstance(show.get("model_info"), dict) else {}
    arch = info.get("general.architecture")
    return positive_int(info.get(f"{arch}.context_length")) if isinstance(arch, str) else None


class Ollama(Dialect):
    """Ollama's server (its OpenAI-compatible endpoint under ``/v1``)."""

    name = "Ollama"
    counting = ""
    appends = ("it continues a final assistant message only where the model's template does, and no endpoint shows "
               "the prompt it makes")

    async def probe(self, server: ServerProbe, card: dict | None) -> ServerFacts | None:
        """Facts from ``/api/version``, ``/api/show`` and ``/api/ps``; None if not Ollama."""
        version = await server.get_json("/api/version")
        if not isinstance(version, dict) or "version" not in version:
            return None
        show = await server.post_json("/api/show", {"model": server.model})
        show = show if isinstance(show, dict) else {}
        trained = trained_context(show)
        size, source = num_ctx_parameter(show.get("parameters")), "num_ctx from the model's Modelfile (POST /api/show)"
        if size is None:
            size = await self.loaded_context(server)
            source = "num_ctx the model is loaded with (GET /api/ps)"
        notes: list[str] = []
        if size is None:
            size, source = DEFAULT_NUM_CTX, f"Ollama's default num_ctx ({DEFAULT_NUM_CTX}), assumed: the server reports none"
            notes.append(f"Ollama {version['version']} did not report the num_ctx of {server.model!r}; assuming its "
                         f"default {DEFAULT_NUM_CTX}. Pass --max-model-len with the OLLAMA_CONTEXT_LENGTH it runs with")
        if trained:
            source += f"; the model itself supports {trained}"
        return ServerFacts(self.name, size, source, fix=FIX, truncates=True, notes=tuple(notes))

    async def loaded_context(self, server: ServerProbe) -> int | None:
        """``context_length`` of the model in ``GET /api/ps``, loading it first if it is not loaded."""
        for attempt in range(2):
            ps = await server.get_json("/api/ps")
            loaded = ps.get("models") if isinstance(ps, dict) else None
            for model in loaded if isinstance(loaded, list) else []:
                if isinstance(model, dict) and server.model in (model.get("name"), model.get("model")):
                    return positive_int(model.get("context_length"))
            if attempt == 0:  # "If an empty prompt is provided, the model will be loaded into memory" (api.md)
                await server.load("/api/generate", {"model": server.model},
                                  f"Ollama to load {server.model!r} into memory")
        return None
