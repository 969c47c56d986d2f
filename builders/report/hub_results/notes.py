"""The ``notes`` of a published result: its 95 % interval and what in the run differs from the paper's setting.

The paper's setting (SPEC §3, §5, §8; the paper's §2 and Appendix B.1): lengths measured in each
model's own tokenizer (token-control), greedy decoding with at most the row's reserve of new
tokens (o3-mini-high and DeepSeek-R1 with their presets), no system prompt, a leading reasoning
block removed before scoring, the paper's missing-answer policy, 50 examples per configuration.
The notes name each of these the report departs from, or could not check (a predictions file
without ``oneruler run``'s meta), so that a leaderboard reader sees it beside the number.
"""

from __future__ import annotations

import re
from typing import Any

from ...base.text import plural
from ...spec.leaderboards import RULER_AVG
from ...spec.run_meta import RunMeta
from ..report_data import Report
from ..score.answer_room import room_of
from .values import LeaderboardValue

# the sampling of the paper's runs, as ``oneruler run`` records it (max_tokens None: the row's reserve);
# ``extra_body`` is where a server's thinking switch goes (e.g. chat_template_kwargs.enable_thinking)
INTERVAL = re.compile(r"95 % CI (\d+(?:\.\d+)?)–(\d+(?:\.\d+)?)")  # what ``interval_note`` writes, read back
PAPER_SAMPLING: dict[str, Any] = {"temperature": 0.0, "top_p": None, "max_tokens": None, "reasoning_effort": None,
                                  "stop": [], "extra_body": {}, "max_tokens_by_task": {}}


def interval_note(value: LeaderboardValue) -> str:
    """``95 % CI 61.20–65.60 (cluster bootstrap over example indices); 9,050 of 9,100 rows counted``."""
    cell = value.cell
    if cell is None:
        return ""
    ci = value.interval
    bounds = f"95 % CI {100 * ci.low:.2f}–{100 * ci.high:.2f} (cluster bootstrap over example indices)" if ci else \
        "no interval (nothing counted)"
    if value.served.board.value == RULER_AVG:
        return (f"{bounds}; RULER's Avg.: per length the mean of its 13 tasks' mean credit, averaged over "
                f"{len(value.served.board.lengths)} lengths; {cell.counted:,} of {cell.rows:,} rows counted")
    return f"{bounds}; {cell.counted:,} of {cell.rows:,} rows counted, {cell.passed:,} passed"


def noted_interval(notes: str | None) -> tuple[float, float] | None:
    """The 95 % interval (percent) that ``interval_note`` wrote into a result's notes (None: they state none)."""
    m = INTERVAL.search(notes or "")
    return (float(m[1]), float(m[2])) if m else None


def length_note(value: LeaderboardValue) -> str:
    """How lengths were measured, against the paper's token-control setting."""
    alias = value.served.alias
    if alias is None:
        return "text-control: lengths in cl100k_base tokens (the paper measured them in each model's own tokenizer)"
    return f"token-control: lengths in {alias} tokens (the paper's setting when {alias} is the model's tokenizer)"


def generation_note(run: RunMeta | None) -> str:
    """The generation settings the run's meta records, against the paper's greedy decoding within the reserve."""
    if run is None:
        return "generation settings not recorded (predictions not written by `oneruler run`)"
    sampling = run.sampling or {}
    shown = ", ".join(f"{k}={sampling.get(k)}" for k, paper in PAPER_SAMPLING.items() if sampling.get(k, paper) != paper)
    if run.preset:
        return f"preset {run.preset} (the paper's for its reasoning models)" + (f": {shown}" if shown else "")
    if not shown:
        return "greedy, at most the row's reserve of new tokens (the paper's)"
    return f"generation {shown} (the paper: greedy, at most the row's reserve of new tokens)"


def scoring_note(report: Report) -> str:
    """The scoring options that depart from the paper's defaults (reasoning, policies)."""
    options = report.options
    parts = ["leading <think> blocks removed" if options.strip_think else "<think> blocks scored as answer text"]
    if options.answer_tag:
        parts.append("only the last <Answer> block scored (upstream's DeepSeek rule)")
    if options.missing_policy != "paper":
        parts.append(f"missing-answer policy {options.missing_policy} (not the paper's)")
    if options.truncation != "paper":
        parts.append(f"outputs cut at the token limit: {options.truncation} (not the paper's)")
    return "; ".join(parts)


def samples_note(value: LeaderboardValue) -> str:
    """The examples per config, when they are not the paper's 50."""
    cell = value.cell
    reference, samples = value.served.board.reference
    per_config = cell.rows // max(cell.configs, 1) if cell is not None else samples
    if per_config == samples:
        return ""
    return f"{plural(per_config, 'example')} per config ({reference}: {samples})"


def board_over_limit(report: Report, value: LeaderboardValue) -> tuple[int, str] | None:
    """(rows of the leaderboard's configs whose gold answer exceeds the run's limit, the tokenizer they were counted
    in); None when the report did not count them (scored before it did)."""
    room = room_of(report.extra)
    if room is None:
        return None
    configs = set(value.served.config_names)
    return sum(n for c, n in (room.get("over_limit") or {}).items() if c in configs), str(room.get("tokenizer"))


def ceiling_note(report: Report, value: LeaderboardValue) -> str:
    """The ceiling rows that cannot be answered within the run's limit put on the value (empty: none)."""
    found = board_over_limit(report, value)
    cell = value.cell
    if found is None or not found[0] or cell is None or not cell.counted:
        return ""
    over, tokenizer = found
    return (f"{plural(over, 'row')} of the pool have a gold answer longer than the run's limit of new tokens (counted "
            f"in {tokenizer} tokens), so the value can be at most {100 * (cell.counted - over) / cell.counted:.2f} %")


def result_notes(report: Report, value: LeaderboardValue) -> str:
    """The ``notes`` of one leaderboard's entry: interval and counts, then every departure from the paper's setting."""
    parts = [interval_note(value), length_note(value), samples_note(value), generation_note(report.run),
             ceiling_note(report, value), scoring_note(report)]
    return "; ".join(p for p in parts if p)
