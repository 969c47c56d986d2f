"""The notes printed under a report's tables: null and truncated outputs and the policies that took them,
reasoning blocks, empty and partial configs, how intervals were computed, the sample size, and strict
versus paper mode, in words."""

from __future__ import annotations

from typing import Iterable

from ...scoring import get_rule
from ...spec.tasks import FAMILIES
from ..documents.scores_json import ScoresDocument
from ..score.answer_room import AnswerRoom
from ..report_data import Report
from ..views.depth import FALLBACK
from ..views.summaries import disagreements
from ...base.text import plural
from .tables import pct


def render_notes(report: Report, document: ScoresDocument) -> str:
    """Missing and truncated outputs, empty cells, intervals, sample size and disagreements, in words."""
    m, options = document.null_predictions, report.options
    if options.missing_policy == "upstream":
        null_policy = "dropped from the accuracy (upstream policy)"
    else:
        null_policy = f"{paper_policy(families=m.by_family)} (paper policy)"
    lines = [f"null predictions: {per_family(m.by_family)}; {null_policy}",
             _truncation_note(report, document),
             f"reasoning: {'leading <think> blocks removed' if options.strip_think else '<think> blocks scored as text'}"
             + ("; only the last <Answer> block scored" if options.answer_tag else "")]
    lines += _empty_notes(document)
    for name, cov in sorted(document.coverage.partial_configs.items()):
        lines.append(f"partial: {name} has prediction lines for {cov} rows")
    lines.append(f"intervals: 95 %; one config: Wilson; pooled: {report.columns.bootstrap.describe()}"
                 + ("; rows of RULER's graded rules (a score of 0–1 each): the cluster bootstrap, one config too"
                    if report.columns.graded.any() else ""))
    size = document.sample_size
    if size:
        indices = len(report.columns.bootstrap.labels)
        lines.append(f"sample size: {size.examples_per_config} examples per config; at the observed "
                     f"{pct(size.accuracy)} % two models must differ by about {pct(size.config_detectable_difference)} "
                     f"points on one config, {pct(size.overall_detectable_difference)} overall, to be told apart "
                     f"(two-sided α 0.05, power 0.8; overall from the {indices} example "
                     f"{'index' if indices == 1 else 'indices'}, not the {document.overall.counted} rows: rows that "
                     f"share an index share their draws and are not independent); build with --samples N for tighter "
                     f"intervals (docs/scoring.md)")
    if report.depth_fallback and any(r.needle_hits for r in report.scored):
        lines.append(f"depth: depth.csv and depth.png are {FALLBACK}")
    if report.strict and document.paper_overall is not None:
        dis = disagreements(report.scored)
        lost = sum(d["paper"] for d in dis)
        lines.append(f"strict vs paper: {plural(len(dis), 'example')} {'differs' if len(dis) == 1 else 'differ'} "
                     f"({lost} pass only in paper mode, "
                     f"{len(dis) - lost} only in strict mode); paper accuracy {pct(document.paper_overall.accuracy)}%")
    return "\n".join(lines)


def per_family(counts: dict[str, int]) -> str:
    """``3 NIAH, 0 CWE``: a count per task family, each family named by its label."""
    return ", ".join(f"{n} {FAMILIES[name].label if name in FAMILIES else name}" for name, n in counts.items())


def paper_policy(dropped: str = "dropped from the accuracy", families: Iterable[str] | None = None) -> str:
    """What the paper's policy does with an answer that is missing: ``NIAH dropped from the accuracy, CWE counted
    wrong`` (each family as its scoring rule says: ``Rule.null_dropped``), for the ``families`` named (the report's;
    None: every registered one)."""
    named = FAMILIES if families is None else [name for name in FAMILIES if name in families]
    drops = {FAMILIES[name].label: get_rule(FAMILIES[name].scoring_rule).null_dropped for name in named}
    parts = [("/".join(label for label, d in drops.items() if d == want), text)
             for want, text in ((True, dropped), (False, "counted wrong"))]
    return ", ".join(f"{labels} {text}" for labels, text in parts if labels)


def paper_truncation(families: list[str]) -> str:
    """What the paper's policy does with a length-cut answer, family by family: treated as no response, except
    where the family's rule scores a cut answer as written (``Rule.cut_scored``: RULER's)."""
    as_written = [name for name in families if name in FAMILIES and get_rule(FAMILIES[name].scoring_rule).cut_scored]
    others = [name for name in families if name not in as_written]
    parts = [f"treated as no response ({paper_policy('dropped', others)})"] if others or not as_written else []
    if as_written:
        parts.append(f"{'/'.join(FAMILIES[name].label for name in as_written)} scored as written (RULER's rule)")
    return "paper policy: " + "; ".join(parts)


def _truncation_note(report: Report, document: ScoresDocument) -> str:
    t, options = document.finish_reason_length, report.options
    if options.missing_policy == "upstream":
        policy = "upstream policy: dropped for every task"
    else:
        policy = {"paper": paper_truncation(list(t.by_family)),
                  "score": "scored as written", "wrong": "counted wrong for every task"}[options.truncation]
    answered = sum(r.prediction is not None for r in report.scored)
    if answered and t.unknown == answered:
        return (f"finish_reason: not recorded for any of the {answered} outputs (e.g. lm-eval samples): "
                f"outputs cut at the token limit cannot be told apart and are scored as written")
    note = f"finish_reason=length: {t.count} ({per_family(t.by_family)}); {policy}"
    records = "records" if t.unknown == 1 else "record"
    return note + (f"; {plural(t.unknown, 'output')} {records} no finish_reason (scored as written)" if t.unknown else "")


def _empty_notes(document: ScoresDocument) -> list[str]:
    empty = [g for g in document.groups if g.counted == 0 and g.total]
    reasons: dict[str, list[str]] = {}
    for g in empty:
        reasons.setdefault(g.empty_reason or "", []).append(g.config)
    lines = []
    for reason, configs in reasons.items():
        shown = ", ".join(configs[:4]) + (f" and {len(configs) - 4} more (scores.csv)" if len(configs) > 4 else "")
        have = "has" if len(configs) == 1 else "have"
        lines.append(f"empty: {plural(len(configs), 'config')} {have} no counted row, {reason}: {shown}")
    if any(g.truncated for g in empty):
        lines.append("  outputs cut at the token limit: rerun with a larger --max-tokens (`oneruler run`), "
                     "or score the cut text with --truncated score")
    return lines


ROOM_SHOWN = 8  # configs listed in the console (every one is in scores.csv's over_limit)


def room_lines(room: AnswerRoom) -> list[str]:
    """The configs with rows whose gold answer is longer than the run allowed, worst first: the ceiling each puts
    on the accuracy (nothing when every answer fits)."""
    if room.unavailable:
        return [f"answer room: not counted: {room.unavailable}; set TIKTOKEN_CACHE_DIR to a folder holding it"]
    over = {c: n for c, n in room.over.items() if n}
    if not over:
        return []
    worst = sorted(over, key=lambda c: (-over[c] / room.rows[c], c))
    lines = [f"answer room: {plural(sum(over.values()), 'row')} in {plural(len(over), 'config')} have a gold answer "
             f"longer than the run's limit of new tokens (counted in {room.tokenizer} tokens): they cannot be answered "
             f"right; `oneruler run --max-tokens cwe=200` gives CWE rows room (per config: scores.csv's over_limit)"]
    for c in worst[:ROOM_SHOWN]:
        low, high = room.limits[c]
        limit = f"{low}" if low == high else f"{low}–{high}"
        lines.append(f"  {c}: {over[c]} of {room.rows[c]} rows over {limit} tokens, so at most "
                     f"{100 * (room.rows[c] - over[c]) / room.rows[c]:.1f} % can be right")
    if len(worst) > ROOM_SHOWN:
        lines.append(f"  … and {plural(len(worst) - ROOM_SHOWN, 'more config')}")
    return lines
