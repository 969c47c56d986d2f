"""Predictions files as an index of lines: id → (status, where the line is), never the lines themselves.

A run over the whole benchmark writes 47,600 lines, each possibly with thousands of tokens of
reasoning: gigabytes. Resuming, merging shards and the final rewrite in id order keep only this
index in memory and copy each line from where it lies (``write_in_id_order``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterable

from ...base.errors import OneRulerError
from ...base.files import atomic_write
from ...spec.ids import id_order
from ...spec.prediction_line import LineStatus, PredictionLine
from .lock import temp_prefix


@dataclass(frozen=True)
class LineRef:
    """Where one line is (``file`` indexes the list of files being read) and the status it records."""

    status: LineStatus
    offset: int
    size: int
    file: int = 0


def line_bytes(line: PredictionLine) -> bytes:
    """One JSONL line (lone surrogates from model output become valid ``\\udxxx`` escapes)."""
    return (json.dumps(line.to_json(), ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


def parse_line(raw: bytes, path: Path, number: int) -> PredictionLine:
    """One complete line of a file ``oneruler run`` wrote; anything else is an error naming the file and the line."""
    try:
        return PredictionLine.from_json(json.loads(raw.decode("utf-8")), number)
    except (ValueError, UnicodeDecodeError) as exc:
        raise OneRulerError(f"{path}: line {number} is not a `oneruler run` prediction line ({exc}); "
                            f"repair it or choose another file") from None


def index_lines(path: Path, file: int = 0, on_line: Callable[[PredictionLine], None] | None = None,
                ) -> tuple[dict[str, LineRef], int]:
    """(id → LineRef of every complete line, bytes of a torn last line) of a predictions file, read as a stream.

    A repeated id is an error naming the line; ``on_line`` sees each parsed record (e.g. to check it).
    """
    index: dict[str, LineRef] = {}
    offset = torn = 0
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.endswith(b"\n"):  # killed mid-write: the partial line is not a result
                torn = len(raw)
                break
            if raw.strip():
                record = parse_line(raw, path, number)
                if record.id in index:
                    raise OneRulerError(f"{path}: line {number} repeats id {record.id!r}; repair it or choose "
                                        f"another file")
                index[record.id] = LineRef(record.status, offset, len(raw), file)
                if on_line is not None:
                    on_line(record)
            offset += len(raw)
    return index, torn


def copy_lines(out: BinaryIO, files: list[Path], refs: Iterable[LineRef]) -> None:
    """Copy the referenced lines, in the order given, from ``files`` to ``out``."""
    handles: dict[int, BinaryIO] = {}
    try:
        for ref in refs:
            handle = handles.get(ref.file)
            if handle is None:
                handle = handles[ref.file] = open(files[ref.file], "rb")
            handle.seek(ref.offset)
            out.write(handle.read(ref.size))
    finally:
        for handle in handles.values():
            handle.close()


def write_in_id_order(target: Path, files: list[Path], index: dict[str, LineRef]) -> None:
    """Atomically (re)write ``target`` with the indexed lines in id order (``target`` may be one of ``files``), through
    a temp file named after it (``lock.temp_prefix``: the next holder of its lock removes one a kill left)."""
    order = sorted(index, key=id_order)
    atomic_write(target, lambda out: copy_lines(out, files, (index[i] for i in order)), prefix=temp_prefix(target))


def reindexed(index: dict[str, LineRef]) -> dict[str, LineRef]:
    """The index of a file written by ``write_in_id_order`` from ``index`` (same statuses, new offsets)."""
    out: dict[str, LineRef] = {}
    offset = 0
    for ident in sorted(index, key=id_order):
        ref = index[ident]
        out[ident] = LineRef(ref.status, offset, ref.size, 0)
        offset += ref.size
    return out


def answered_line(ident: str, done: Any) -> PredictionLine:
    """The predictions line of a row that was sent (``done``: a ``server.client.Completion``; ``wait_s`` when streamed)."""
    return PredictionLine(ident, done.prediction, done.finish_reason, done.reasoning, done.usage, done.latency_s,
                          done.error, "failed" if done.error else "ok", getattr(done, "wait_s", None))


def skipped_line(ident: str, prompt_tokens: int | None, reason: str) -> PredictionLine:
    """The predictions line of a row not sent because it does not fit the window."""
    return PredictionLine(ident, None, None, None,
                          {"prompt_tokens": prompt_tokens, "completion_tokens": 0, "reasoning_tokens": None},
                          None, reason, "skipped")
