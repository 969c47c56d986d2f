"""``score_and_report``: the whole of ``oneruler score`` (and of ``oneruler run --report``) below the CLI.

Read the predictions, load the rows they refer to, score, print the tables and notes, write the
report folder; a partial run raises ``PartialRun`` (exit code 1) after the report is written.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Callable

from ..base.errors import OneRulerError, named_setting
from ..base.forked import warm_imports
from ..base.text import plural
from ..dataset.source import DatasetSource
from ..spec.run_meta import RunMeta
from .hub_results.eval_results import HUB_DATASET_KEY, HubIdentity, parse_dataset_id
from .hub_results.report_files import HubResults, hub_identity, hub_results
from .render.folder import FIGURE_MODULES, draw_figures, report_files, report_lock, write_files
from .render.notes import render_notes, room_lines
from .render.ruler import GRADED_NOTE, RULER_TITLE, LabelledRow, ruler_table_text
from .render.tables import render_effective, render_errors, render_sweep, render_table
from .report_data import ABSOLUTE_THRESHOLD, Report, ReportSettings, score_predictions
from .score.answer_room import AnswerRoom, answer_room, encoding_of
from .score.needles import DepthUnit
from .score.options import ScoringOptions
from .score.inspect_log import logged_run, logged_status
from .score.predictions import UNSCORED_STATUSES, first_per_config, read_predictions, unscored
from .score.rows import load_rows
from .views.document import scores_document
from .views.effective import effective_lengths
from .views.summaries import partial_configs


class PartialRun(OneRulerError):
    """Some rows of the configs scored have no prediction line (an unfinished run). Exit code 1."""

    exit_code = 1


def score_and_report(predictions: Path, dataset: str, out_dir: Path, options: ScoringOptions | None = None, *,
                     meta: RunMeta | None = None, hub_cache: str | None = None, allow_partial: bool = False,
                     threshold: float = ABSOLUTE_THRESHOLD, depth_bins: int | None = None,
                     depth_unit: DepthUnit | None = None, dataset_id: str | None = None,
                     echo: Callable[[str], None] = print) -> Report:
    """Score, print the tables (through ``echo``) and write the report folder.

    Lines that ``oneruler run`` recorded as failed or skipped hold no model output: they are left
    out like absent lines (the config is partial). ``meta`` (the run's sidecar meta) is copied into
    scores.json; when it names this Hub dataset, the rows are read at the commit the run sent (not
    main's head). ``threshold`` (fraction) is the absolute effective-length threshold; ``depth_unit`` the depth
    view's unit (None: tokens when the dataset records them, else sentences). ``dataset_id``
    (``ORG/NAME@COMMIT``) names the Hub copy of a local export, for ``.eval_results/oneruler.yaml``.
    """
    options = options or ScoringOptions()
    given = parse_dataset_id(dataset_id) if dataset_id is not None else None
    preds = read_predictions(predictions)
    meta = meta if meta is not None else logged_run(Path(predictions))  # a run's, or what an Inspect log records
    sent = meta.dataset if meta is not None else None
    revision = sent.revision if sent is not None and sent.name == dataset else None
    source = DatasetSource.open(dataset, revision, "a revision", hub_cache=hub_cache)
    identity = source.identity()
    hub = hub_identity(identity, given)
    warm = warm_imports(FIGURE_MODULES, lambda: encoding_of(meta))  # while the rows are read (figures, answer room)
    mapping = source.configs()
    rows = load_rows(source, first_per_config(preds), mapping)
    left_out = unscored(preds)
    report = score_predictions({k: p for k, p in preds.items() if k not in left_out}, rows, options,
                               ReportSettings(threshold, depth_bins, depth_unit), identity,
                               copied_extra(meta, left_out, given))
    warm.join()  # never fork in the middle of an import
    figures = draw_figures(report)  # drawn in forked children while the rest is computed and printed
    try:
        room = answer_room(rows, meta)
        report.extra["answer_room"] = room.to_json()  # scores.json's, and the Hub notes' ceiling
        _print_and_write(report, out_dir, left_out, echo, hub_results(report, mapping, preds, rows, hub),
                         room, figures)
    finally:
        for child in figures.values():
            child.close()
    check_finished(Path(predictions), allow_partial, echo)
    partial = partial_configs(report.records)
    if partial and not allow_partial:
        missing_lines = sum(total - have for have, total in partial.values())
        example = ", ".join(f"{name} {have}/{total}" for name, (have, total) in sorted(partial.items())[:3])
        accept = named_setting("allow_partial")
        have = "has" if missing_lines == 1 else "have"
        raise PartialRun(f"{predictions}: {plural(missing_lines, 'row')} of {plural(len(partial), 'config')} {have} "
                         f"no prediction line (e.g. {example}); the run is unfinished: finish it, or pass {accept}")
    return report


def copied_extra(meta: RunMeta | None, left_out: dict[str, str], given: HubIdentity | None) -> dict[str, Any]:
    """What scores.json copies as is: the run's meta and the lines not scored, the Hub copy of a local export."""
    extra: dict[str, Any] = {}
    if meta is not None or left_out:
        extra["run"] = meta.to_json() if meta is not None else None
        extra["unscored_lines"] = {s: sorted(i for i, v in left_out.items() if v == s) for s in UNSCORED_STATUSES}
    if given is not None:  # the Hub copy of a local export: publish reads it here, not from the results file
        extra[HUB_DATASET_KEY] = {"id": given.dataset_id, "revision": given.revision}
    return extra


def check_finished(predictions: Path, allow_partial: bool, echo: Callable[[str], None]) -> None:
    """An Inspect log whose run did not finish (status cancelled, error) is a partial run (said with allow_partial)."""
    status = logged_status(predictions)
    if status in (None, "success"):
        return
    unfinished = (f"{predictions}: the Inspect log's status is {status!r}, not 'success': its run did not finish "
                  f"(its samples may be a part, or answers of a run stopped midway)")
    if not allow_partial:
        raise PartialRun(f"{unfinished}; rerun it, or pass {named_setting('allow_partial')}")
    echo(f"note: {unfinished}")


def _print_and_write(report: Report, out_dir: Path, left_out: dict[str, str], echo: Callable[[str], None],
                     hub: HubResults, room: AnswerRoom, figures: dict | None = None) -> None:
    """Print the tables and notes, write the report folder and say what was written."""
    document = scores_document(report)
    effective = effective_lengths(report.columns, report.settings.threshold)
    echo(f"ONERULER accuracy (%) [95 % interval], {'strict' if report.strict else 'paper'} mode"
         + (f"; {GRADED_NOTE}" if report.columns.graded.any() else ""))
    echo(render_table(report, document))
    sweep = render_sweep(report)
    if sweep:
        echo("\n" + sweep)
    if document.ruler_table:
        echo(f"\n{RULER_TITLE}\n" + ruler_table_text([LabelledRow(None, row) for row in document.ruler_table]))
    echo("\neffective context length (RULER §3; per language in effective_length.csv):")
    echo(render_effective(effective))
    echo("\nerror types (examples in the accuracy):")
    echo(render_errors(document.errors))
    echo("\n" + render_notes(report, document))
    for line in room_lines(room):
        echo(line)
    if left_out:
        counts = {s: sum(v == s for v in left_out.values()) for s in UNSCORED_STATUSES}
        echo(f"not scored: {counts['failed']} row(s) the run recorded as failed, {counts['skipped']} skipped "
             f"(prompt over the server's window)")
    echo("\n" + "\n".join(hub.lines))
    files = {**report_files(report, document, effective, figures),
             **{name: data for name, data in hub.files.items() if data is not None}}
    with report_lock(out_dir, log=lambda line: print(line, file=sys.stderr)):
        written = write_files(out_dir, files)
        for name in (name for name, data in hub.files.items() if data is None):
            (out_dir / name).unlink(missing_ok=True)
    echo(f"\nwrote {', '.join(p.relative_to(out_dir).as_posix() for p in written)} to {out_dir}")
