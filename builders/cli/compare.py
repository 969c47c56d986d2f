"""``oneruler compare REPORT_DIR [REPORT_DIR ...] --out DIR``: models side by side, paired tests, paper-style figures.

Exit codes: 0 written; 2 bad input (a folder without scores.json or examples.jsonl, an unreadable report).
"""

from __future__ import annotations

from pathlib import Path

import click

from .handler import cli_errors
from .options import depth_bins_option, depth_unit_option, ruler_published_option, threshold_option


@click.command("compare")
@click.argument("report_dirs", nargs=-1, required=True, metavar="REPORT_DIR [REPORT_DIR ...]",
                type=click.Path(file_okay=False, path_type=Path))
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False, path_type=Path),
              help="Folder for the tables (CSV, Markdown) and figures (PNG).")
@threshold_option
@depth_bins_option
@depth_unit_option
@ruler_published_option
@cli_errors
def compare_command(report_dirs: tuple[Path, ...], out_dir: Path, threshold: float, depth_bins: int | None,
                    depth_unit: str | None, ruler_published: tuple[str, ...]) -> None:
    """Compare report folders of `oneruler score` (one per model): tables by task × length and by language with
    95 % intervals, effective context lengths, RULER's table of the reports holding RULER's rows (with RULER's
    published rows: --ruler-published), paired tests of every pair of models that scored the same rows
    (paired.csv, difference heatmaps), per-model heatmaps, depth heatmaps, language-group curves, and "none"
    errors by language."""
    from ..report.compare.folder import write_comparison
    from ..report.compare.load import load_reports
    from ..report.report_data import ReportSettings
    from ..spec.ruler_published import select_published

    published = select_published(ruler_published)
    reports = load_reports(list(report_dirs), ReportSettings(threshold / 100, depth_bins, depth_unit))
    text, written = write_comparison(reports, out_dir, published)
    click.echo(text)
    click.echo(f"\nwrote {', '.join(p.name for p in written)} to {out_dir}")
