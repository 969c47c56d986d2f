"""``oneruler run``: select rows, check they fit, send them concurrently, record each answer as it comes.

Order of work: the selection (``rows.selection.Selection``: ids and sizes only) → what earlier runs
finished (``files.store``) → the settings check (a resumed file must keep model, API, sampling,
dataset and shard: ``files.meta.check_resumable``) → the opening (``session.opened``: the balancer and
the preflight on the rows still to send, prompts read config by config, only counts kept) →
``dry_run`` stops here → skipped rows recorded → the rows sent (``send.Sender``), ``concurrency`` at
a time over the servers of the balancer, prompts read config by config as they are needed, each line
flushed as it finishes → the file rewritten in id order line by line, the meta completed.
``batch`` writes the requests to files instead (``batch/write.py``).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Callable

from ..base.errors import OneRulerError, named_setting
from ..spec.run_meta import RunMeta, SessionRecord
from .batch.write import write_batch
from .files.lines import skipped_line
from .files.meta import check_resumable, meta_path, now, read_meta, write_meta
from .files.store import PredictionStore
from .request_settings import failure_limit
from .plan import plan_lines
from .rows.selection import RowRef, Selection, longest_first
from .send import Sender
from .server.balancer import ServerBalancer
from .server.preflight import Preflight
from .session import RunResult, load_selection, opened, session_record, settings_meta
from .settings import DEFAULT_CONCURRENCY, RunSettings


class NoServerAfterSending(OneRulerError):
    """Every server was taken out of rotation after rows were sent. Exit code 1 (2 means nothing was sent)."""

    exit_code = 1


def pending_rows(refs: list[RowRef], store: PredictionStore | None,
                 retry_failed: bool) -> tuple[list[RowRef], list[str]]:
    """(rows still to send, ids of recorded failed/skipped lines to resend); no store: every row is to send."""
    if store is None:
        return list(refs), []
    unfinished = store.ids("failed", "skipped")  # once: ids() walks every line
    done = store.ids("ok") | (set() if retry_failed else unfinished)
    resend = [r.id for r in refs if r.id in unfinished] if retry_failed else []
    return [r for r in refs if r.id not in done], resend


def run(s: RunSettings, api_key: str | None, log: Callable[[str], None]) -> RunResult:
    """Do the run described by ``s`` (see the module docstring); errors are OneRulerError."""
    selection, dataset = load_selection(s)
    meta = settings_meta(s, dataset)
    old = read_meta(s.records) if s.records is not None else None
    if old is not None:
        check_resumable(old, meta, s.records)
    if s.batch is not None:
        return asyncio.run(write_batch(s, api_key, selection, meta, old, log))
    if s.dry_run:
        done = PredictionStore(Path(s.out)).peek() if s.out is not None else None
        return asyncio.run(_dry_run(s, api_key, selection, done, log))
    store = PredictionStore(Path(s.out)).open()
    try:
        if store.index and old is None:
            said = f"{s.out} holds lines but no {meta_path(Path(s.out)).name}: it was not written by `oneruler run`"
            raise OneRulerError(f"{said}; choose another {named_setting('out')}")
        for path, size in store.stale:
            log(f"removed {path.name} ({size:,} bytes), a temporary file left by an interrupted write")
        if store.torn_bytes:
            log(f"ignored a torn last line ({store.torn_bytes} bytes) left by an interrupted run")
        return asyncio.run(_run(s, api_key, selection, store, meta, old, log))
    finally:
        store.close()


async def _dry_run(s: RunSettings, api_key: str | None, selection: Selection, store: PredictionStore | None,
                   log: Callable[[str], None]) -> RunResult:
    todo, _ = pending_rows(selection.rows, store, s.retry_failed)
    async with opened(s, api_key, selection, todo, log, offline_ok=True) as opening:
        pre = opening.pre
    concurrency = choose_concurrency(s, pre)
    return RunResult(rows=len(selection.rows), already=len(selection.rows) - len(todo), plan=plan_lines(todo, pre),
                     preflight=pre, concurrency=concurrency, sharing=shared_cache_line(pre, s, concurrency))


def send_order(refs: list[RowRef], order: str) -> list[RowRef]:
    """The order rows are sent in: longest configs first (the default), or the dataset's."""
    return longest_first(refs) if order == "longest" else refs


async def _run(s: RunSettings, api_key: str | None, selection: Selection, store: PredictionStore, meta: RunMeta,
               old: RunMeta | None, log: Callable[[str], None]) -> RunResult:
    todo, resend = pending_rows(selection.rows, store, s.retry_failed)
    result = RunResult(rows=len(selection.rows), already=len(selection.rows) - len(todo))
    result.failure_limit = failure_limit(s.max_failed, len(todo))
    async with opened(s, api_key, selection, todo, log) as opening:
        balancer, pre = opening.balancer, opening.pre
        assert balancer is not None  # RunSettings requires a server unless it writes batch files
        result.preflight = pre
        over = opening.fitting(s.skip_overlong)
        result.concurrency = choose_concurrency(s, pre)
        result.sharing = shared_cache_line(pre, s, result.concurrency)
        announce(pre, s, result, len(over), log)
        if resend:
            store.rewrite(drop=resend)
        session = session_record(s, len(selection.rows), len(todo), pre, result.concurrency)
        doc = (old or RunMeta()).merged(meta).with_(started_at=(old.started_at if old else None) or session.started_at)
        doc = doc.with_(runs=doc.runs + (session,))
        write_meta(s.out, doc)
        for ref in todo:
            if ref.id in over:
                store.append(skipped_line(ref.id, pre.counts[ref.id], pre.skip_reason(ref.id)))
                result.skipped += 1
        try:
            await Sender(balancer, store, selection, s, result, pre, log).send(
                send_order([r for r in todo if r.id not in over], s.order), result.concurrency)
        finally:
            write_meta(s.out, _finish(store, doc, session, result, balancer, len(todo)))
    if result.no_server and result.sent:
        raise NoServerAfterSending(f"{result.no_server}; {s.out} keeps the {result.sent} row(s) that finished: restart "
                                   f"a server and rerun the same command to resume")
    if result.no_server:
        raise OneRulerError(f"{result.no_server}; no row was sent: restart a server and rerun the same command")
    if result.truncation is not None and result.stopped:  # cut prompts stopped it (or were among the failures)
        raise result.truncation
    return result


def pool_slots(s: RunSettings, pre: Preflight) -> int | None:
    """Requests the balancer works on at once: the server's parallel slots times its servers (None: not said)."""
    slots = pre.server.slots if pre.server is not None else None
    return slots * len(s.server.base_urls) if slots else None


def choose_concurrency(s: RunSettings, pre: Preflight) -> int:
    """``concurrency``, else what the balancer's servers work on at once (their slots, or as many of the largest
    requests as fit a cache the slots share), else the default."""
    if s.concurrency is not None:
        return s.concurrency
    together = pre.together()
    return together * len(s.server.base_urls) if together else DEFAULT_CONCURRENCY


def announce(pre: Preflight, s: RunSettings, result: RunResult, skipped: int, log: Callable[[str], None]) -> None:
    """Everything the preflight learnt, before the first request (a killed run has shown it too)."""
    log(pre.describe())
    if result.sharing:
        log(result.sharing)
    slots, concurrency = pre.server.slots if pre.server is not None else None, result.concurrency
    if slots and concurrency > pool_slots(s, pre):
        pre.warnings.append(f"--concurrency {concurrency} is more than the {slots} parallel slot(s) the server works on: "
                            f"the other requests wait in its queue, and that wait counts against --timeout "
                            f"{s.server.retry.timeout_s:g} s")
    if skipped:
        pre.warnings.append(f"{skipped} row(s) do not fit the window and are recorded as skipped (--skip-overlong)")
    for warning in pre.warnings:
        log(f"warning: {warning}")


def shared_cache_line(pre: Preflight, s: RunSettings, concurrency: int) -> str:
    """What a server whose slots share one cache means for the run: the concurrency chosen (or given), and the
    server's flags that would let it work on every slot at once ("" when its slots share nothing)."""
    server = pre.server
    if server is None or not server.shared_cache or not server.slots:
        return ""
    fitting, largest = pre.together() or 1, pre.largest(1)
    held = (f"{fitting} of the longest requests ({largest[0]:,} tokens with the answer)" if largest else "its requests")
    chosen = "given with --concurrency" if s.concurrency is not None else "chosen"
    said = (f"concurrency {concurrency} ({chosen}): the server's {server.slots} slots share one {server.shared_cache:,}"
            f"-token KV cache, which holds {held} at once per server")
    if s.concurrency is not None and concurrency > fitting * len(s.server.base_urls):
        said += (f"; more in flight may overflow it ({server.capacity_error}): those requests are resent with fewer in "
                 f"flight, not failed")
    if fitting < server.slots:
        said += f". To work on all {server.slots} slots at once: {pre.more_at_once()}"
    return said


def _finish(store: PredictionStore, doc: RunMeta, session: SessionRecord, result: RunResult, balancer: ServerBalancer,
            todo: int) -> RunMeta:
    """The meta of a run that ended (finished, stopped or interrupted): the session completed, the lines counted."""
    result.servers = [srv.record() for srv in balancer.servers]
    session = session.with_(ended_at=now(), sent=result.sent, ok=result.ok, failed=result.failed,
                            skipped=result.skipped, stopped=result.stopped, servers=tuple(result.servers))
    if result.resent:  # the server's shared cache overflowed: what was resent, and the concurrency it ended at
        session = session.with_(resent=result.resent, concurrency_end=result.concurrency_end)
    if result.notes:  # what the answers lacked (a finish reason) or held besides text, counted
        session = session.with_(warnings=session.warnings + tuple(result.note_lines))
    if not result.stopped and result.sent + result.skipped == todo:
        store.rewrite()  # a finished file in id order, whatever the order answers came in
    return doc.with_(runs=doc.runs[:-1] + (session,), ended_at=session.ended_at, lines=store.counts())
