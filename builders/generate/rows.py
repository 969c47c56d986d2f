"""The pure core's entry point: (config, index, seed, sources, tokenizer) → one row of its family's schema.

Each family's generator (``GENERATORS``, by family name) makes a row's content fields; this module adds
the fields every row has and checks that the row has exactly its family's fields (``spec/schema.py``).
"""

from __future__ import annotations

from typing import Callable, Iterator

from ..base.errors import OneRulerError
from ..sources.store import Sources
from ..spec.configs import ConfigSpec
from ..spec.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from ..spec.families.cwe import CWE
from ..spec.families.niah import NIAH
from ..spec.families.ruler_niah import RULER_NIAH
from ..spec.families.ruler_vt import RULER_VT
from ..spec.families.ruler_cwe import RULER_CWE
from ..spec.families.ruler_fwe import RULER_FWE
from ..spec.families.ruler_qa import RULER_QA
from ..spec.family import Task, TaskFamily
from ..spec.ids import row_id
from ..spec.schema import field_names
from ..spec.tasks import get_task
from .cwe import render_cwe
from .material import RowMaterial
from .niah import niah_fields
from .prepared import PreparedCache
from .ruler.niah import ruler_niah_fields
from .ruler.vt import ruler_vt_fields
from .ruler.cwe import ruler_cwe_fields
from .ruler.fwe import ruler_fwe_fields
from .ruler.qa import ruler_qa_fields
from .tokenizer import Tokenizer, TokenizerRegistry

# (config, task, index, seed, material) -> the row's fields other than the ones every row has from its config
FamilyGenerator = Callable[[ConfigSpec, Task, int, int, RowMaterial], dict]

GENERATORS: dict[str, FamilyGenerator] = {NIAH.name: niah_fields, CWE.name: render_cwe,
                                          RULER_NIAH.name: ruler_niah_fields, RULER_VT.name: ruler_vt_fields,
                                          RULER_CWE.name: ruler_cwe_fields, RULER_FWE.name: ruler_fwe_fields,
                                          RULER_QA.name: ruler_qa_fields}


def register_generator(family: TaskFamily, generator: FamilyGenerator) -> None:
    """Make ``generator`` the row generator of ``family`` (a family that has one is a ValueError)."""
    if family.name in GENERATORS:
        raise ValueError(f"family {family.name!r} has a generator already")
    GENERATORS[family.name] = generator


def _config_fields(spec: ConfigSpec, tokenizer: Tokenizer, index: int, seed: int) -> dict:
    """The fields every row takes from its config, index and seed."""
    return {"id": row_id(spec.name, index), "config": spec.name, "task": spec.task,
            "context_language": spec.context_language, "instruction_language": spec.instruction_language,
            "length": spec.length, "tokenizer": tokenizer.identity, "index": index, "seed": seed}


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
        """One example as a row dict with exactly the fields of its family (``spec/schema.py:field_names``)."""
        tokenizer = self.tokenizer_for(spec)
        task = get_task(spec.task)
        generator = GENERATORS.get(task.family.name)
        if generator is None:
            raise OneRulerError(f"task {task.name!r}: family {task.family.name!r} has no row generator "
                                f"(generate/rows.py:register_generator)")
        row = {**_config_fields(spec, tokenizer, index, seed),
               **generator(spec, task, index, seed, RowMaterial(self.sources, tokenizer, self.prepared))}
        names = field_names(task.family)
        if len(row) != len(names) or not all(name in row for name in names):
            raise OneRulerError(f"family {task.family.name!r} made a row with fields {sorted(row)}; its schema has "
                                f"{sorted(names)} (spec/schema.py)")
        return {name: row[name] for name in names}

    def rows(self, spec: ConfigSpec, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> Iterator[dict]:
        """The rows of a config in index order (each a pure function of its index)."""
        if samples < 1:
            raise ValueError(f"samples must be >= 1, got {samples}")
        for index in range(samples):
            yield self.example(spec, index, seed)
