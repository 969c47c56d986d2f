"""``oneruler run``: select rows, check they fit, send them concurrently, record each answer as it comes.

Order of work: rows (``dataset``) → what earlier runs finished (``store``) → the settings check
(a resumed file must keep model, API, sampling and dataset) → ``preflight`` on the rows still to
send → ``--dry-run`` stops here → skipped rows recorded → the rows sent, ``concurrency`` at a
time, each line flushed as it finishes → the file rewritten in id order, the meta completed.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..base.errors import OneRulerError
from ..base.versions import package_versions as installed_versions
from .client import Completion, ServerClient
from .dataset import RunRow, load_run_rows, resolve_source, select_configs
from .options import RetryPolicy, SamplingOptions, failure_limit
from .plan import PlanLine, plan_lines
from .preflight import Preflight, preflight
from .progress import RunProgress
from .store import META_FORMAT, PredictionStore, check_resumable, meta_path, public_url, read_meta, write_meta

PACKAGES = ("oneruler", "openai", "datasets", "huggingface-hub", "pyarrow", "tiktoken", "tokenizers", "transformers")


@dataclass(frozen=True)
class RunSettings:
    """Everything ``oneruler run`` was asked to do (the API key is not here: it never leaves the client)."""

    dataset: str
    out: Path
    base_url: str
    model: str
    patterns: tuple[str, ...] = ()
    api: str = "chat"
    preset: str | None = None
    sampling: SamplingOptions = SamplingOptions()
    retry: RetryPolicy = RetryPolicy()
    stream: bool = False
    concurrency: int = 8
    max_failed: str = "1%"
    retry_failed: bool = False
    max_model_len: int | None = None
    tokenizer: str | None = None
    count_margin: float = 0.10
    skip_overlong: bool = False
    dry_run: bool = False
    limit: int | None = None
    revision: str | None = None
    datasets_cache: str | None = None
    progress: bool = True


@dataclass
class RunResult:
    """What a run did (``plan`` for a dry run), for the command line to print."""

    rows: int = 0
    already: int = 0
    sent: int = 0
    ok: int = 0
    failed: int = 0
    skipped: int = 0
    stopped: bool = False
    failure_limit: int = 0
    last_error: str | None = None
    plan: list[PlanLine] = field(default_factory=list)
    preflight: Preflight | None = None

    @property
    def warnings(self) -> list[str]:
        """What the preflight found worth saying (nothing before it ran)."""
        return self.preflight.warnings if self.preflight is not None else []


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def package_versions() -> dict[str, str]:
    """Versions of the packages a run's outputs depend on (those installed)."""
    return installed_versions(PACKAGES, missing=None)


def row_line(row: RunRow, done: Completion) -> dict[str, Any]:
    """The predictions line of a row that was sent."""
    return {"id": row.id, "prediction": done.prediction, "finish_reason": done.finish_reason,
            "reasoning": done.reasoning, "usage": done.usage, "latency_s": done.latency_s, "error": done.error,
            "status": "failed" if done.error else "ok"}


def skipped_line(row: RunRow, pre: Preflight) -> dict[str, Any]:
    """The predictions line of a row not sent because it does not fit the window."""
    return {"id": row.id, "prediction": None, "finish_reason": None, "reasoning": None,
            "usage": {"prompt_tokens": pre.counts[row.id], "completion_tokens": 0, "reasoning_tokens": None},
            "latency_s": None, "error": pre.skip_reason(row.id), "status": "skipped"}


def settings_meta(s: RunSettings, identity: dict) -> dict[str, Any]:
    """The part of the meta a resumed run must match, plus where it ran."""
    return {"format": META_FORMAT, "model": s.model, "base_url": public_url(s.base_url), "api": s.api,
            "preset": s.preset, "sampling": s.sampling.to_meta(), "stream": s.stream, "dataset": identity}


def pending_rows(rows: list[RunRow], store: PredictionStore, retry_failed: bool) -> tuple[list[RunRow], list[str]]:
    """(rows still to send, ids of recorded failed/skipped lines to resend)."""
    unfinished = store.ids("failed", "skipped")  # once: ids() walks every record
    done = store.ids("ok") | (set() if retry_failed else unfinished)
    resend = [r.id for r in rows if r.id in unfinished] if retry_failed else []
    return [r for r in rows if r.id not in done], resend


async def send_rows(client: ServerClient, store: PredictionStore, rows: list[RunRow], s: RunSettings,
                    result: RunResult) -> None:
    """Send rows with at most ``concurrency`` in flight; stop taking new ones once failures pass the limit."""
    queue: asyncio.Queue[RunRow] = asyncio.Queue()
    for row in rows:
        queue.put_nowait(row)
    bar = RunProgress(len(rows), "rows", s.progress)

    async def worker() -> None:
        while not result.stopped:
            try:
                row = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            done = await client.complete(row.input, s.sampling.request_kwargs(row.reserve, s.api))
            store.append(row_line(row, done))
            result.sent += 1
            usage = done.usage or {}
            bar.advance(usage.get("prompt_tokens") or 0, usage.get("completion_tokens") or 0, failed=bool(done.error))
            if done.error:
                result.failed += 1
                result.last_error = f"{row.id}: {done.error}"
                result.stopped = result.failed > result.failure_limit
            else:
                result.ok += 1

    try:
        await asyncio.gather(*(worker() for _ in range(min(s.concurrency, len(rows)) or 1)))
    finally:
        bar.close()


def load_selection(s: RunSettings) -> tuple[list[RunRow], dict]:
    """The selected rows and the dataset's identity."""
    source = resolve_source(s.dataset, s.revision, s.datasets_cache)
    files = source.configs()
    configs = select_configs(sorted(files), list(s.patterns))
    rows = load_run_rows(source, configs, files, s.limit)
    if not rows:
        raise OneRulerError(f"no rows to send: the selected configs of {s.dataset!r} are empty")
    return rows, source.identity().to_dict()


def run(s: RunSettings, api_key: str | None, log: Callable[[str], None]) -> RunResult:
    """Do the run described by ``s`` (see the module docstring); errors are OneRulerError."""
    if s.concurrency < 1:
        raise OneRulerError(f"--concurrency must be at least 1 (got {s.concurrency})")
    rows, identity = load_selection(s)
    meta = settings_meta(s, identity)
    old = read_meta(s.out)
    if old is not None:
        check_resumable(old, meta, s.out)
    store = PredictionStore(Path(s.out))
    if s.dry_run:
        return asyncio.run(_dry_run(s, api_key, rows, store.peek()))
    store.open()
    try:
        if store.records and old is None:
            raise OneRulerError(f"{s.out} holds lines but no {meta_path(Path(s.out)).name}: it was not written by "
                                f"`oneruler run`; choose another --out")
        if store.torn_bytes:
            log(f"ignored a torn last line ({store.torn_bytes} bytes) left by an interrupted run")
        return asyncio.run(_run(s, api_key, rows, store, meta, old))
    finally:
        store.close()


def _client(s: RunSettings, api_key: str | None) -> ServerClient:
    return ServerClient(s.base_url, s.model, s.api, api_key, s.retry, s.stream)


async def _preflight(client: ServerClient, todo: list[RunRow], s: RunSettings) -> Preflight:
    """The window and prompt counts; a dry run may go on without a reachable server."""
    return await preflight(client, todo, s.sampling, max_model_len=s.max_model_len, tokenizer=s.tokenizer,
                           margin=s.count_margin, concurrency=s.concurrency, offline_ok=s.dry_run, progress=s.progress)


async def _dry_run(s: RunSettings, api_key: str | None, rows: list[RunRow], store: PredictionStore) -> RunResult:
    todo, _ = pending_rows(rows, store, s.retry_failed)
    client = _client(s, api_key)
    try:
        pre = await _preflight(client, todo, s)
    finally:
        await client.close()
    return RunResult(rows=len(rows), already=len(rows) - len(todo), plan=plan_lines(todo, pre), preflight=pre)


async def _run(s: RunSettings, api_key: str | None, rows: list[RunRow], store: PredictionStore, meta: dict,
               old: dict | None) -> RunResult:
    todo, resend = pending_rows(rows, store, s.retry_failed)
    result = RunResult(rows=len(rows), already=len(rows) - len(todo))
    result.failure_limit = failure_limit(s.max_failed, len(todo))
    client = _client(s, api_key)
    try:
        pre = result.preflight = await _preflight(client, todo, s)
        over = set(pre.overlong)
        if over and not s.skip_overlong:
            raise OneRulerError(pre.refusal())
        if resend:
            store.rewrite(drop=resend)
        session = {"started_at": now(), "ended_at": None, "rows": len(rows), "to_send": len(todo),
                   "window": pre.window.size, "window_source": pre.window.source, "prompt_count": pre.method,
                   "concurrency": s.concurrency, "max_retries": s.retry.attempts - 1, "timeout_s": s.retry.timeout_s,
                   "selection": {"patterns": list(s.patterns), "limit": s.limit}, "packages": package_versions()}
        doc = dict(old or {}, **meta, started_at=(old or {}).get("started_at") or session["started_at"])
        doc["runs"] = list((old or {}).get("runs", [])) + [session]
        write_meta(s.out, doc)
        for row in todo:
            if row.id in over:
                store.append(skipped_line(row, pre))
                result.skipped += 1
        try:
            await send_rows(client, store, [r for r in todo if r.id not in over], s, result)
        finally:
            session.update(ended_at=now(), sent=result.sent, ok=result.ok, failed=result.failed, skipped=result.skipped,
                           stopped=result.stopped)
            doc.update(ended_at=session["ended_at"], lines=_line_counts(store))
            if not result.stopped and result.sent + result.skipped == len(todo):
                store.rewrite()  # a finished file in id order, whatever the order answers came in
            write_meta(s.out, doc)
    finally:
        await client.close()
    return result


def _line_counts(store: PredictionStore) -> dict[str, int]:
    return {status: len(store.ids(status)) for status in ("ok", "failed", "skipped")}
