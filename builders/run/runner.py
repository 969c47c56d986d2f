"""``oneruler run``: select rows, check they fit, send them concurrently, record each answer as it comes.

Order of work: the selection (``dataset.Selection``: ids and sizes only) → what earlier runs
finished (``store``) → the settings check (a resumed file must keep model, API, sampling, dataset
and shard) → ``preflight`` on the rows still to send (prompts read config by config, only counts
kept) → ``--dry-run`` stops here → skipped rows recorded → the rows sent, ``concurrency`` at a
time over the servers of the pool, prompts read config by config as they are needed, each line
flushed as it finishes → the file rewritten in id order line by line, the meta completed.
``--batch-requests`` writes the requests to files instead (``batchrun.py``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from ..base.errors import OneRulerError
from ..base.versions import package_versions as installed_versions
from .client import ServerClient
from .dataset import RowRef, Selection, longest_first, resolve_source
from .lines import skipped_line
from .options import failure_limit
from .plan import PlanLine, plan_lines
from .pool import ServerPool
from .preflight import Preflight, preflight
from .send import Sender
from .settings import DEFAULT_CONCURRENCY, RunSettings
from .store import META_FORMAT, PredictionStore, check_resumable, meta_path, public_url, read_meta, write_meta

PACKAGES = ("oneruler", "openai", "datasets", "huggingface-hub", "pyarrow", "tiktoken", "tokenizers", "transformers")


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
    servers: list[dict] = field(default_factory=list)
    batch_files: list[dict] = field(default_factory=list)
    no_server: str | None = None  # why the run stopped: every server was taken out of rotation
    truncation: str | None = None  # why the run stopped: the server cut prompts
    concurrency: int = DEFAULT_CONCURRENCY

    @property
    def warnings(self) -> list[str]:
        """What the preflight found worth saying (nothing before it ran)."""
        return self.preflight.warnings if self.preflight is not None else []


def now() -> str:
    """The current UTC time, ISO 8601 to the second."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def package_versions() -> dict[str, str]:
    """Versions of the packages a run's outputs depend on (those installed)."""
    return installed_versions(PACKAGES, absent=None)


def settings_meta(s: RunSettings, identity: dict) -> dict[str, Any]:
    """The part of the meta a resumed run must match, plus where it ran."""
    urls = [public_url(u) for u in s.server.base_urls]
    return {"format": META_FORMAT, "model": s.server.model, "base_url": urls[0] if urls else None,
            "base_urls": urls, "api": s.server.api, "preset": s.preset, "sampling": s.sampling.to_meta(),
            "stream": s.server.stream, "dataset": identity, "selection": s.rows.to_meta()}


def session_meta(s: RunSettings, rows: int, to_send: int, pre: Preflight, concurrency: int | None) -> dict[str, Any]:
    """The entry of this invocation in the meta's ``runs`` list (completed when it ends)."""
    server = pre.server
    return {"started_at": now(), "ended_at": None, "rows": rows, "to_send": to_send,
            "server_kind": server.kind if server else None, "slots": server.slots if server else None,
            "window": pre.window.size, "window_source": pre.window.source, "prompt_limit": pre.window.prompt_limit,
            "prompt_count": pre.method, "prompt_count_exact": pre.exact, "warnings": list(pre.warnings),
            "concurrency": concurrency, "max_retries": s.server.retry.attempts - 1,
            "timeout_s": s.server.retry.timeout_s, "order": s.order, "selection": s.rows.to_meta(),
            "packages": package_versions()}


def pending_rows(refs: list[RowRef], store: PredictionStore, retry_failed: bool) -> tuple[list[RowRef], list[str]]:
    """(rows still to send, ids of recorded failed/skipped lines to resend)."""
    unfinished = store.ids("failed", "skipped")  # once: ids() walks every line
    done = store.ids("ok") | (set() if retry_failed else unfinished)
    resend = [r.id for r in refs if r.id in unfinished] if retry_failed else []
    return [r for r in refs if r.id not in done], resend


def load_selection(s: RunSettings) -> tuple[Selection, dict]:
    """The selected rows (without prompts) and the dataset's identity."""
    source = resolve_source(s.rows.dataset, s.rows.revision, s.rows.hub_cache)
    selection = Selection.read(source, list(s.rows.patterns), s.rows.limit, s.rows.shard)
    if not selection.rows:
        raise OneRulerError(f"no rows to send: the selected configs of {s.rows.dataset!r} are empty"
                            + (f" (or shard {s.rows.shard} got none of them)" if s.rows.shard else ""))
    return selection, source.identity().to_dict()


def make_pool(s: RunSettings, api_key: str | None, log: Callable[[str], None]) -> ServerPool | None:
    """One client per base URL (None: no server, batch request files only)."""
    if not s.server.base_urls:
        return None
    clients = [ServerClient(url, s.server.model, s.server.api, api_key, s.server.retry, s.server.stream)
               for url in s.server.base_urls]
    return ServerPool(clients, lambda message: log(f"warning: {message}"))


async def run_preflight(pool: ServerPool | None, selection: Selection, todo: list[RowRef], s: RunSettings,
                        offline_ok: bool) -> Preflight:
    """The window and prompt counts of the rows still to send."""
    return await preflight(pool, todo, selection.prompts, s.sampling, api=s.server.api,
                           max_model_len=s.server.max_model_len, tokenizer=s.server.tokenizer,
                           margin=s.server.count_margin, concurrency=s.concurrency or DEFAULT_CONCURRENCY,
                           offline_ok=offline_ok,
                           progress=s.progress)


def run(s: RunSettings, api_key: str | None, log: Callable[[str], None]) -> RunResult:
    """Do the run described by ``s`` (see the module docstring); errors are OneRulerError."""
    selection, identity = load_selection(s)
    meta = settings_meta(s, identity)
    old = read_meta(s.records)
    if old is not None:
        check_resumable(old, meta, s.records)
    if s.batch is not None:
        from .batchrun import write_batch

        return asyncio.run(write_batch(s, api_key, selection, meta, old, log))
    store = PredictionStore(Path(s.out))
    if s.dry_run:
        return asyncio.run(_dry_run(s, api_key, selection, store.peek(), log))
    store.open()
    try:
        if store.index and old is None:
            raise OneRulerError(f"{s.out} holds lines but no {meta_path(Path(s.out)).name}: it was not written by "
                                f"`oneruler run`; choose another --out")
        if store.torn_bytes:
            log(f"ignored a torn last line ({store.torn_bytes} bytes) left by an interrupted run")
        return asyncio.run(_run(s, api_key, selection, store, meta, old, log))
    finally:
        store.close()


async def _dry_run(s: RunSettings, api_key: str | None, selection: Selection, store: PredictionStore,
                   log: Callable[[str], None]) -> RunResult:
    todo, _ = pending_rows(selection.rows, store, s.retry_failed)
    pool = make_pool(s, api_key, log)
    try:
        pre = await run_preflight(pool, selection, todo, s, offline_ok=True)
    finally:
        if pool is not None:
            await pool.close()
    return RunResult(rows=len(selection.rows), already=len(selection.rows) - len(todo), plan=plan_lines(todo, pre),
                     preflight=pre)


def send_order(refs: list[RowRef], order: str) -> list[RowRef]:
    """The order rows are sent in: longest configs first (the default), or the dataset's."""
    return longest_first(refs) if order == "longest" else refs


async def _run(s: RunSettings, api_key: str | None, selection: Selection, store: PredictionStore, meta: dict,
               old: dict | None, log: Callable[[str], None]) -> RunResult:
    todo, resend = pending_rows(selection.rows, store, s.retry_failed)
    result = RunResult(rows=len(selection.rows), already=len(selection.rows) - len(todo))
    result.failure_limit = failure_limit(s.max_failed, len(todo))
    pool = make_pool(s, api_key, log)
    assert pool is not None  # RunSettings requires a server unless it writes batch files
    try:
        pre = result.preflight = await run_preflight(pool, selection, todo, s, offline_ok=False)
        over = set(pre.overlong)
        if over and not s.skip_overlong:
            raise OneRulerError(pre.refusal())
        result.concurrency = choose_concurrency(s, pre)
        announce(pre, s, result.concurrency, len(over), log)
        if resend:
            store.rewrite(drop=resend)
        session = session_meta(s, len(selection.rows), len(todo), pre, result.concurrency)
        doc = dict(old or {}, **meta, started_at=(old or {}).get("started_at") or session["started_at"])
        doc["runs"] = list((old or {}).get("runs", [])) + [session]
        write_meta(s.out, doc)
        for ref in todo:
            if ref.id in over:
                store.append(skipped_line(ref.id, pre.counts[ref.id], pre.skip_reason(ref.id)))
                result.skipped += 1
        try:
            await Sender(pool, store, selection, s, result, pre, log).send(
                send_order([r for r in todo if r.id not in over], s.order), result.concurrency)
        finally:
            _finish(store, doc, session, result, pool, len(todo))
            write_meta(s.out, doc)
    finally:
        await pool.close()
    if result.no_server:
        raise OneRulerError(f"{result.no_server}; {s.out} keeps every finished row: restart a server and rerun the "
                            f"same command to resume")
    if result.truncation and result.stopped:  # cut prompts stopped it (or were among the failures that did)
        raise OneRulerError(result.truncation)
    return result


def pool_slots(s: RunSettings, pre: Preflight) -> int | None:
    """Requests the pool works on at once: the server's parallel slots times its servers (None: not said)."""
    slots = pre.server.slots if pre.server is not None else None
    return slots * len(s.server.base_urls) if slots else None


def choose_concurrency(s: RunSettings, pre: Preflight) -> int:
    """``--concurrency``, else the pool's parallel slots, else the default."""
    if s.concurrency is not None:
        return s.concurrency
    return pool_slots(s, pre) or DEFAULT_CONCURRENCY


def announce(pre: Preflight, s: RunSettings, concurrency: int, skipped: int, log: Callable[[str], None]) -> None:
    """Everything the preflight learnt, before the first request (a killed run has shown it too)."""
    log(pre.describe())
    slots = pre.server.slots if pre.server is not None else None
    if slots and concurrency > pool_slots(s, pre):
        pre.warnings.append(f"--concurrency {concurrency} is more than the {slots} parallel slot(s) the server works on: "
                            f"the other requests wait in its queue, and that wait counts against --timeout "
                            f"{s.server.retry.timeout_s:g} s")
    if skipped:
        pre.warnings.append(f"{skipped} row(s) do not fit the window and are recorded as skipped (--skip-overlong)")
    for warning in pre.warnings:
        log(f"warning: {warning}")


def _finish(store: PredictionStore, doc: dict, session: dict, result: RunResult, pool: ServerPool, todo: int) -> None:
    result.servers = [srv.to_meta() for srv in pool.servers]
    session.update(ended_at=now(), sent=result.sent, ok=result.ok, failed=result.failed, skipped=result.skipped,
                   stopped=result.stopped, servers=result.servers)
    if not result.stopped and result.sent + result.skipped == todo:
        store.rewrite()  # a finished file in id order, whatever the order answers came in
    doc.update(ended_at=session["ended_at"], lines=store.counts())
