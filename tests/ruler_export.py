"""RULER-shaped exports for the report's RULER tests: hand-written rows of RULER's 13 English tasks (and its
cross-lingual VT and XQuAD QA configs) with the exact row schema of their families (``spec/schema.py``: the core
fields, then ``answer_prefix``, and QA's pool columns), in the exporter's layout (``grid_export.write_grid_export``).

The rows are not RULER's prompts (its generators are written elsewhere); their references are made so that a test
knows the credit of every prediction: ``answer_with(row, hits)`` holds the first ``hits`` references, so a
``string_match_all`` row scores ``hits / len(answers)`` and a ``string_match_part`` row 1 when ``hits`` ≥ 1.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from builders.spec.configs import ConfigSpec
from builders.spec.grids import RULER_LENGTHS, RULER_TASKS
from builders.spec.schema import features_of
from builders.spec.tasks import get_task
from grid_export import write_grid_export

# references per row: RULER's counts where they are fixed (4 values, 4 queries, 1 chain of 4 hops = 5 variables, 10
# common words, 3 frequent words), two gold answers for QA (any one scores)
REFERENCES = {"ruler_niah_multivalue": 4, "ruler_niah_multiquery": 4, "ruler_vt": 5, "ruler_cwe": 10, "ruler_fwe": 3,
              "ruler_qa_1": 2, "ruler_qa_2": 2, "ruler_qa_xquad": 2}
NIAH = {t for t in RULER_TASKS if t.startswith("ruler_niah")}
QA_POOL = {"qa_pool_size": 240, "qa_pool_exhausted": False}  # QA's own columns (the source's documents, none run out)


def references(spec: ConfigSpec, index: int) -> list[str]:
    """A row's references: 7-digit numbers for RULER's NIAH tasks, words elsewhere; no one a substring of another."""
    count = REFERENCES.get(spec.task, 1)
    if spec.task in NIAH:
        return [str(1_000_000 + 1_000 * index + 10 * k + 7) for k in range(count)]
    return [f"ref-{index}-{k}-end" for k in range(count)]


def ruler_row(spec: ConfigSpec, index: int) -> dict:
    """One row of a RULER config with every field of its family's schema."""
    answers = references(spec, index)
    needles = [{"key": f"key{k}", "value": v, "depth": 10 * k, "actual_depth": 10.0 * k + 0.5,
                "token_depth": 10.0 * k + 0.25} for k, v in enumerate(answers)] if spec.task in NIAH else []
    row = {"id": f"{spec.name}/{index}", "config": spec.name, "task": spec.task,
           "context_language": spec.context_language, "instruction_language": spec.instruction_language,
           "length": spec.length, "tokenizer": "cl100k_base", "input": f"row {spec.name}/{index}: what?",
           "answers": answers, "num_tokens": 10, "needles": needles, "queries": ["key0"], "context_span": [0, 5],
           "index": index, "seed": 42, "reserve": get_task(spec.task).reserve,
           "budget": spec.length - get_task(spec.task).reserve, "num_units": 3, "answer_prefix": "Answer: "}
    row.update({name: value for name, value in QA_POOL.items() if name in features_of(spec.task)})
    assert list(row) == list(features_of(spec.task)), "the row's fields are its family's schema"
    return row


def ruler_specs(lengths: tuple[int, ...] = RULER_LENGTHS, tasks: tuple[str, ...] = RULER_TASKS) -> list[ConfigSpec]:
    """RULER's English configs (task by task, as the ruler grid lists them)."""
    return [ConfigSpec("en", task, n) for task in tasks for n in lengths]


def write_ruler_export(root: Path, specs: list[ConfigSpec], rows: int = 2, manifest: str = "ruler-v1") -> dict[str, dict]:
    """The export of ``specs`` (RULER rows) into ``root``; every row by id."""
    return write_grid_export(root, specs, rows, manifest, row_of=ruler_row)


def answer_with(row: dict, hits: int) -> str:
    """A prediction holding the first ``hits`` references of a row (none: an answer with no reference)."""
    return " ".join(row["answers"][:hits]) if hits else "I could not find it."


def credit(row: dict, hits: int) -> Fraction:
    """The credit RULER's rule gives ``answer_with(row, hits)``, computed from the rule's definition."""
    if get_task(row["task"]).scoring_rule == "string_match_part":
        return Fraction(int(hits > 0))
    return Fraction(min(hits, len(row["answers"])), len(row["answers"]))
