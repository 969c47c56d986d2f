"""What ``publish`` sends, made from one consistent reading of a report folder and checked: ``checked_report``.

The report's files are read under the folder's lock (``report/render/folder.py:report_lock``, the one
``score`` writes under), so a publication never pairs one scoring's values with another's details; a
folder the lock cannot be taken in (read-only) is read twice and must not change in between. Nothing
is published as it lies on disk:

- the results are made again from ``scores.json`` and ``examples.jsonl`` by the function ``score``
  wrote them with (``report/hub_results``), and the report's ``.eval_results/oneruler.yaml`` must be
  exactly that (a hand-edited value, notes, revision, a ``verifyToken`` or ``source`` we did not
  write: refused, naming the field); ``examples.jsonl`` must give the counts and accuracies of ``scores.json``
  (a graded config's mean credit, RULER's) and its RULER table row (``ruler_table``: every column, interval and
  the effective length, computed again), and ``details.parquet`` the verdicts and credit (``score``) of
  ``examples.jsonl``, row for row;
- every value is a finite number within 0–100, the dataset is a Hub repo id and the revision the
  40-hex commit the rows were scored at;
- no file is reached through a link that leaves the folder.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Callable

from ..base.errors import OneRulerError
from ..export.hub import check_repo_id
from ..report.documents.examples_jsonl import read_examples
from ..report.documents.scores_json import ScoresDocument, read_scores
from ..report.hub_results.details import DETAILS_FILE, read_details, row_score
from ..report.hub_results.eval_results import (EVAL_RESULTS_FILE, HUB_DATASET_KEY, HubIdentity, parse_eval_results,
                                                result_entries)
from ..report.hub_results.values import LeaderboardValue, leaderboard_values, partly_covered
from ..report.render.folder import report_lock
from ..report.report_data import ABSOLUTE_THRESHOLD, Report
from ..report.score.records import Record
from ..report.views.ruler_table import ruler_rows
from ..report.views.summaries import summarize
from ..spec.leaderboards import LEADERBOARDS

FILES = ("scores.json", "examples.jsonl", EVAL_RESULTS_FILE, DETAILS_FILE)
_COMMIT = re.compile(r"[0-9a-f]{40}")


@dataclass
class CheckedReport:
    """A report read once and checked: its scores.json, records, leaderboard values, results and details."""

    folder: Path
    document: ScoresDocument
    report: Report
    values: list[LeaderboardValue]
    entries: list  # the results as made again (EvalResultEntry), the file's own when checked equal
    identity: HubIdentity
    details: Any = None  # the details table (pyarrow), when asked for


def _inside(folder: Path, name: str) -> None:
    path = folder / name
    if path.is_symlink() or path.exists():
        resolved, root = path.resolve(), folder.resolve()
        if not resolved.is_relative_to(root):
            raise OneRulerError(f"{path}: a link to {resolved}, outside the report folder; a report publishes its own "
                                f"files only: copy the report instead of linking into it")
        if resolved.exists() and not resolved.is_file():
            raise OneRulerError(f"{path}: is a folder, not a file; rescore the predictions (`oneruler score`) "
                                f"to write it again")


def _digests(folder: Path) -> dict[str, str | None]:
    out = {}
    for name in FILES:
        path = folder / name
        out[name] = hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None
    return out


def read_consistently(folder: Path, read: Callable[[], Any], log: Callable[[str], None] | None = None) -> Any:
    """``read()`` under the report folder's lock (waiting for a ``score`` writing into it), or, where the lock cannot
    be taken (a read-only folder), between two digests of its files that must agree."""
    if not folder.is_dir():
        raise OneRulerError(f"report folder not found: {folder}")
    for name in FILES:
        _inside(folder, name)
    lock = report_lock(folder, log)
    try:
        lock.acquire()
    except OSError:  # not ours to write into: nobody can be rewriting it through us either; check it did not change
        before = _digests(folder)
        result = read()
        if _digests(folder) != before:
            raise OneRulerError(f"{folder}: changed while it was read (is `oneruler score` writing into it?): "
                                f"publish once it is done") from None
        return result
    try:
        return read()
    finally:
        lock.release()


def hub_identity_of(folder: Path, document: ScoresDocument) -> HubIdentity | None:
    """The Hub dataset and commit the rows were scored as: the Hub dataset's own, or a local export's given one."""
    dataset = document.dataset
    given = document.extra.get(HUB_DATASET_KEY)
    name, revision = (dataset.name, dataset.revision) if dataset is not None and dataset.revision is not None else (
        (given.get("id"), given.get("revision")) if isinstance(given, dict) else (None, None))
    if name is None and revision is None:
        return None
    if not isinstance(revision, str) or not _COMMIT.fullmatch(revision):
        raise OneRulerError(f"{folder}/scores.json: dataset revision {revision!r} is not the 40-hex commit the rows "
                            f"were read at; rescore the predictions against the Hub dataset")
    check_repo_id(str(name), "dataset")
    return HubIdentity(str(name), revision)


def _records_agree(folder: Path, document: ScoresDocument, records: list[Record]) -> None:
    """examples.jsonl gives scores.json's counts and accuracy (a graded config's mean credit), config by config."""
    by_config: dict[str, list[Record]] = {}
    for r in records:
        if not r.no_line:
            by_config.setdefault(r.config, []).append(r)
    for group in document.groups:
        made = summarize(by_config.get(group.config, []))
        have, want = (made["passed"], made["counted"]), (group.passed, group.counted)
        if have != want:
            raise OneRulerError(f"{folder}: scores.json and examples.jsonl disagree on {group.config} ({want[0]} of "
                                f"{want[1]} passed in one, {have[0]} of {have[1]} in the other): one was edited "
                                f"after scoring; rescore the predictions (`oneruler score`)")
        if made["accuracy"] != group.accuracy:
            raise OneRulerError(f"{folder}: scores.json and examples.jsonl disagree on {group.config} (accuracy "
                                f"{group.accuracy!r} in one, {made['accuracy']!r} in the other): one was edited after "
                                f"scoring; rescore the predictions (`oneruler score`)")


def _ruler_table_agrees(folder: Path, document: ScoresDocument, report: Report) -> None:
    """scores.json's RULER table row is the one examples.jsonl gives (every column, interval, the effective length)."""
    written = [row.to_json() for row in document.ruler_table or []]
    threshold = written[0]["threshold"] / 100 if written else ABSOLUTE_THRESHOLD
    made = [row.to_json() for row in ruler_rows(report.columns, threshold)]
    if made == written:
        return
    if len(made) != len(written) or any(m["tokenizer"] != w["tokenizer"] for m, w in zip(made, written)):
        what = f"rows for {[w['tokenizer'] for w in written]}, examples.jsonl gives {[m['tokenizer'] for m in made]}"
    else:
        what = next(_ruler_difference(m, w) for m, w in zip(made, written) if m != w)
    raise OneRulerError(f"{folder}/scores.json: its RULER table (ruler_table) is not the one examples.jsonl gives "
                        f"({what}): one was edited after scoring; rescore the predictions (`oneruler score`)")


def _ruler_difference(made: dict[str, Any], written: dict[str, Any]) -> str:
    """The first field of one tokenizer's RULER row that differs, in words."""
    for have, want in zip(written["columns"], made["columns"]):
        if have != want:
            return f"{made['tokenizer']} {want['column']}: {have} written, {want} given"
    key = next((k for k in made if k != "columns" and made[k] != written.get(k)), "columns")
    return f"{made['tokenizer']} {key}: {written.get(key)!r} written, {made.get(key)!r} given"


def _entry_fields(entry) -> dict[str, Any]:
    return {f.name: getattr(entry, f.name) for f in fields(entry)}


def check_file_equal(folder: Path, made: list, text: str) -> None:
    """The report's results file holds exactly the results made again from scores.json and examples.jsonl."""
    try:
        found = parse_eval_results(text)
    except ValueError as exc:
        raise OneRulerError(f"{folder / EVAL_RESULTS_FILE}: {exc}") from None
    by_task = {e.task_id: _entry_fields(e) for e in made}
    for entry in found:
        have = _entry_fields(entry)
        want = by_task.get(have.get("task_id"))
        if want is None:
            raise OneRulerError(f"{folder / EVAL_RESULTS_FILE}: holds a result for {have.get('task_id')!r}, which the "
                                f"report's scores do not give; it was edited after scoring: rescore the predictions")
        wrong = next((k for k in want if want[k] != have.get(k)), None)
        if wrong is not None:
            raise OneRulerError(f"{folder / EVAL_RESULTS_FILE}: {wrong} of {want['task_id']} is {have.get(wrong)!r}, the "
                                f"report's scores give {want[wrong]!r}: the file was edited after scoring (publish "
                                f"never sends a value, revision or field it did not make); rescore the predictions")
    if len(found) != len(made):
        missing = sorted(set(by_task) - {e.task_id for e in found})
        raise OneRulerError(f"{folder / EVAL_RESULTS_FILE}: lacks the result for {', '.join(missing)} that the report's "
                            f"scores give; rescore the predictions (`oneruler score`)")


def check_values(folder: Path, entries: list) -> None:
    """Every value a finite number within 0–100."""
    for e in entries:
        if isinstance(e.value, bool) or not isinstance(e.value, (int, float)) or not math.isfinite(e.value) \
                or not 0 <= e.value <= 100:
            raise OneRulerError(f"{folder}: value {e.value!r} of {e.task_id} is not a percentage within 0–100")


def check_details(folder: Path, records: list[Record], table) -> None:
    """details.parquet holds one row per scored record, with its verdicts and its credit (``score``)."""
    want = {r.id: (bool(r.paper.passed), bool(r.paper.counted), row_score(r.paper)) for r in records if not r.no_line}
    try:
        have = dict(zip(table.column("id").to_pylist(), zip(*(table.column(name).to_pylist()
                                                               for name in ("correct", "counted", "score")))))
    except KeyError as exc:
        raise OneRulerError(f"{folder / DETAILS_FILE}: lacks the column {exc}; rescore the predictions") from None
    if len(have) != table.num_rows or have != want:
        wrong = next((i for i in sorted(set(want) | set(have)) if want.get(i) != have.get(i)), "the row count")
        raise OneRulerError(f"{folder / DETAILS_FILE}: does not hold the verdicts of examples.jsonl (first at {wrong}): "
                            f"the files come from different scorings or were edited; rescore the predictions")


def publishable(folder: Path, document: ScoresDocument, report: Report, values: list[LeaderboardValue]) -> HubIdentity:
    """The Hub identity of a report that has results to publish; the one error saying why it has none (no leaderboard
    covered in full comes first: no identity would change that; each board whose pool it holds part of, with what
    it lacks), or why they cannot be checked (fail closed)."""
    if not any(v.value is not None for v in values):
        shown = sorted([*values, *partly_covered(report, values)], key=lambda v: LEADERBOARDS.index(v.served.board))
        why = "; ".join(f"{v.id}: {v.shortfall() or 'nothing counted'}" for v in shown) or \
            "its configs hold no config of any leaderboard's pool"
        raise OneRulerError(f"{folder}: covers no leaderboard in full ({why}), so it has no results to publish: finish "
                            f"the run (every row of a leaderboard's pool) and rescore")
    identity = hub_identity_of(folder, document)
    if identity is None and document.dataset is None:
        raise OneRulerError(f"{folder}/scores.json records no dataset, so its results have no Hub identity: rescore "
                            f"the predictions (`oneruler score PREDICTIONS --dataset ORG/NAME`)")
    if identity is None:
        name = document.dataset.name
        raise OneRulerError(f"{folder}: no Hub identity: its rows come from the local export {name}; push the export "
                            f"(`oneruler push`) and score the Hub copy, or rescore with --dataset-id ORG/NAME@COMMIT")
    if not document.manifest_sha256():
        raise OneRulerError(f"{folder}: records no manifest sha256 of the rows it scored, so nothing can show they are "
                            f"those of {identity}; rescore the predictions against that dataset (it must hold the "
                            f"manifest.json `oneruler build` writes)")
    return identity


def read_checked(folder: Path, with_details: bool) -> CheckedReport:
    """Read and check the report (the caller holds its lock, see ``checked_report``)."""
    document = read_scores(folder)
    records = read_examples(folder)
    if not records:
        raise OneRulerError(f"{folder}: examples.jsonl holds no example; rescore the predictions")
    _records_agree(folder, document, records)
    extra = {key: document.extra.get(key) for key in ("run", "answer_room")}  # what the notes are made from
    report = Report(document.options, tuple(records), dataset=document.dataset, extra=extra)
    _ruler_table_agrees(folder, document, report)
    values = leaderboard_values(report)
    identity = publishable(folder, document, report, values)
    entries = result_entries(report, values, identity)
    check_values(folder, entries)
    results = folder / EVAL_RESULTS_FILE
    if not results.is_file():
        raise OneRulerError(f"{folder}: has no {EVAL_RESULTS_FILE}, though its scores give results; rescore the "
                            f"predictions (`oneruler score`) to write it")
    check_file_equal(folder, entries, results.read_text(encoding="utf-8"))
    details = read_details(folder) if with_details else None
    if details is not None:
        check_details(folder, records, details)
    return CheckedReport(folder, document, report, values, entries, identity, details)


def checked_report(folder: Path, with_details: bool, log: Callable[[str], None] | None = None) -> CheckedReport:
    """The report read consistently (``read_consistently``) and checked (module docstring)."""
    return read_consistently(folder, lambda: read_checked(folder, with_details), log)
