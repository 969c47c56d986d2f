"""``oneruler compare REPORT_DIR [REPORT_DIR ...] --out DIR``: models side by side, paper-style figures.

Exit codes: 0 written; 2 bad input (a folder without scores.json, an unreadable report).
"""

from __future__ import annotations

from pathlib import Path

import click

from .handler import cli_errors


@click.command("compare")
@click.argument("report_dirs", nargs=-1, required=True, metavar="REPORT_DIR [REPORT_DIR ...]",
                type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the tables (CSV, Markdown) and figures (PNG).")
@cli_errors
def compare_command(report_dirs: tuple[Path, ...], out_dir: Path) -> None:
    """Compare report folders of `oneruler score` (one per model): tables by task × length and by language,
    per-model heatmaps and language-group curves, and "none" errors by language."""
    from ..report.compare import load_reports, write_comparison

    reports = load_reports(list(report_dirs))
    text, written = write_comparison(reports, out_dir)
    click.echo(text)
    click.echo(f"\nwrote {', '.join(p.name for p in written)} to {out_dir}")
