"""The typed settings of ``oneruler run`` built from its command-line options (unset ones keep their defaults)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..base.errors import OneRulerError, SettingError, named_setting
from ..base.retry import RetryPolicy
from .request_settings import max_tokens_limits, parse_extra_body, sampling_settings
from .rows.shard import Shard
from .settings import BatchLimits, BatchOutput, RowChoice, RunSettings, ServerSettings


def _given(options: dict[str, Any], *names: str) -> dict[str, Any]:
    """The options among ``names`` that were given (not None)."""
    return {n: options[n] for n in names if options.get(n) is not None}


def base_urls(given: tuple[str, ...], listing: Path | None) -> tuple[str, ...]:
    """``--base-url`` values, then the lines of ``--base-urls FILE`` (blank lines and ``#`` comments skipped)."""
    urls = list(given)
    if listing is not None:
        try:
            text = Path(listing).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise SettingError("base_urls_file", f"{listing}: cannot read it ({exc})") from None
        urls += [line.split("#", 1)[0].strip() for line in text.splitlines() if line.split("#", 1)[0].strip()]
        if not urls:
            raise SettingError("base_urls_file", f"{listing}: no URL in it (one per line)")
    return tuple(urls)


def _retry(options: dict[str, Any]) -> RetryPolicy:
    if options.get("max_retries") is not None and options["max_retries"] < 0:
        raise SettingError("max_retries", f"must not be negative (got {options['max_retries']})")
    kwargs = {}
    if options.get("max_retries") is not None:
        kwargs["attempts"] = options["max_retries"] + 1
    if options.get("retry_wait") is not None:
        kwargs["base_s"] = options["retry_wait"]
    if options.get("timeout") is not None:
        kwargs["timeout_s"] = options["timeout"]
    if options.get("max_retry_wait") is not None:
        kwargs["max_wait_s"] = options["max_retry_wait"]
    return RetryPolicy(**kwargs)


def _batch(options: dict[str, Any]) -> BatchOutput | None:
    if options.get("batch_requests") is None:
        if options.get("submit"):
            raise OneRulerError(f"{named_setting('submit')} needs {named_setting('batch_requests')} FILE (the request files "
                                f"to upload)")
        return None
    limits = BatchLimits(**{k[len("batch_"):]: v for k, v in _given(options, "batch_max_requests", "batch_max_bytes").items()})
    return BatchOutput(Path(options["batch_requests"]), limits, bool(options.get("submit")))


def run_settings(options: dict[str, Any]) -> RunSettings:
    """``RunSettings`` from the options of ``oneruler run`` (keys as click names them)."""
    sampling = sampling_settings(options.get("preset"), extra_body=parse_extra_body(options.get("extra_body")) or None,
                                 **max_tokens_limits(options.get("max_tokens")),
                                 **_given(options, "temperature", "top_p", "seed", "stop", "max_tokens_param",
                                          "reasoning_effort"))
    rows = RowChoice(options["dataset"], tuple(options.get("patterns") or ()), options.get("revision"),
                     options.get("limit"), Shard.parse(options["shard"]) if options.get("shard") else None,
                     options.get("hub_cache"))
    loading = {"load_timeout_s": options["load_timeout"]} if options.get("load_timeout") is not None else {}
    server = ServerSettings(base_urls(tuple(options.get("base_urls") or ()), options.get("base_urls_file")),
                            options["model"], retry=_retry(options), **loading,
                            **_given(options, "api", "stream", "max_model_len", "tokenizer", "count_margin"))
    control = _given(options, "concurrency", "max_failed", "retry_failed", "skip_overlong", "dry_run", "order")
    return RunSettings(rows, server, options.get("out"), sampling, options.get("preset"), batch=_batch(options),
                       progress=not options.get("quiet"), **control)
