"""What a family's row generator reads besides (config, task, index, seed): ``RowMaterial``."""

from __future__ import annotations

from dataclasses import dataclass

from ..sources.ruler.store import RulerSources
from ..sources.store import Sources
from .prepared import PreparedCache
from .tokenizer import Tokenizer


@dataclass(frozen=True)
class RowMaterial:
    """The sources, the measuring tokenizer of the config and the generator's pre-tokenised books and pools."""

    sources: Sources
    tokenizer: Tokenizer
    prepared: PreparedCache

    @property
    def ruler(self) -> RulerSources:
        """RULER's inputs (templates, settings, essays, keys, words, QA data, Punkt), each read on first use."""
        return self.sources.ruler
