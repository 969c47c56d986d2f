"""``oneruler run … --batch-requests FILE.jsonl``: the requests written to files instead of sent, and
``oneruler ingest``: the batch output files turned into the predictions file ``run`` would have written.

The request files come with ``FILE.meta.json``: the run's meta (model, API, sampling, dataset,
selection) plus ``batch`` (the files, the rows skipped because they do not fit the window, and
the batch ids once submitted). ``ingest`` reads it to write the predictions' meta and to check
every answer against the selection (re-read from the dataset: ids and sizes only).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..base.errors import OneRulerError
from ..base.files import temp_file_beside
from .batch import ENDPOINTS, BatchWriter, request_line
from .dataset import Selection, resolve_source
from .ingest import completion_of, output_lines
from .lines import LineRef, answered_line, skipped_line, write_in_id_order
from .runner import RunResult, make_pool, now, run_preflight, session_meta
from .settings import RunSettings
from .store import line_bytes, meta_path, read_meta, write_meta


async def write_batch(s: RunSettings, api_key: str | None, selection: Selection, meta: dict, old: dict | None,
                      log: Callable[[str], None]) -> RunResult:
    """Write every selected row's request (split by the limits), the meta, and submit the files if asked."""
    assert s.batch is not None
    pool = make_pool(s, api_key, log)
    try:
        pre = await run_preflight(pool, selection, selection.rows, s, offline_ok=False)
    finally:
        if pool is not None:
            await pool.close()
    for warning in pre.warnings:
        log(f"warning: {warning}")
    over = set(pre.overlong)
    if over and not s.skip_overlong:
        raise OneRulerError(pre.refusal())
    writer = BatchWriter(s.batch.path, s.batch.limits)
    try:
        for batch in selection.prompts([r for r in selection.rows if r.id not in over]):
            for row in batch:
                writer.add(request_line(row, s.server.model, s.server.api, s.sampling))
        files = writer.commit()
    except BaseException:
        writer.discard()
        raise
    _remove_stale_parts(s.batch.path, old, files)
    session = dict(session_meta(s, len(selection.rows), len(selection.rows) - len(over), pre, None), ended_at=now())
    doc = dict(meta, runs=[session], batch={
        "endpoint": ENDPOINTS[s.server.api], "files": files, "requests": sum(f["requests"] for f in files),
        "limits": {"max_requests": s.batch.limits.max_requests, "max_bytes": s.batch.limits.max_bytes},
        "skipped": {i: [pre.counts[i], pre.skip_reason(i)] for i in sorted(over)}, "batches": []})
    write_meta(s.batch.path, doc)
    if s.batch.submit:
        from .batchapi import submit_files

        doc["batch"]["batches"] = submit_files([s.batch.path.with_name(f["file"]) for f in files],
                                               doc["batch"]["endpoint"], _submit_url(s), api_key, log)
        write_meta(s.batch.path, doc)
    return RunResult(rows=len(selection.rows), skipped=len(over), preflight=pre, batch_files=files)


def _submit_url(s: RunSettings) -> str | None:
    return s.server.base_urls[0] if s.server.base_urls else None


def _remove_stale_parts(target: Path, old: dict | None, files: list[dict]) -> None:
    """Delete request files an earlier write made that this one did not (e.g. 3 parts then 2)."""
    kept = {f["file"] for f in files}
    for entry in ((old or {}).get("batch") or {}).get("files", []):
        if entry.get("file") not in kept:
            target.with_name(entry["file"]).unlink(missing_ok=True)


@dataclass
class IngestResult:
    """What ``ingest`` wrote: lines by status, rows of the selection without an answer, duplicates it settled."""

    lines: dict[str, int] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)


def read_batch_meta(requests: Path) -> dict:
    """The meta written beside a batch request file (one clear error if there is none)."""
    doc = read_meta(requests)
    if doc is None or "batch" not in doc:
        raise OneRulerError(f"{meta_path(requests)} is missing or not the meta of `oneruler run --batch-requests`; "
                            f"give the request file the batch was made from")
    return doc


def ingest(results: list[Path], requests: Path, out: Path, dataset: str | None = None) -> IngestResult:
    """Write ``out`` (and its meta) from batch output files: one line per answered, failed or skipped row, id order."""
    doc = read_batch_meta(requests)
    expected = {r.id for r in _selection(doc, dataset).rows}
    skipped = doc["batch"].get("skipped") or {}
    fd, scratch = temp_file_beside(out, ".jsonl")
    result = IngestResult()
    try:
        with open(fd, "wb") as handle:
            index = _convert(results, doc["api"], expected, skipped, handle, result)
        write_in_id_order(out, [scratch], index)
    finally:
        scratch.unlink(missing_ok=True)
    result.lines = {status: sum(ref.status == status for ref in index.values()) for status in ("ok", "failed", "skipped")}
    result.missing = sorted(expected - set(index))
    meta = {k: v for k, v in doc.items() if k != "batch"}
    meta.update(batch=doc["batch"], ingested={"at": now(), "results": [str(p) for p in results],
                                              "lines": result.lines, "missing": len(result.missing)},
                lines=result.lines, ended_at=now())
    write_meta(out, meta)
    return result


def _selection(doc: dict, dataset: str | None) -> Selection:
    """The rows the requests were made for, re-read from the dataset (ids and sizes only)."""
    from .shard import Shard

    ident, chosen = doc["dataset"], doc.get("selection") or {}
    source = resolve_source(dataset or ident["name"], None if dataset else ident.get("revision"))
    if ident.get("manifest_sha256") and source.identity().manifest_sha256 != ident["manifest_sha256"]:
        raise OneRulerError(f"dataset {source.name!r} is not the one the requests were made from (manifest sha256 "
                            f"differs); give that dataset with --dataset")
    shard = Shard.parse(chosen["shard"]) if chosen.get("shard") else None
    return Selection.read(source, chosen.get("patterns") or [], chosen.get("limit"), shard)


def _convert(results: list[Path], api: str, expected: set[str], skipped: dict, handle, result: IngestResult):
    """Append one predictions line per answer to ``handle``; settle duplicates (an ok answer beats a failure)."""
    index: dict[str, LineRef] = {}
    offset = 0
    for path in results:
        for number, record in output_lines(path):
            ident = record["custom_id"]
            if ident not in expected:
                raise OneRulerError(f"{path}: line {number}: {ident!r} is not a row the requests were made for")
            answer = answered_line(ident, completion_of(record, api))
            line, status = line_bytes(answer), answer.status
            first = index.get(ident)
            if first is not None:
                if first.status == "ok" and status == "ok":
                    raise OneRulerError(f"{path}: line {number}: {ident!r} is answered twice; give each batch's "
                                        f"output once")
                if status == "failed":
                    continue
                result.replaced.append(ident)
            handle.write(line)
            index[ident] = LineRef(status, offset, len(line))
            offset += len(line)
    for ident, (tokens, reason) in sorted(skipped.items()):
        line = line_bytes(skipped_line(ident, tokens, reason))
        handle.write(line)
        index[ident] = LineRef("skipped", offset, len(line))
        offset += len(line)
    return index
