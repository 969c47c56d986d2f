"""The pure core: (config, index, seed, sources, tokenizer) → one row of the schema."""

from __future__ import annotations

from typing import Iterator

from .configs import ConfigSpec, parse_config_name
from .cwe import render_cwe
from .niah import draw_niah, render_niah
from .schema import FIELD_NAMES
from .sources import Sources
from .tasks import CweSpec, get_task
from .tokenizer import Tokenizer, TokenizerRegistry

DEFAULT_SAMPLES = 50
DEFAULT_SEED = 42


def generate_example(spec: ConfigSpec, index: int, *, sources: Sources, tokenizer: Tokenizer, seed: int = DEFAULT_SEED) -> dict:
    """One example as a row dict with exactly the fields of ``builders.schema.FEATURES``."""
    if tokenizer.alias != spec.alias:
        raise ValueError(f"config {spec.name} is measured with {spec.alias!r}, got tokenizer {tokenizer.alias!r}")
    task = get_task(spec.task)
    if isinstance(task, CweSpec):
        body = render_cwe(spec, task, index, seed, sources, tokenizer)
    else:
        draw = draw_niah(task, spec.length, index, seed, sources.nouns, spec.is_cross_lingual)
        body = render_niah(spec, task, draw, sources, tokenizer)
    row = {
        "id": f"{spec.name}/{index}",
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


def generate_rows(spec: ConfigSpec, *, sources: Sources, tokenizer: Tokenizer, samples: int = DEFAULT_SAMPLES,
                  seed: int = DEFAULT_SEED) -> Iterator[dict]:
    """The rows of a config in index order (each a pure function of its index)."""
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    for index in range(samples):
        yield generate_example(spec, index, sources=sources, tokenizer=tokenizer, seed=seed)


def build_config(name: str | ConfigSpec, *, sources: Sources, tokenizers: TokenizerRegistry | None = None,
                 samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> list[dict]:
    """Convenience: parse a name, pick its tokenizer from the registry, generate all rows."""
    tokenizers = tokenizers or TokenizerRegistry()
    spec = name if isinstance(name, ConfigSpec) else parse_config_name(name, tokenizers.aliases)
    return list(generate_rows(spec, sources=sources, tokenizer=tokenizers.get(spec.alias), samples=samples, seed=seed))
