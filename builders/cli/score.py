"""``oneruler score PREDICTIONS --dataset DIR_OR_REPO``: the paper's accuracies and a report folder.

Exit codes: 0 scored; 1 some rows of the configs scored have no prediction line (a partial run;
the report is still written) unless ``--allow-partial``; 2 bad input.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..scoring.core import MISSING_POLICIES, TRUNCATION_POLICIES
from .handler import cli_errors, fail
from .options import datasets_cache_option


@click.command("score")
@click.argument("predictions", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dataset", required=True,
              help="Exported dataset folder or Hub repo id (read at the commit a `oneruler run` on it recorded, else main).")
@click.option("--strict", is_flag=True, help="Whole-token matching of none words and CWE words (see docs/scoring.md).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Report folder [default: <PREDICTIONS without suffix>-report beside the file].")
@click.option("--truncated", "truncation", type=click.Choice(TRUNCATION_POLICIES), default="paper",
              show_default=True,
              help="Outputs with finish_reason 'length': paper = no response (NIAH dropped, CWE wrong); "
                   "score = score the text; wrong = wrong for every task.")
@click.option("--missing-policy", "missing", type=click.Choice(MISSING_POLICIES), default="paper", show_default=True,
              help="Null outputs: paper = NIAH dropped, CWE wrong; upstream = null and length-truncated "
                   "outputs dropped for every task (the authors' evaluate.py).")
@click.option("--keep-think", is_flag=True, help="Score a leading <think>...</think> block as part of the answer.")
@click.option("--answer-tag", is_flag=True, help="Score only the last <Answer>...</Answer> block (upstream's DeepSeek rule).")
@click.option("--allow-partial", is_flag=True, help="Exit 0 even if some rows of the configs have no prediction line.")
@datasets_cache_option
@cli_errors
def score_command(predictions: Path, dataset: str, strict: bool, out_dir: Path | None, truncation: str, missing: str,
                  keep_think: bool, answer_tag: bool, allow_partial: bool, datasets_cache: str | None) -> None:
    """Score PREDICTIONS.jsonl ({"id": "<config>/<index>", "prediction": ...} per line) against the dataset."""
    from ..report.records import ScoringOptions

    if missing == "upstream" and truncation != "paper":
        fail(f"--truncated {truncation} has no effect with --missing-policy upstream (truncated outputs are dropped)")
    options = ScoringOptions(strict, truncation, missing, not keep_think, answer_tag)
    out_dir = out_dir or predictions.with_name(predictions.stem + "-report")
    score_and_report(predictions, dataset, out_dir, options, datasets_cache=datasets_cache, allow_partial=allow_partial)


def score_and_report(predictions: Path, dataset: str, out_dir: Path, options=None, *, datasets_cache: str | None = None,
                     allow_partial: bool = False) -> None:
    """Score, print the tables and write the report folder (shared by ``score`` and ``run --report``).

    Lines that ``oneruler run`` recorded as failed or skipped hold no model output: they are left
    out like absent lines (the config is partial). The run's sidecar meta is copied into scores.json;
    when it names this Hub dataset, the rows are read at the commit the run sent (not main's head).
    """
    from ..report.aggregate import score_predictions
    from ..report.predictions import UNSCORED_STATUSES, first_per_config, read_predictions, unscored
    from ..report.records import ScoringOptions
    from ..report.render import render_errors, render_notes, render_table, write_report
    from ..report.rows import load_rows
    from ..run.store import read_meta

    options = options or ScoringOptions()
    preds = read_predictions(predictions)
    meta = read_meta(predictions)
    sent = (meta or {}).get("dataset")
    revision = sent.get("revision") if isinstance(sent, dict) and sent.get("name") == dataset else None
    rows = load_rows(dataset, first_per_config(preds), cache_dir=datasets_cache, revision=revision)
    left_out = unscored(preds)
    report = score_predictions({k: p for k, p in preds.items() if k not in left_out}, rows, options)
    if meta is not None or left_out:
        report.extra["run"] = meta
        report.extra["unscored_lines"] = {s: sorted(i for i, v in left_out.items() if v == s) for s in UNSCORED_STATUSES}
    strict = options.strict
    click.echo(f"ONERULER accuracy (%), {'strict' if strict else 'paper'} mode")
    click.echo(render_table(report))
    click.echo("\nerror types (examples in the accuracy):")
    click.echo(render_errors(report))
    click.echo("\n" + render_notes(report))
    if left_out:
        counts = {s: sum(v == s for v in left_out.values()) for s in UNSCORED_STATUSES}
        click.echo(f"not scored: {counts['failed']} row(s) the run recorded as failed, {counts['skipped']} skipped "
                   f"(prompt over the server's window)")
    written = write_report(report, out_dir)
    click.echo(f"\nwrote {', '.join(p.name for p in written)} to {out_dir}")
    partial = report.partial()
    if partial and not allow_partial:
        missing_lines = sum(total - have for have, total in partial.values())
        example = ", ".join(f"{name} {have}/{total}" for name, (have, total) in sorted(partial.items())[:3])
        fail(f"{predictions}: {missing_lines} row(s) of {len(partial)} config(s) have no prediction line "
             f"(e.g. {example}); the run is unfinished: finish it, or pass --allow-partial", 1)
