"""``oneruler score PREDICTIONS --dataset DIR_OR_REPO``: the paper's accuracies and a report folder."""

from __future__ import annotations

from pathlib import Path

import click

from ..scoring.core import TRUNCATION_POLICIES
from .handler import cli_errors
from .options import datasets_cache_option


@click.command("score")
@click.argument("predictions", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--dataset", required=True, help="Exported dataset folder or Hub repo id.")
@click.option("--strict", is_flag=True, help="Whole-token matching of none words and CWE words (see docs/scoring.md).")
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Report folder [default: <PREDICTIONS without suffix>-report beside the file].")
@click.option("--truncated", "truncation", type=click.Choice(TRUNCATION_POLICIES), default="paper",
              show_default=True,
              help="Outputs with finish_reason 'length': paper = no response (NIAH dropped, CWE wrong); "
                   "score = score the text; wrong = wrong for every task.")
@datasets_cache_option
@cli_errors
def score_command(predictions: Path, dataset: str, strict: bool, out_dir: Path | None, truncation: str,
                  datasets_cache: str | None) -> None:
    """Score PREDICTIONS.jsonl ({"id": "<config>/<index>", "prediction": ...} per line) against the dataset."""
    import datasets

    from ..report.aggregate import score_predictions
    from ..report.predictions import first_per_config, read_predictions
    from ..report.render import render_errors, render_notes, render_table, write_report
    from ..report.rows import load_rows

    # one progress bar per config and card warnings would bury the report and the error line
    datasets.logging.set_verbosity_error()
    datasets.disable_progress_bars()
    preds = read_predictions(predictions)
    rows = load_rows(dataset, first_per_config(preds), cache_dir=datasets_cache)
    report = score_predictions(preds, rows, strict=strict, truncation=truncation)
    out_dir = out_dir or predictions.with_name(predictions.stem + "-report")
    click.echo(f"ONERULER accuracy (%), {'strict' if strict else 'paper'} mode")
    click.echo(render_table(report))
    click.echo("\nerror types (examples in the accuracy):")
    click.echo(render_errors(report))
    click.echo("\n" + render_notes(report))
    written = write_report(report, out_dir)
    click.echo(f"\nwrote {', '.join(p.name for p in written)} to {out_dir}")
