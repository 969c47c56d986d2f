"""The export's ``eval.yaml``: what registers a Hub dataset as a benchmark, and the card's "Leaderboards" table.

Format (huggingface/hub-docs ``docs/hub/eval-results.md``, "Eval.yaml specification"): ``name``,
``description``, ``evaluation_framework`` (one identifier of the Hub's list,
huggingface.js ``packages/tasks/src/eval.ts``) and ``tasks``, each with an ``id`` (one leaderboard)
and optionally ``config`` and ``split``. With ``inspect-ai`` each task must also carry
``field_spec``, ``solvers`` and ``scorers``, which Inspect's ``hf/`` loader validates
(``inspect_ai/_eval/task/hf.py:HFTask``, extra keys forbidden). ``inspect-ai`` is the framework
that runs ONERULER (the ``oneruler/oneruler`` task); the three fields are there for the schema
only: Inspect's built-in scorers are not the paper's metric, so the file says, in its header
comment, that a leaderboard's value is ``oneruler score``'s (``spec/leaderboards.py:VALUE_RULE``).

The file is a pure function of the export's config names: the leaderboards the export serves in
full (``served_leaderboards``); an export serving none has no ``eval.yaml``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Iterable

from ..spec.leaderboards import (RULER_AVG, VALUE_RULE, ServedLeaderboard, listed_leaderboards,
                                 served_leaderboards)
from .frontmatter import dump_front_matter
from .layout import EVAL_YAML_NAME

EVALUATION_FRAMEWORK = "inspect-ai"
NAME = "ONERULER"
DESCRIPTION = (
    "ONERULER (Kim, Russell, Karpinska and Iyyer, 2025) measures long-context ability in 26 languages: five "
    "needle-in-a-haystack variants (one of them with no needle: the answer is 'none') and two common-word-extraction "
    "tasks at 8K, 32K, 64K and 128K tokens, 50 examples per configuration. Each leaderboard is the micro accuracy (%) "
    "over every row of its pool of configurations, scored with the paper's metric by `oneruler score`."
)
RULER_DESCRIPTION = (
    " The `ruler` leaderboard is RULER's Avg. (Hsieh et al., 2024) over its 13 English tasks at 4K … 128K (4096 … "
    "131072 tokens): per length the mean of the tasks' mean credit, averaged over the six lengths, as RULER's README "
    "table reports it."
)
HEADER = (
    "# ONERULER's leaderboards, written by `oneruler build` from the export's configs (do not edit).\n"
    "# A leaderboard's value is NOT what Inspect's `hf/` loader computes from the fields below (they satisfy the\n"
    "# Hub's inspect-ai schema; Inspect's built-in scorers are not the paper's metric, and `config` names one\n"
    "# config of the task's pool). It is computed by `oneruler score` over the whole pool (README, \"Leaderboards\"):\n"
    "# run a model with `oneruler run` or `inspect eval oneruler/oneruler`, then `oneruler score` and\n"
    "# `oneruler publish`.\n"
)
FIELD_SPEC = {"input": "input", "target": "answers",
              "metadata": ["id", "config", "task", "context_language", "instruction_language", "length", "tokenizer"]}
SOLVERS = [{"name": "generate", "args": {"temperature": 0.0, "max_tokens": 50}}]
SCORERS = [{"name": "includes"}]


def eval_task(served: ServedLeaderboard) -> dict:
    """One entry of ``tasks``: id, config, split, and the inspect-ai fields."""
    return {"id": served.id, "config": served.config, "split": served.split, "field_spec": FIELD_SPEC,
            "solvers": SOLVERS, "scorers": SCORERS}


def eval_yaml_data(config_names: Iterable[str]) -> dict | None:
    """The content of eval.yaml for an export of these configs (None: it serves no leaderboard)."""
    served = served_leaderboards(config_names)
    if not served:
        return None
    description = DESCRIPTION + (RULER_DESCRIPTION if any(s.board.value == RULER_AVG for s in served) else "")
    return {"name": NAME, "description": description, "evaluation_framework": EVALUATION_FRAMEWORK,
            "tasks": [eval_task(s) for s in served]}


def render_eval_yaml(config_names: Iterable[str]) -> str | None:
    """eval.yaml's text (the header comment, then the YAML), or None when the export serves no leaderboard."""
    data = eval_yaml_data(config_names)
    return None if data is None else HEADER + dump_front_matter(data)


def leaderboards_section(config_names: Iterable[str], only_pooled: bool = False) -> str:
    """The card's table of leaderboards: each one's pool, the config/split eval.yaml names, and whether served;
    ``only_pooled``: only the boards whose pool holds a config of the export (the card of an export without
    ONERULER's configs, which lists none of ONERULER's boards)."""
    names = list(config_names)
    served = {s.id: s for s in served_leaderboards(names)}
    rows = ["| leaderboard (eval.yaml task id) | pools | eval.yaml config / split | in this export |", "|---|---|---|---|"]
    listed = listed_leaderboards(names)
    if only_pooled:
        held = {name.rsplit("_", 1)[0] for name in names} | set(names)
        listed = [b for b in listed if held & set(b.config_names())]
        if not listed:
            return "No leaderboard pools a config of this export."
        micro = "".join(f"Value of `{b.id}`: {VALUE_RULE}\n\n" for b in listed if b.value_rule == VALUE_RULE)
        told = ("This export's `eval.yaml` registers the leaderboards marked *yes*." if served else
                "This export serves no leaderboard, so it has no `eval.yaml`: build every config of a board's pool "
                "(RULER's: `oneruler build --grid ruler`).")
        return _board_rows(rows, listed, served) + f"\n\n{micro}{_value_rules(listed, first=False)}{told}"
    return _board_rows(rows, listed, served) + _rest(listed, served)


def _board_rows(rows: list[str], listed: list, served: dict) -> str:
    """The table: one row per listed board."""
    for board in listed:
        s = served.get(board.id)
        where = f"`{s.config}` / `{s.split}`" if s else "—"
        status = f"yes, {s.length_control}" if s else "no (not every config of its pool is here)"
        rows.append(f"| `{board.id}` ({board.title}) | {board.describe()} | {where} | {status} |")
    return "\n".join(rows)


def _value_rules(listed: list, first: bool) -> str:
    """Each listed board's value rule other than the micro accuracy, as paragraphs (``first``: after a paragraph)."""
    rules = [f"Value of `{b.id}`: {b.value_rule}" for b in listed if b.value_rule != VALUE_RULE]
    return "".join(("\n\n" if first else "") + r + ("" if first else "\n\n") for r in rules)


def _rest(listed: list, served: dict) -> str:
    """What follows the table in the card of ONERULER's configs: the value rules and what the export serves."""
    told = ("This export's `eval.yaml` registers the leaderboards marked *yes*." if served else
            "This export serves no leaderboard, so it has no `eval.yaml`: build every main config of a length "
            "(`oneruler build '*_8k'`; the cross-lingual and `s_niah_nonone` configs are not pooled).")
    return f"\n\nValue of each leaderboard: {VALUE_RULE}{_value_rules(listed, first=True)}\n\n{told}"


def eval_yaml_problem(out: Path, config_names: Iterable[str]) -> str | None:
    """What is wrong with the eval.yaml of the export folder ``out`` (None: it is the one its configs give)."""
    expected = render_eval_yaml(config_names)
    path = Path(out) / EVAL_YAML_NAME
    found = path.read_text(encoding="utf-8") if path.is_file() else None
    if found == expected:
        return None
    if found is None:
        return f"{EVAL_YAML_NAME} is missing"
    if expected is None:
        return f"{EVAL_YAML_NAME} should not be there (the export serves no leaderboard)"
    return f"{EVAL_YAML_NAME} differs from the one its configs give"
