"""The ONERULER Inspect task: ``inspect eval oneruler/oneruler -T configs=GLOB[,GLOB...] [-T dataset=DIR_OR_REPO]``.

One sample per row (``samples.py``), the prompt as the single user message and no system
prompt; the paper's generation settings: greedy (temperature 0) and at most the row's reserve of
new tokens (30 NIAH, 50 CWE), set per row by the solver; ``preset`` picks a reasoning model's
settings of Appendix B.1 instead (``spec/presets.py``) and ``max_tokens`` fixes the limit for
every row. Inspect's own ``--max-tokens`` is overridden by the row's reserve: use ``-T max_tokens``.
The scorer is the paper's metric (``scorer.py``). Every option is checked in ``options.py``.
"""

from __future__ import annotations

from typing import Any

from inspect_ai import Task
from inspect_ai.model import GenerateConfig
from inspect_ai.solver import Generate, Solver, TaskState, solver

from ..base.errors import SettingError
from ..taskrows.loaded import LOADED
from .options import TaskOptions, task_options
from .samples import oneruler_dataset
from .scorer import oneruler_scorer


@solver
def generate_within_reserve(max_tokens: int | None = None) -> Solver:
    """One generation, at most ``max_tokens`` new tokens (None: the row's reserve, the paper's setting)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return await generate(state, tool_calls="none", max_tokens=max_tokens or state.metadata["reserve"])

    return solve


EVERY_CONFIG = "*"


def oneruler_task(configs: Any = EVERY_CONFIG, dataset: Any = None, tokenizer: Any = None, samples: Any = None,
                  data_seed: Any = None, grid: Any = None, limit: Any = None, preset: Any = None,
                  max_tokens: Any = None, strict: Any = False, truncation: Any = "paper",
                  missing_policy: Any = "paper", keep_think: Any = False, answer_tag: Any = False) -> Task:
    """ONERULER in Inspect: the configs the globs pick, their rows from ``dataset`` or generated on the fly.

    Args:
        configs: globs over config names (``pl_*_8k``, several comma-separated; default ``*``: every config; given
            empty, an error).
        dataset: an export folder or a Hub repo id (default ``$ONERULER_DATASET``, else generated rows).
        tokenizer: ``ALIAS=SPEC`` for token-control rows (configs ``{config}_{ALIAS}``).
        samples: rows per generated config (default 50). data_seed: their seed (default 42).
        grid: the named grid the globs expand over when generating (standard, depth, evidence).
        limit: the first rows of each config only.
        preset: o3-mini-high or deepseek-r1 (Appendix B.1). max_tokens: one limit for every row.
        strict: whole-token matching. truncation, missing_policy, keep_think, answer_tag: as `oneruler score`.
    """
    if configs is None or configs == "" or configs == []:  # `-T configs=`: Inspect passes None, as if not given
        raise SettingError("configs", "is empty: give one or more globs like 'pl_*_8k' (comma-separated), or leave "
                                      "the option out for every config")
    options = task_options(configs, dataset, tokenizer, samples, data_seed, grid, limit, preset, max_tokens, strict,
                           truncation, missing_policy, keep_think, answer_tag)
    scoring = options.scoring
    return Task(
        dataset=oneruler_dataset(options.configs, options.source, options.limit),
        solver=generate_within_reserve(options.generation.max_tokens),
        scorer=oneruler_scorer(strict=scoring.strict, truncation=scoring.truncation,
                               missing_policy=scoring.missing_policy, keep_think=not scoring.strip_think,
                               answer_tag=scoring.answer_tag),
        config=GenerateConfig(**options.generation.config_args()),
        metadata=run_metadata(options),
    )


def run_metadata(options: TaskOptions) -> dict[str, Any]:
    """What the log records of the rows: where they came from, the configs and the dataset's identity."""
    metadata: dict[str, Any] = {"rows": options.source.describe(), "configs": options.configs}
    if options.source.dataset:  # the Hub commit it was read at, the manifest's sha256
        metadata["dataset"] = LOADED.source(options.source.dataset).identity().to_dict()
    return metadata
