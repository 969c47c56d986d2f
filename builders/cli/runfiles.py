"""``oneruler merge`` (shard files → one predictions file) and ``oneruler ingest`` (batch results → predictions).

Exit codes: 0 written (every row of the selection has a line); 1 written, but rows of the selection
have no line (a shard or a batch is missing: the report names them); 2 bad input (files of
different runs, an id answered twice differently, a batch output line that is not ours).
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from .handler import cli_errors, fail
from .options import echo_err


def _report_missing(missing: list[str], out: Path, what: str) -> None:
    if missing:
        fail(f"{out}: {len(missing)} row(s) of the selection have no line (e.g. {', '.join(missing[:3])}); {what}", 1)


@click.command("merge")
@click.argument("predictions", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="The merged PREDICTIONS.jsonl.")
@click.option("--dataset", default=None, help="Where the dataset is now, if not where the shards read it (same manifest).")
@cli_errors
def merge_command(predictions: tuple[Path, ...], out: Path, dataset: str | None) -> None:
    """Join the predictions files of `oneruler run --shard I/N` into one file in id order, with one meta."""
    from ..run.files.merge import merge

    result = merge(list(predictions), out, dataset)
    click.echo(f"merged {len(predictions)} file(s) into {out}: {result.lines.get('ok', 0)} answered, "
               f"{result.lines.get('failed', 0)} failed, {result.lines.get('skipped', 0)} skipped")
    if result.duplicates:
        echo_err(f"warning: {len(result.duplicates)} id(s) appear in two files with the same outcome, written once "
                 f"(e.g. {result.duplicates[0]})")
    if result.absent_shards:
        echo_err(f"warning: shard(s) {', '.join(map(str, result.absent_shards))} are not among the files")
    _report_missing(result.missing, out, "finish the shard runs that lack them and merge again")


@click.command("ingest")
@click.argument("results", nargs=-1, type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--requests", required=True, type=click.Path(dir_okay=False, path_type=Path),
              help="The --batch-requests FILE given to `oneruler run` (its FILE.meta.json is read; split files are "
                   "FILE-001.jsonl, ...).")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="PREDICTIONS.jsonl to write.")
@click.option("--batch-id", "batch_ids", multiple=True,
              help="Fetch the results of this batch (repeat; default with no RESULTS: the batches --submit created).")
@click.option("--base-url", default=None, envvar="OPENAI_BASE_URL", help="The Batch API's base URL [default: OpenAI's].")
@click.option("--wait", type=float, default=0.0, show_default=True, help="Seconds to wait for running batches.")
@click.option("--poll", type=float, default=30.0, show_default=True, help="Seconds between status checks.")
@click.option("--dataset", default=None, help="Where the dataset is now, if not where the requests were made from.")
@cli_errors
def ingest_command(results: tuple[Path, ...], requests: Path, out: Path, batch_ids: tuple[str, ...],
                   base_url: str | None, wait: float, poll: float, dataset: str | None) -> None:
    """Turn batch output files (OpenAI Batch API, `vllm run-batch -o`) into the predictions file `run` would write."""
    from ..run.batch.ingest import ingest, read_batch_meta

    files = list(results)
    if not files or batch_ids:
        from ..run.batch.api import fetch_results

        ids = list(batch_ids) or list(read_batch_meta(requests)[1].batches)
        if not ids:
            fail("no RESULTS files and no batch to fetch: give the batch output files, or --batch-id")
        files += fetch_results(ids, requests.parent, base_url, os.environ.get("OPENAI_API_KEY") or None, wait, poll,
                               echo_err)
    result = ingest(files, requests, out, dataset)
    click.echo(f"wrote {out}: {result.lines['ok']} answered, {result.lines['failed']} failed, "
               f"{result.lines['skipped']} skipped (do not fit the window)")
    if result.replaced:
        echo_err(f"note: {len(result.replaced)} row(s) failed in one output and were answered in another; the answers kept")
    for note, count in result.notes.items():
        echo_err(f"warning: {count} answer(s) {note}")
    _report_missing(result.missing, out, "their batch results are not among the files given")
