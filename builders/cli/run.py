"""``oneruler run DATASET [CONFIG_GLOB ...] --base-url URL --model NAME --out PREDICTIONS.jsonl``.

Exit codes: 0 the run finished (failed rows within ``--max-failed``); 1 more rows failed than
``--max-failed`` allows (the run stopped; rerun to resume, ``--retry-failed`` to resend failures);
2 bad input, an unreachable server (every server, when several are given), or prompts that do not
fit the window (nothing sent). The API key is read from ``OPENAI_API_KEY`` only and never printed or
written. Options left unset keep the defaults of ``run/settings.py`` and ``run/request_settings.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..base.retry import RetryPolicy
from ..run.request_settings import APIS, MAX_TOKENS_PARAMS, REASONING_EFFORTS
from ..spec.presets import PRESETS
from ..run.settings import DEFAULT_CONCURRENCY, LOAD_TIMEOUT_S, ORDERS, RunSettings, ServerSettings, default
from .handler import cli_errors, echo, fail
from .options import hub_cache_option, echo_err, quiet_option

_RETRY = RetryPolicy()

SAMPLING_OPTIONS = [
    click.option("--preset", type=click.Choice(sorted(PRESETS)), default=None,
                 help="Paper Appendix B.1 settings: o3-mini-high (effort high, 10,000 tokens, temperature 1.0), "
                      "deepseek-r1 (8,000 tokens, temperature 0.6). Explicit options override it."),
    click.option("--max-tokens", default=None, metavar="N|TASK=N[,...]",
                 help="Max new tokens: N for every row, TASK=N for a task family (niah, cwe) or a task id (cwe_hard), "
                      "comma-separated, e.g. cwe=200 [default: the row's reserve, 30 NIAH / 50 CWE]."),
    click.option("--max-tokens-param", type=click.Choice(MAX_TOKENS_PARAMS), default=None,
                 help="Request field for the limit in chat requests [default: max_tokens; o3 preset: max_completion_tokens]."),
    click.option("--temperature", type=float, default=None, help="[default: 0, greedy, the paper's setting]"),
    click.option("--top-p", type=float, default=None, help="[default: not sent]"),
    click.option("--seed", type=int, default=None, help="[default: not sent]"),
    click.option("--stop", multiple=True, help="A stop string (repeat for several)."),
    click.option("--reasoning-effort", type=click.Choice(REASONING_EFFORTS), default=None, help="Sent as reasoning_effort (chat)."),
    click.option("--extra-body", default=None, metavar="JSON", help="More request fields, e.g. '{\"top_k\": 1}'."),
]
SERVER_OPTIONS = [
    click.option("--base-url", "base_urls", multiple=True, envvar="OPENAI_BASE_URL",
                 help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1; repeat it for several servers of one "
                      "model (each row goes to the one with the fewest requests in flight)."),
    click.option("--base-urls", "base_urls_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
                 help="A file of base URLs, one per line (# comments), added to --base-url."),
    click.option("--api", type=click.Choice(APIS), default=None,
                 help=f"chat: the row's input as the single user message (no system prompt); completions: as the raw "
                      f"prompt. [default: {default(ServerSettings, 'api')}]"),
    click.option("--stream/--no-stream", default=None, help="Stream responses (server-sent events). [default: no]"),
    click.option("--timeout", type=float, default=None,
                 help=f"Seconds per request (each try). "
                      f"[default: {_RETRY.timeout_s:g}]"),
    click.option("--max-retries", type=int, default=None,
                 help=f"Retries per row on HTTP 408/429/5xx and connection errors (waits double; Retry-After honoured). "
                      f"[default: {_RETRY.attempts - 1}]"),
    click.option("--retry-wait", type=float, default=None, help=f"First wait between tries, in seconds. [default: {_RETRY.base_s:g}]"),
    click.option("--max-retry-wait", type=float, default=None,
                 help=f"Longest wait between two tries of a row, a server's Retry-After included (said on stderr when "
                      f"it shortens one). [default: {_RETRY.max_wait_s:g}]"),
    click.option("--load-timeout", type=float, default=None,
                 help=f"Seconds a model may take to load when the run asks the server to load it (Ollama). "
                      f"[default: {LOAD_TIMEOUT_S:g}]"),
    click.option("--max-model-len", type=int, default=None, help="The server's window [default: what the server reports]."),
    click.option("--tokenizer", default=None, metavar="SPEC",
                 help="Count prompts locally when the server has no /tokenize (HF id or folder, tiktoken name)."),
    click.option("--count-margin", type=float, default=None,
                 help="When the server cannot count and no --tokenizer is given: num_tokens x (1 + margin) + a template "
                      "allowance. [default: a margin calibrated per task, see docs/running.md]"),
]
CONTROL_OPTIONS = [
    click.option("--out", type=click.Path(dir_okay=False, path_type=Path), default=None,
                 help="PREDICTIONS.jsonl (resumed if it exists). Required unless --batch-requests or --dry-run."),
    click.option("--concurrency", type=int, default=None, help=f"Requests in flight, over all servers. [default: the server's parallel slots where it reports them "
                      f"(llama.cpp's total_slots), else {DEFAULT_CONCURRENCY}]"),
    click.option("--max-failed", default=None, metavar="N|P%",
                 help=f"Stop and exit 1 once more rows than this have failed (a count or a share of the rows to send). "
                      f"[default: {default(RunSettings, 'max_failed')}]"),
    click.option("--retry-failed", is_flag=True, default=None, help="Resend the rows recorded as failed or skipped."),
    click.option("--skip-overlong", is_flag=True, default=None, help="Record rows that do not fit the window as skipped and run the rest."),
    click.option("--dry-run", is_flag=True, default=None, help="Send no completion: print requests, tokens and cost per config."),
    click.option("--order", type=click.Choice(ORDERS), default=None,
                 help="longest: configs with the longest prompts first (a shorter tail); dataset: id order. [default: longest]"),
    click.option("--price-in", type=float, default=None, help="USD per million prompt tokens (dry-run cost)."),
    click.option("--price-out", type=float, default=None, help="USD per million output tokens (dry-run cost)."),
    click.option("--limit", type=int, default=None, help="At most N rows per config (smoke tests)."),
    click.option("--shard", default=None, metavar="I/N",
                 help="Take share I of N (0-based) of the selected rows, balanced by prompt tokens; merge the N files "
                      "with `oneruler merge`."),
    click.option("--revision", default=None, help="Hub dataset revision (branch, tag or commit) [default: main]."),
    click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                 help="Score the predictions at the end into this report folder (as `oneruler score`)."),
]
BATCH_OPTIONS = [
    click.option("--batch-requests", type=click.Path(dir_okay=False, path_type=Path), default=None,
                 help="Write the requests to this JSONL file (OpenAI Batch API / `vllm run-batch` format) instead of "
                      "sending them; `oneruler ingest` turns the results into predictions."),
    click.option("--batch-max-requests", type=int, default=None, help="Requests per file [default: 50,000, OpenAI's limit]."),
    click.option("--batch-max-bytes", type=int, default=None, help="Bytes per file [default: 200 MB, OpenAI's limit]."),
    click.option("--submit", is_flag=True, default=None,
                 help="Upload the request files and create the batches (OpenAI Batch API at --base-url or api.openai.com)."),
]


def _options(func):
    for option in reversed(SAMPLING_OPTIONS + SERVER_OPTIONS + CONTROL_OPTIONS + BATCH_OPTIONS):
        func = option(func)
    return func


@click.command("run")
@click.argument("dataset")
@click.argument("patterns", nargs=-1, metavar="[CONFIG_GLOB ...]")
@click.option("--model", required=True, help="Model name as the server knows it.")
@_options
@hub_cache_option
@quiet_option
@cli_errors
def run_command(**options) -> None:
    """Send the prompts of DATASET (export folder or Hub id; globs pick configs, default all) to a server."""
    from ..run.runner import run
    from ..run.settings_build import run_settings

    settings = run_settings(options)
    try:
        result = run(settings, os.environ.get("OPENAI_API_KEY") or None, echo_err)
    except KeyboardInterrupt:
        fail(_interrupted(settings), 130)
    if settings.batch is not None:
        return _print_batch(result, settings)
    if settings.dry_run:
        return _print_plan(result, options["price_in"], options["price_out"], settings.skip_overlong, settings.out)
    _print_summary(result, settings.out)
    if result.stopped:
        fail(f"{result.failed} row(s) failed, more than --max-failed {settings.max_failed} allows ({result.failure_limit}); "
             f"the run stopped. Last error: {result.last_error}. Rerun to resume; --retry-failed resends failures", 1)
    if options["report_dir"] is not None:
        from ..report.pipeline import score_and_report
        from ..run.files.meta import read_meta

        score_and_report(settings.out, settings.rows.dataset, options["report_dir"], meta=read_meta(settings.out),
                         hub_cache=settings.rows.hub_cache, allow_partial=True, echo=echo)


def _interrupted(settings: RunSettings) -> str:
    """What an interrupted run leaves: the rows that finished, or nothing."""
    out = settings.out
    if settings.dry_run or settings.batch is not None or out is None:
        return "interrupted; nothing was written"
    if out.is_file() and out.stat().st_size > 0:
        return f"interrupted; {out} keeps every finished row: rerun the same command to resume"
    return f"interrupted before any row finished; {out} was not written: rerun the same command to start"


def _print_plan(result, price_in, price_out, skip_overlong, out: Path | None) -> None:
    from ..run.plan import render_plan

    pre = result.preflight
    for warning in result.warnings:
        echo_err(f"warning: {warning}")
    if out is not None:
        click.echo(f"dry run: nothing sent. {result.already} of {result.rows} row(s) already in the predictions file.")
    else:
        click.echo(f"dry run: nothing sent. {result.rows} row(s) selected (no predictions file given).")
    click.echo(pre.describe())
    if result.sharing:
        click.echo(result.sharing)
    click.echo(render_plan(result.plan, price_in, price_out))
    if pre.overlong and not skip_overlong:
        raise pre.refusal()


def _print_batch(result, settings) -> None:
    from ..run.files.meta import meta_path

    total = sum(f.requests for f in result.batch_files)
    click.echo(f"wrote {total} request(s) in {len(result.batch_files)} file(s): "
               + ", ".join(f"{f.file} ({f.requests} requests, {f.bytes:,} bytes)" for f in result.batch_files))
    click.echo(f"and {meta_path(settings.batch.path)}; {result.skipped} row(s) skipped (do not fit the window). "
               f"After the batch: oneruler ingest RESULTS.jsonl... --requests {settings.batch.path} --out PREDICTIONS.jsonl")


def _print_summary(result, out: Path) -> None:
    from ..run.files.meta import meta_path

    echo(f"{result.sent} row(s) sent: {result.ok} answered, {result.failed} failed; {result.skipped} skipped "
         f"(do not fit the window); {result.already} already done")
    if result.resent:
        echo(f"{result.resent} request(s) resent after the server's shared KV cache overflowed; concurrency "
             f"lowered from {result.concurrency} to {result.concurrency_end}")
    if len(result.servers) > 1:
        echo("servers: " + "; ".join(f"{s.base_url} answered {s.answered}, failed {s.failed}"
                                     + (f" (taken out: {s.taken_out})" if s.taken_out else "")
                                     for s in result.servers))
    for warning in result.warnings:
        echo_err(f"warning: {warning}")
    echo(f"wrote {out} and {meta_path(out)}")
    if result.failed:
        echo(f"{result.failed} failed row(s) are not scored; rerun with --retry-failed to resend them")
