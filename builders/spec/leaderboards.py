"""The leaderboards ONERULER defines on the Hugging Face Hub (the tasks of a dataset's ``eval.yaml``), as data.

Each leaderboard pools a fixed set of the standard grid's *main* configs (26 languages × the seven
tasks of the paper's main grid × its lengths; no ``s_niah_nonone`` ablation, no cross-lingual pair,
no fixed depth): ``oneruler`` all four lengths (728 configs), ``oneruler_8k`` … ``oneruler_128k``
one length each (182). Its value is the micro accuracy, in percent, over every counted row of the
pool, scored with the paper's metric in its default settings (``VALUE_RULE``; the paper, footnote
10: "we discard no-answer cases and report micro accuracy over the remaining instances").

``ruler`` pools the ``ruler`` grid (RULER's 13 English tasks × 4096 … 131072, 78 configs); its value is RULER's
Avg. (``RULER_VALUE_RULE``): per length the mean of the 13 tasks' mean credit, averaged over the six lengths, as
RULER's README table reports it (``report/views/ruler_table.py``).

A dataset serves the leaderboards whose whole pool it holds, in one tokenizer's configs
(``served_leaderboards``): the text-control configs (``pl_s_niah_8k``) when they serve any, else
one token-control alias (``pl_s_niah_8k_llama3``). ``oneruler build`` writes those into the
export's ``eval.yaml`` and card; ``oneruler score`` computes the value of each one a report
covers in full. Per-language and per-task boards are not defined (docs/publishing.md says why).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Iterable

from ..base.text import plural
from .configs import STANDARD_LENGTHS, ConfigNameError, ConfigSpec, render_length
from .defaults import DEFAULT_SAMPLES, SPLIT, valid_alias
from .grids import DEFAULT_GRID, RULER_LENGTHS, grid_groups

RULER_SAMPLES = 500  # examples per task and length in RULER's paper (§4, "Task configurations")

VALUE_RULE = (
    "100 × passed / counted over every row of the pool (the micro accuracy over the pooled examples, as the paper "
    "reports it, footnote 10), scored with the paper's metric in its default settings: a NIAH row without an "
    "answer (null, or cut at the token limit) leaves the denominator, a CWE row without one counts wrong, a leading "
    "<think> block is removed before scoring. Every row of every config of the pool must have a prediction. The 95 % "
    "interval is the cluster bootstrap over example indices (rows of one index share their draws across languages)."
)
RULER_VALUE_RULE = (
    "RULER's Avg.: per length the mean of its 13 tasks' scores, each the mean credit of its rows (RULER's "
    "string_match_all / string_match_part: the share of the references found, or any one), averaged over 4096 … "
    "131072, in percent, as RULER's README table reports it; a length-cut answer is scored as written, a null one "
    "scores 0. Every row of every config of the pool must have a prediction. The 95 % interval is the cluster "
    "bootstrap over example indices."
)
REPRESENTATIVE = ("en", "s_niah")  # the pool's config eval.yaml names: English single NIAH at the pool's longest length
MICRO, RULER_AVG = "micro", "ruler_avg"  # how a board is valued: micro accuracy over its rows, RULER's Avg.


@dataclass(frozen=True)
class Leaderboard:
    """One leaderboard (an ``eval.yaml`` task): its id, a title, the lengths whose configs of ``grid``'s own pool it
    pools, how it is valued (``value``: ``micro`` or ``ruler_avg``, in words ``value_rule``), the language and task
    of the config eval.yaml names, and the examples per config of the setting it reproduces (``reference``)."""

    id: str
    title: str
    lengths: tuple[int, ...]
    grid: str = DEFAULT_GRID
    value: str = MICRO
    value_rule: str = VALUE_RULE
    representative: tuple[str, str] = REPRESENTATIVE
    reference: tuple[str, int] = ("the paper", DEFAULT_SAMPLES)

    def specs(self, alias: str | None = None) -> tuple[ConfigSpec, ...]:
        """The pooled configs: the board's grid's own pool (``spec/grids.py``; the standard grid's: its main configs) at
        the board's lengths, in grid order (``alias``: a token-control tokenizer; None: text-control)."""
        return tuple(dataclasses.replace(spec, tokenizer_alias=alias)
                     for spec in grid_groups(self.grid)[""] if spec.length in self.lengths)

    def config_names(self, alias: str | None = None) -> tuple[str, ...]:
        """The names of the pooled configs."""
        return tuple(spec.name for spec in self.specs(alias))

    def describe(self) -> str:
        """The pool in words, e.g. ``26 languages × 7 tasks × 8k (182 configs)``."""
        lengths = ", ".join(render_length(n) for n in self.lengths)
        specs = self.specs()
        languages, tasks = {s.context_language for s in specs}, {s.task for s in specs}
        return f"{plural(len(languages), 'language')} × {len(tasks)} tasks × {lengths} ({len(specs)} configs)"


LEADERBOARDS: tuple[Leaderboard, ...] = (
    Leaderboard("oneruler", "ONERULER, all lengths", STANDARD_LENGTHS),
    *(Leaderboard(f"oneruler_{render_length(n)}", f"ONERULER at {render_length(n)}", (n,)) for n in STANDARD_LENGTHS),
    Leaderboard("ruler", "RULER's Avg., 13 English tasks × 4096 … 131072", RULER_LENGTHS, grid="ruler",
                value=RULER_AVG, value_rule=RULER_VALUE_RULE, representative=("en", "ruler_niah_single_1"),
                reference=("RULER's paper", RULER_SAMPLES)),
)


def listed_leaderboards(config_names: Iterable[str]) -> list[Leaderboard]:
    """The boards a card lists for an export of these configs: ONERULER's always, another grid's (``ruler``) when
    the export holds any config of its pool (in any tokenizer)."""
    names = {name.rsplit("_", 1)[0] for name in config_names} | set(config_names)
    return [b for b in LEADERBOARDS if b.grid == DEFAULT_GRID or names & set(b.config_names())]


@dataclass(frozen=True)
class ServedLeaderboard:
    """A leaderboard as one dataset serves it: in the configs of tokenizer ``alias`` (None: text-control)."""

    board: Leaderboard
    alias: str | None

    @property
    def id(self) -> str:
        """The eval.yaml task id."""
        return self.board.id

    @property
    def config_names(self) -> tuple[str, ...]:
        """The names of the pooled configs in this tokenizer."""
        return self.board.config_names(self.alias)

    @property
    def config(self) -> str:
        """The one config ``eval.yaml`` names (its schema wants one): the board's representative task (ONERULER's:
        English S-NIAH) at the pool's longest length."""
        return ConfigSpec(*self.board.representative, max(self.board.lengths), tokenizer_alias=self.alias).name

    @property
    def split(self) -> str:
        """The split ``eval.yaml`` names."""
        return SPLIT

    @property
    def length_control(self) -> str:
        """How the pool's lengths are measured, in words."""
        if self.alias is None:
            return "text-control (lengths in cl100k_base tokens: every model reads the same text)"
        return f"token-control (lengths in {self.alias} tokens)"


def _candidate_aliases(names: set[str]) -> list[str]:
    """Token-control aliases the names may use (the last part of each name that could be one), sorted."""
    return sorted({n.rsplit("_", 1)[-1] for n in names if "_" in n} - {""})


def served_leaderboards(config_names: Iterable[str]) -> list[ServedLeaderboard]:
    """The leaderboards whose whole pool is among ``config_names``, in ``LEADERBOARDS`` order.

    Text-control configs win when they serve any leaderboard; otherwise the first token-control alias
    (alphabetically) that serves one. One tokenizer for all: the boards of a dataset compare like with like.
    """
    names = set(config_names)
    for alias in [None, *_candidate_aliases(names)]:
        if alias is not None and not valid_alias(alias):
            continue
        try:
            served = [ServedLeaderboard(b, alias) for b in LEADERBOARDS if names.issuperset(b.config_names(alias))]
        except ConfigNameError:  # a name part that is no alias after all
            continue
        if served:
            return served
    return []


def touched_leaderboards(config_names: Iterable[str]) -> list[ServedLeaderboard]:
    """Every leaderboard with some config of its pool among ``config_names``, in each tokenizer the names use
    (text-control, then each token-control alias alphabetically), in ``LEADERBOARDS`` order within one: what a report
    holds part of, to say what it lacks of each (``served_leaderboards``: those it holds whole)."""
    names = set(config_names)
    out = []
    for alias in [None, *_candidate_aliases(names)]:
        if alias is not None and not valid_alias(alias):
            continue
        try:
            out += [ServedLeaderboard(b, alias) for b in LEADERBOARDS if names.intersection(b.config_names(alias))]
        except ConfigNameError:  # a name part that is no alias after all
            continue
    return out


def find_leaderboard(task_id: str) -> Leaderboard | None:
    """The leaderboard with this eval.yaml task id (None: ONERULER defines none)."""
    return next((b for b in LEADERBOARDS if b.id == task_id), None)
