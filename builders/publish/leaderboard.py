"""``oneruler leaderboard``: the published results of ONERULER on the Hub merged with local reports.

Hub part: the models on the dataset's Hub leaderboard (``HfApi.get_dataset_leaderboard``; the
client asks for the dataset's leaderboard as a whole, no task parameter), then each model's
results file (at its pull request when it is one), whose entries for this dataset give one value
per task (and the 95 % interval ``oneruler score`` wrote into the notes). Local part: every report
folder read back (``report/compare/load.py``) and valued by the same function as ``score``
(``report/hub_results/values.py``), with its interval. RULER's published rows (``--ruler-published``) add their
Avg. to the ``ruler`` column, marked as RULER's own numbers. Without ``--dataset``, with
``HF_HUB_OFFLINE`` set, or when the Hub cannot be reached, the Hub part is skipped and the reason
given; the local part never needs the network. A dataset the Hub does not know, or a token it refuses, is
an error. What the Hub serves is not trusted: a value that is not a finite percentage within 0–100
is left out, an interval that does not hold its value is dropped, a model published in several
pull requests is shown once (its merged result, else its newest pull request), each said in a note.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from ..base.errors import OneRulerError
from ..base.redact import redact_text
from ..report.compare.load import load_reports
from ..report.hub_results.eval_results import parse_eval_results
from ..report.hub_results.notes import noted_interval
from ..report.hub_results.values import leaderboard_values
from ..report.render.ruler import PUBLISHED_ORIGIN
from ..spec.leaderboards import LEADERBOARDS, RULER_AVG
from ..spec.ruler_published import CAVEAT, SOURCE, PublishedRow
from . import hub

RULER_BOARD = next(b.id for b in LEADERBOARDS if b.value == RULER_AVG)  # where RULER's published Avg. sits


@dataclass(frozen=True)
class Score:
    """One value in percent, with its 95 % interval when known."""

    value: float
    low: float | None = None
    high: float | None = None


@dataclass
class Standing:
    """One model's row: where it comes from and its value per leaderboard (task id → Score)."""

    model: str
    origin: str
    scores: dict[str, Score] = field(default_factory=dict)

    @property
    def where(self) -> str:
        """``hub``, ``local`` or ``published`` (RULER's README)."""
        if self.origin == PUBLISHED_ORIGIN:
            return "published"
        return "hub" if self.origin.startswith("hub") else "local"


@dataclass
class Board:
    """The merged leaderboard: its tasks (columns), rows best first, and what was skipped or could not be read."""

    tasks: list[str]
    standings: list[Standing]
    notes: list[str]


def score_of(value: float, notes: str | None) -> Score:
    """A published value, with the interval its notes state (``95 % CI a–b``) when they do."""
    return Score(float(value), *(noted_interval(notes) or ()))


def checked_score(value: Any, notes: str | None) -> tuple[Score | None, str | None]:
    """A published value as a Score, or None and why it is left out (not a finite percentage within 0–100); an
    interval that is reversed or does not hold the value is dropped, and said (the second item)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None, f"value {value!r} is not a number"
    if not math.isfinite(value) or not 0 <= value <= 100:
        return None, f"value {value!r} is not a percentage within 0–100"
    interval = noted_interval(notes)
    if interval is not None and not (0 <= interval[0] <= value <= interval[1] <= 100):
        return Score(float(value)), (f"its interval {interval[0]:g}–{interval[1]:g} does not hold its value {value:g}: "
                                     f"shown without it")
    return Score(float(value), *(interval or ())), None


def local_standings(paths: Sequence[Path]) -> list[Standing]:
    """One row per report folder, valued by ``leaderboard_values`` (complete leaderboards only)."""
    out = []
    for loaded in load_reports(list(paths)):
        scores = {}
        for v in leaderboard_values(loaded.report):
            if v.value is not None:
                ci = v.interval
                scores[v.id] = Score(v.value, *((round(100 * ci.low, 2), round(100 * ci.high, 2)) if ci else ()))
        out.append(Standing(loaded.label, f"local {loaded.path}", scores))
    return out


def one_per_model(results: list[hub.PublishedResult]) -> tuple[list[hub.PublishedResult], list[str]]:
    """One published result per model: its main branch's when it has one (merged), else its newest open pull
    request's; a note per model whose other pull requests are left out."""
    by_model: dict[str, list[hub.PublishedResult]] = {}
    for r in results:
        mine = by_model.setdefault(r.model, [])
        if all((o.pull_request, o.filename) != (r.pull_request, r.filename) for o in mine):
            mine.append(r)
    kept, notes = [], []
    for model, found in by_model.items():
        found.sort(key=lambda r: (r.pull_request is not None, -(r.pull_request or 0)))
        kept.append(found[0])
        if len(found) > 1:
            others = ", ".join(f"#{r.pull_request}" if r.pull_request else "main" for r in found[1:])
            shown = f"pull request #{found[0].pull_request}" if found[0].pull_request else "main"
            notes.append(f"{model}: shown once, from {shown}; also published in {others} (left out)")
    return kept, notes


def _standing(result: hub.PublishedResult, entries: list, notes: list[str]) -> Standing:
    origin = "hub, verified" if result.verified else (
        f"hub, pull request #{result.pull_request}" if result.pull_request else "hub")
    standing = Standing(result.model, origin)
    for e in entries:
        score, why = checked_score(e.value, e.notes)
        if why:
            notes.append(f"{result.model} ({origin}), {e.task_id}: {why}" + ("" if score else "; left out"))
        if score is not None:
            standing.scores[e.task_id] = score
    return standing


def hub_standings(dataset: str) -> tuple[list[Standing], list[str]]:
    """One row per model on the dataset's Hub leaderboard, and a note per results file that could not be read, per
    value left out or shown without its interval, per model published more than once."""
    results, notes = one_per_model(hub.published_results(dataset))
    standings = []
    for result in results:
        try:
            entries = _entries(hub.results_file(result), dataset)
        except OneRulerError as exc:
            notes.append(f"skipped {result.model}: {exc}")
            continue
        standing = _standing(result, entries, notes)
        if standing.scores:  # every value left out: no row (the notes say why)
            standings.append(standing)
    return standings, notes


def _entries(text: str, dataset: str) -> list:
    try:
        return [e for e in parse_eval_results(text) if e.dataset_id == dataset]
    except ValueError as exc:
        raise OneRulerError(f"its results file is {exc}") from None


def _order(standing: Standing, tasks: list[str]) -> tuple:
    first = next((standing.scores[t].value for t in tasks if t in standing.scores), None)
    return (first is None, -(first or 0.0), standing.model, standing.origin)


def published_standings(rows: Sequence[PublishedRow]) -> list[Standing]:
    """One row per RULER published model with an Avg.: that Avg. in the ``ruler`` column, no interval."""
    return [Standing(row.label, PUBLISHED_ORIGIN, {RULER_BOARD: Score(row.avg)}) for row in rows if row.avg is not None]


def gather(dataset: str | None, reports: Sequence[Path], published: Sequence[PublishedRow] = ()) -> Board:
    """The Hub's standings for ``dataset`` (if it can be asked), the local reports' and RULER's ``published`` rows,
    merged, best first."""
    standings, notes = local_standings(reports) + published_standings(published), []
    if published:
        notes.append(f"{PUBLISHED_ORIGIN}: {CAVEAT} ({SOURCE.url})")
    reason = "no --dataset given" if dataset is None else hub.offline_reason()
    if reason is None:
        try:
            found, unread = hub_standings(dataset)
            standings += found
            notes += unread
        except hub.HubUnreachable as exc:  # no answer, or only transient ones: go on with the local reports
            reason = str(exc)
    if reason is not None:
        notes.insert(0, f"Hub part skipped: {reason}; local reports only")
    present = {t for s in standings for t in s.scores}
    tasks = [b.id for b in LEADERBOARDS if b.id in present] + sorted(present - {b.id for b in LEADERBOARDS})
    standings.sort(key=lambda s: _order(s, tasks))
    return Board(tasks, standings, [redact_text(n) for n in notes])
