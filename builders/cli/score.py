"""``oneruler score PREDICTIONS --dataset DIR_OR_REPO``: the paper's accuracies and a report folder.

Exit codes: 0 scored; 1 some rows of the configs scored have no prediction line (a partial run;
the report is still written) unless ``--allow-partial``; 2 bad input.
"""

from __future__ import annotations

from pathlib import Path

import click

from ..scoring import MISSING_POLICIES, TRUNCATION_POLICIES
from .handler import cli_errors, echo
from .options import depth_bins_option, depth_unit_option, hub_cache_option, threshold_option


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
@click.option("--missing-policy", "missing_policy", type=click.Choice(MISSING_POLICIES), default="paper", show_default=True,
              help="Null outputs: paper = NIAH dropped, CWE wrong; upstream = null and length-truncated "
                   "outputs dropped for every task (the authors' evaluate.py).")
@click.option("--keep-think", is_flag=True, help="Score a leading <think>...</think> block as part of the answer.")
@click.option("--answer-tag", is_flag=True, help="Score only the last <Answer>...</Answer> block (upstream's DeepSeek rule).")
@click.option("--allow-partial", is_flag=True, help="Exit 0 even if some rows of the configs have no prediction line.")
@click.option("--dataset-id", default=None, metavar="ORG/NAME@COMMIT",
              help="The Hub dataset and commit a local --dataset folder was pushed as: the identity of "
                   ".eval_results/oneruler.yaml (a Hub --dataset has its own).")
@threshold_option
@depth_bins_option
@depth_unit_option
@hub_cache_option
@cli_errors
def score_command(predictions: Path, dataset: str, strict: bool, out_dir: Path | None, truncation: str, missing_policy: str,
                  keep_think: bool, answer_tag: bool, allow_partial: bool, dataset_id: str | None, threshold: float,
                  depth_bins: int | None, depth_unit: str | None, hub_cache: str | None) -> None:
    """Score PREDICTIONS.jsonl ({"id": "<config>/<index>", "prediction": ...} per line) against the dataset."""
    from ..report.pipeline import score_and_report
    from ..report.score.options import ScoringOptions
    from ..run.files.meta import read_meta

    options = ScoringOptions(strict, truncation, missing_policy, not keep_think, answer_tag)
    out_dir = out_dir or predictions.with_name(predictions.stem + "-report")
    score_and_report(predictions, dataset, out_dir, options, meta=read_meta(predictions), hub_cache=hub_cache,
                     allow_partial=allow_partial, threshold=threshold / 100, depth_bins=depth_bins,
                     depth_unit=depth_unit, dataset_id=dataset_id, echo=echo)
