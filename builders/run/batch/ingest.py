"""``oneruler ingest``: the batch output files turned into the predictions file ``run`` would have written.

It reads the request file's meta (``write.py``) to write the predictions' meta and to check every
answer against the selection (re-read from the dataset: ids and sizes only); each output line
becomes the line a live answer would have (``results.py``), duplicates settled (an ok answer beats
a failure), the rows left out for the window recorded as skipped, all in id order, under the output's lock.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

from ...base.errors import OneRulerError
from ...base.files import temp_file_beside
from ...spec.run_meta import BatchRecord, IngestRecord, RunMeta, SelectionRecord
from ..files.lines import LineRef, answered_line, line_bytes, skipped_line, write_in_id_order
from ..files.lock import OutputLock, temp_prefix
from ..files.meta import meta_path, now, read_meta, write_meta
from ..rows.selection import Selection, recorded_source
from ..rows.shard import Shard
from .results import completion_of, output_lines


@dataclass
class IngestResult:
    """What ``ingest`` wrote: lines by status, rows of the selection without an answer, duplicates it settled."""

    lines: dict[str, int] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    notes: dict[str, int] = field(default_factory=dict)  # note on answers (no finish reason, ...) → how many


def read_batch_meta(requests: Path) -> tuple[RunMeta, BatchRecord]:
    """The meta written beside a batch request file and its ``batch`` record (one clear error if there is none)."""
    doc = read_meta(requests)
    if doc is None or doc.batch is None:
        raise OneRulerError(f"{meta_path(requests)} is missing or not the meta of `oneruler run --batch-requests`; "
                            f"give the request file the batch was made from")
    return doc, doc.batch


def ingest(results: list[Path], requests: Path, out: Path, dataset: str | None = None) -> IngestResult:
    """Write ``out`` (and its meta) from batch output files: one line per answered, failed or skipped row, id order."""
    doc, batch = read_batch_meta(requests)
    expected = {r.id for r in _selection(doc, dataset).rows}
    result = IngestResult()
    with OutputLock(Path(out), also=(meta_path(Path(out)),)):
        fd, scratch = temp_file_beside(out, ".jsonl", prefix=temp_prefix(Path(out)))
        try:
            with open(fd, "wb") as handle:
                index = _convert(results, doc.api, expected, batch.skipped or {}, handle, result)
            write_in_id_order(out, [scratch], index)
        finally:
            scratch.unlink(missing_ok=True)
        result.lines = {status: sum(ref.status == status for ref in index.values())
                        for status in ("ok", "failed", "skipped")}
        result.missing = sorted(expected - set(index))
        ingested = IngestRecord.of(at=now(), results=tuple(str(p) for p in results), lines=result.lines,
                                   missing=len(result.missing))
        write_meta(out, doc.without("batch").with_(batch=batch, ingested=ingested, lines=result.lines, ended_at=now()))
    return result


def _selection(doc: RunMeta, dataset: str | None) -> Selection:
    """The rows the requests were made for, re-read from the dataset (ids and sizes only)."""
    chosen = doc.selection or SelectionRecord()
    source = recorded_source(doc.dataset, dataset, "the requests were made from")
    shard = Shard.parse(chosen.shard) if chosen.shard else None
    return Selection.read(source, list(chosen.patterns), chosen.limit, shard)


def _convert(results: list[Path], api: str | None, expected: set[str], skipped: dict[str, tuple[int | None, str]],
             handle: BinaryIO, result: IngestResult) -> dict[str, LineRef]:
    """Append one predictions line per answer to ``handle``; settle duplicates (an ok answer beats a failure)."""
    index: dict[str, LineRef] = {}
    offset = 0
    for path in results:
        for number, record in output_lines(path):
            ident = record["custom_id"]
            if ident not in expected:
                raise OneRulerError(f"{path}: line {number}: {ident!r} is not a row the requests were made for")
            done = completion_of(record, api)
            for note in done.notes:
                result.notes[note] = result.notes.get(note, 0) + 1
            answer = answered_line(ident, done)
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
