"""The pure core's entry point: (config, index, seed, sources, tokenizer) → one row of the schema."""

from __future__ import annotations

from typing import Iterator

from ..sources.store import Sources
from ..spec.configs import ConfigSpec
from ..spec.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from ..spec.ids import row_id
from ..spec.schema import FIELD_NAMES
from ..spec.tasks import CweTask, get_task
from .cwe import render_cwe
from .niah import draw_niah, render_niah
from .prepared import PreparedCache
from .tokenizer import Tokenizer, TokenizerRegistry


class RowGenerator:
    """Generates rows from one set of sources and tokenizers, sharing pre-tokenised books."""

    def __init__(self, sources: Sources, tokenizers: TokenizerRegistry | None = None, full_count: bool = False):
        self.sources = sources
        self.tokenizers = tokenizers or TokenizerRegistry()
        # full_count: tokenise every candidate prompt whole instead of counting it by construction
        self.prepared = PreparedCache(sources, full_count)

    def tokenizer_for(self, spec: ConfigSpec) -> Tokenizer:
        """The tokenizer that measures a config's lengths."""
        return self.tokenizers.get(spec.alias)

    def example(self, spec: ConfigSpec, index: int, seed: int = DEFAULT_SEED) -> dict:
        """One example as a row dict with exactly the fields of ``builders.spec.schema.FEATURES``."""
        tokenizer = self.tokenizer_for(spec)
        task = get_task(spec.task)
        if isinstance(task, CweTask):
            body = render_cwe(spec, task, index, seed, self.sources, tokenizer, self.prepared)
        else:
            draw = draw_niah(task, spec.length, index, seed, self.sources.nouns, spec.is_cross_lingual, spec.depth)
            body = render_niah(spec, task, draw, self.sources, tokenizer, self.prepared)
        row = {
            "id": row_id(spec.name, index),
            "config": spec.name,
            "task": spec.task,
            "context_language": spec.context_language,
            "instruction_language": spec.instruction_language,
            "length": spec.length,
            "tokenizer": tokenizer.identity,
            "index": index,
            "seed": seed,
            "cwe_freq_common": 0,
            "cwe_freq_uncommon": 0,
            "cwe_pool_size": 0,
            "cwe_pool_exhausted": False,
            **body,
        }
        return {name: row[name] for name in FIELD_NAMES}

    def rows(self, spec: ConfigSpec, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> Iterator[dict]:
        """The rows of a config in index order (each a pure function of its index)."""
        if samples < 1:
            raise ValueError(f"samples must be >= 1, got {samples}")
        for index in range(samples):
            yield self.example(spec, index, seed)
