"""``oneruler publish`` (a report's results into a model repo) and ``oneruler leaderboard`` (Hub + local reports).

The token is ``HF_TOKEN`` or the Hub login, given to ``huggingface_hub`` only: it appears in no output.
"""

from __future__ import annotations

from pathlib import Path

import click

from .handler import cli_errors
from .options import ruler_published_option


@click.command("publish")
@click.argument("report", type=click.Path(file_okay=False, path_type=Path))
@click.option("--model", required=True, metavar="ORG/MODEL", help="The model repository the results belong to.")
@click.option("--details", default=None, metavar="ORG/NAME",
              help="Also push the per-row details as this dataset (created if missing); its URL becomes the results' source.")
@click.option("--no-pr", is_flag=True, help="Commit to the model repo's main branch instead of opening a pull request "
                                           "(needs write access).")
@click.option("--dry-run", is_flag=True, help="Show the files and where they would go; contact nothing.")
@cli_errors
def publish_command(report: Path, model: str, details: str | None, no_pr: bool, dry_run: bool) -> None:
    """Publish REPORT's .eval_results/oneruler.yaml to the model's Hub repo (a pull request by default)."""
    from ..publish.publish import plan_publication, publish

    plan = plan_publication(report, model, details, create_pr=not no_pr, log=lambda line: click.echo(line, err=True))
    if dry_run:
        click.echo("dry run: nothing checked on the Hub, nothing sent. Would send:")
        for line in plan.describe():
            click.echo(line)
        return
    click.echo(publish(plan, click.echo))


@click.command("leaderboard")
@click.argument("reports", nargs=-1, type=click.Path(file_okay=False, path_type=Path), metavar="[REPORT ...]")
@click.option("--dataset", default=None, metavar="ORG/NAME", help="The benchmark dataset whose Hub leaderboard to merge in.")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for leaderboard.csv, leaderboard.md and leaderboard.png.")
@ruler_published_option
@cli_errors
def leaderboard_command(reports: tuple[Path, ...], dataset: str | None, out_dir: Path,
                        ruler_published: tuple[str, ...]) -> None:
    """ONERULER's leaderboards: the Hub's published results for --dataset merged with local REPORT folders (and, in
    the `ruler` column, RULER's published Avg. of the models --ruler-published names)."""
    from ..publish.leaderboard import gather
    from ..publish.leaderboard_files import table_text, write_board
    from ..spec.ruler_published import select_published

    board = gather(dataset, list(reports), select_published(ruler_published))
    for note in board.notes:
        click.echo(note, err=True)
    if not board.standings:
        click.echo("no result to show: no report covers a leaderboard in full and the Hub gave none")
    click.echo(table_text(board))
    written = write_board(board, out_dir)
    click.echo(f"wrote {', '.join(p.name for p in written)} to {out_dir}")
    if not any(p.name == "leaderboard.png" for p in written):
        click.echo("no leaderboard.png: no model has a value on any leaderboard (a local report has one only when it "
                   "covers a leaderboard's pool in full: docs/publishing.md)")
