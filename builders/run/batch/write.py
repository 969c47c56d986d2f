"""``oneruler run … --batch-requests FILE.jsonl``: the requests of a run written to files instead of sent.

The request files come with ``FILE.meta.json``: the run's meta (model, API, sampling, dataset,
selection, the session) plus ``batch`` (``spec.run_meta.BatchRecord``: the files, the rows skipped
because they do not fit the window, and the batch ids once submitted). ``oneruler ingest``
(``ingest.py``) reads it back.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from ...spec.run_meta import BatchFile, BatchRecord, RunMeta
from ..files.lock import OutputLock
from ..files.meta import meta_path, now, write_meta
from ..rows.selection import Selection
from ..server.preflight import Preflight
from ..session import RunResult, opened, session_record
from ..settings import RunSettings
from .requests import ENDPOINTS, BatchWriter, request_line


async def write_batch(s: RunSettings, api_key: str | None, selection: Selection, meta: RunMeta, old: RunMeta | None,
                      log: Callable[[str], None]) -> RunResult:
    """Write every selected row's request (split by the limits), the meta, and submit the files if asked."""
    assert s.batch is not None
    async with opened(s, api_key, selection, selection.rows, log) as opening:
        pre = opening.pre
    for warning in pre.warnings:
        log(f"warning: {warning}")
    if pre.prefix is not None:
        log(pre.prefix_line())
    over = opening.fitting(s.skip_overlong)
    with OutputLock(s.batch.path, also=(meta_path(s.batch.path),)):
        files = _write_files(s, selection, over, pre)
        _remove_stale_parts(s.batch.path, old, files)
        session = session_record(s, len(selection.rows), len(selection.rows) - len(over), pre, None).with_(ended_at=now())
        endpoint = ENDPOINTS[s.server.api]
        record = BatchRecord.of(endpoint=endpoint, files=tuple(files), requests=sum(f.requests for f in files),
                                limits={"max_requests": s.batch.limits.max_requests, "max_bytes": s.batch.limits.max_bytes},
                                skipped={i: (pre.counts[i], pre.skip_reason(i)) for i in sorted(over)}, batches=())
        doc = meta.with_(runs=(session,), batch=record)
        write_meta(s.batch.path, doc)
        if s.batch.submit:
            from .api import submit_files

            ids = submit_files([s.batch.path.with_name(f.file) for f in files], endpoint, _submit_url(s), api_key, log)
            write_meta(s.batch.path, doc.with_(batch=record.with_(batches=tuple(ids))))
    return RunResult(rows=len(selection.rows), skipped=len(over), preflight=pre, batch_files=files)


def _write_files(s: RunSettings, selection: Selection, over: set[str], pre: Preflight) -> list[BatchFile]:
    """Every request line of the rows that fit (answer prefixes in the preflight's form), in files split by the
    limits (renamed into place together)."""
    assert s.batch is not None
    writer = BatchWriter(s.batch.path, s.batch.limits)
    try:
        for batch in selection.prompts([r for r in selection.rows if r.id not in over]):
            for row in batch:
                writer.add(request_line(row, s.server.model, s.server.api, s.sampling, pre.form))
        return writer.commit()
    except BaseException:
        writer.discard()
        raise


def _submit_url(s: RunSettings) -> str | None:
    return s.server.base_urls[0] if s.server.base_urls else None


def _remove_stale_parts(target: Path, old: RunMeta | None, files: list[BatchFile]) -> None:
    """Delete request files an earlier write made that this one did not (e.g. 3 parts then 2)."""
    kept = {f.file for f in files}
    for entry in old.batch.files if old is not None and old.batch is not None else ():
        if entry.file not in kept:
            target.with_name(entry.file).unlink(missing_ok=True)
