"""``oneruler run DATASET [CONFIG_GLOB ...] --base-url URL --model NAME --out PREDICTIONS.jsonl``.

Exit codes: 0 the run finished (failed rows within ``--max-failed``); 1 more rows failed than
``--max-failed`` allows (the run stopped; rerun to resume, ``--retry-failed`` to resend failures);
2 bad input, an unreachable server, or prompts that do not fit the window (nothing sent).
The API key is read from ``OPENAI_API_KEY`` only and never printed or written.
"""

from __future__ import annotations

import os
from pathlib import Path

import click

from ..run.options import APIS, MAX_TOKENS_PARAMS, PRESETS, REASONING_EFFORTS
from .handler import cli_errors, fail
from .options import datasets_cache_option, echo_err, quiet_option


def _run_options(func):
    """The sampling, server and run-control options (kept apart to keep the command readable)."""
    options = [
        click.option("--api", type=click.Choice(APIS), default="chat", show_default=True,
                     help="chat: the row's input as the single user message (no system prompt); completions: as the raw prompt."),
        click.option("--preset", type=click.Choice(sorted(PRESETS)), default=None,
                     help="Paper Appendix B.1 settings: o3-mini-high (effort high, 10,000 tokens, temperature 1.0), "
                          "deepseek-r1 (8,000 tokens, temperature 0.6). Explicit options override it."),
        click.option("--max-tokens", type=int, default=None, help="Max new tokens [default: the row's reserve, 30 NIAH / 50 CWE]."),
        click.option("--max-tokens-param", type=click.Choice(MAX_TOKENS_PARAMS), default=None,
                     help="Request field for the limit in chat requests [default: max_tokens; o3 preset: max_completion_tokens]."),
        click.option("--temperature", type=float, default=None, help="[default: 0, greedy, the paper's setting]"),
        click.option("--top-p", type=float, default=None, help="[default: not sent]"),
        click.option("--seed", type=int, default=None, help="[default: not sent]"),
        click.option("--stop", multiple=True, help="A stop string (repeat for several)."),
        click.option("--reasoning-effort", type=click.Choice(REASONING_EFFORTS), default=None, help="Sent as reasoning_effort (chat)."),
        click.option("--extra-body", default=None, metavar="JSON", help="More request fields, e.g. '{\"top_k\": 1}'."),
        click.option("--stream/--no-stream", default=False, show_default=True, help="Stream responses (server-sent events)."),
        click.option("--concurrency", type=int, default=8, show_default=True, help="Requests in flight."),
        click.option("--timeout", type=float, default=600.0, show_default=True, help="Seconds per request (each try)."),
        click.option("--max-retries", type=int, default=5, show_default=True,
                     help="Retries per row on HTTP 408/429/5xx and connection errors (waits double; Retry-After honoured)."),
        click.option("--retry-wait", type=float, default=1.0, show_default=True, help="First wait between tries, in seconds."),
        click.option("--max-failed", default="1%", show_default=True, metavar="N|P%",
                     help="Stop and exit 1 once more rows than this have failed (a count or a share of the rows to send)."),
        click.option("--retry-failed", is_flag=True, help="Resend the rows recorded as failed or skipped."),
        click.option("--max-model-len", type=int, default=None, help="The server's window [default: max_model_len from GET /v1/models]."),
        click.option("--tokenizer", default=None, metavar="SPEC",
                     help="Count prompts locally when the server has no /tokenize (HF id or folder, tiktoken name)."),
        click.option("--count-margin", type=float, default=0.10, show_default=True,
                     help="Without /tokenize or --tokenizer: num_tokens x (1 + margin) + a template allowance."),
        click.option("--skip-overlong", is_flag=True, help="Record rows that do not fit the window as skipped and run the rest."),
        click.option("--dry-run", is_flag=True, help="Send no completion: print requests, tokens and cost per config."),
        click.option("--price-in", type=float, default=None, help="USD per million prompt tokens (dry-run cost)."),
        click.option("--price-out", type=float, default=None, help="USD per million output tokens (dry-run cost)."),
        click.option("--limit", type=int, default=None, help="At most N rows per config (smoke tests)."),
        click.option("--revision", default=None, help="Hub dataset revision (branch, tag or commit) [default: main]."),
        click.option("--report", "report_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
                     help="Score the predictions at the end into this report folder (as `oneruler score`)."),
    ]
    for option in reversed(options):
        func = option(func)
    return func


@click.command("run")
@click.argument("dataset")
@click.argument("patterns", nargs=-1, metavar="[CONFIG_GLOB ...]")
@click.option("--base-url", required=True, envvar="OPENAI_BASE_URL", help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1.")
@click.option("--model", required=True, help="Model name as the server knows it.")
@click.option("--out", required=True, type=click.Path(dir_okay=False, path_type=Path), help="PREDICTIONS.jsonl (resumed if it exists).")
@_run_options
@datasets_cache_option
@quiet_option
@cli_errors
def run_command(dataset, patterns, base_url, model, out, api, preset, max_tokens, max_tokens_param, temperature, top_p,
                seed, stop, reasoning_effort, extra_body, stream, concurrency, timeout, max_retries, retry_wait,
                max_failed, retry_failed, max_model_len, tokenizer, count_margin, skip_overlong, dry_run, price_in,
                price_out, limit, revision, report_dir, datasets_cache, quiet):
    """Send the prompts of DATASET (export folder or Hub id; globs pick configs, default all) to a server."""
    from ..run.options import RetryPolicy, parse_extra_body, sampling_options
    from ..run.runner import RunSettings, run

    sampling = sampling_options(preset, temperature=temperature, top_p=top_p, seed=seed, stop=stop,
                                max_tokens=max_tokens, max_tokens_param=max_tokens_param,
                                reasoning_effort=reasoning_effort, extra_body=parse_extra_body(extra_body) or None)
    if max_retries < 0:
        fail(f"--max-retries must not be negative (got {max_retries})")
    settings = RunSettings(dataset, out, base_url, model, tuple(patterns), api, preset, sampling,
                           RetryPolicy(max_retries + 1, retry_wait, timeout_s=timeout), stream, concurrency, max_failed,
                           retry_failed, max_model_len, tokenizer, count_margin, skip_overlong, dry_run, limit,
                           revision, datasets_cache, not quiet)
    try:
        result = run(settings, os.environ.get("OPENAI_API_KEY") or None, echo_err)
    except KeyboardInterrupt:
        fail(f"interrupted; {out} keeps every finished row: rerun the same command to resume", 130)
    for warning in result.warnings:
        echo_err(f"warning: {warning}")
    if dry_run:
        return _print_plan(result, price_in, price_out, skip_overlong)
    _print_summary(result, out)
    if result.stopped:
        fail(f"{result.failed} row(s) failed, more than --max-failed {max_failed} allows ({result.failure_limit}); "
             f"the run stopped. Last error: {result.last_error}. Rerun to resume; --retry-failed resends failures", 1)
    if report_dir is not None:
        from ..report.pipeline import score_and_report
        from ..run.store import read_meta

        score_and_report(out, dataset, report_dir, meta=read_meta(out), datasets_cache=datasets_cache, allow_partial=True,
                         echo=click.echo)


def _print_plan(result, price_in, price_out, skip_overlong) -> None:
    from ..run.plan import render_plan

    pre = result.preflight
    click.echo(f"dry run: nothing sent. {result.already} of {result.rows} row(s) already in the predictions file.")
    click.echo(f"window: {pre.window.size if pre.window.size else 'unknown'} ({pre.window.source}); prompts counted with {pre.method}")
    click.echo(render_plan(result.plan, price_in, price_out))
    if pre.overlong and not skip_overlong:
        fail(pre.refusal())


def _print_summary(result, out: Path) -> None:
    from ..run.store import meta_path

    click.echo(f"{result.sent} row(s) sent: {result.ok} answered, {result.failed} failed; {result.skipped} skipped "
               f"(do not fit the window); {result.already} already done")
    click.echo(f"wrote {out} and {meta_path(out).name}")
    if result.failed:
        click.echo(f"{result.failed} failed row(s) are not scored; rerun with --retry-failed to resend them")
