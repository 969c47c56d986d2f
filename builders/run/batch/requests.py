"""Batch request files: the requests a run would send, one JSON line each, for a batch API or ``vllm run-batch``.

One line per row in the OpenAI Batch API input format (the shape ``vllm run-batch -i`` reads too,
``vllm/entrypoints/openai/run_batch.py:BatchRequestInput``)::

    {"custom_id": "<row id>", "method": "POST", "url": "/v1/chat/completions", "body": {...}}

``body`` holds exactly what ``oneruler run`` would send for the row: the model, the prompt as the
single user message (``/v1/completions``: as ``prompt``) and every sampling setting, presets and
``--extra-body`` included (``extra_body`` fields are merged into the body, as the ``openai`` client
does when it sends them). Files are split to respect the provider's limits (OpenAI: 50,000
requests and 200 MB per input file); parts are written under temporary names (``.FILE.tmp-*``: the next
write removes those a kill left) and renamed together at the end, so an interrupted write leaves the
previous files as they were.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from ...base.errors import OneRulerError, named_setting
from ...base.files import temp_file_beside
from ...spec.run_meta import BatchFile
from ..files.lock import temp_prefix
from ..request_settings import SamplingSettings
from ..rows.selection import RunRow
from ..settings import BatchLimits

ENDPOINTS = {"chat": "/v1/chat/completions", "completions": "/v1/completions"}


def request_body(row: RunRow, model: str, api: str, sampling: SamplingSettings) -> dict[str, Any]:
    """The body ``oneruler run`` would POST for ``row`` (``extra_body`` merged in as the client merges it)."""
    kwargs = sampling.request_kwargs(row.reserve, api, row.task)
    extra = kwargs.pop("extra_body", {})
    prompt = {"messages": [{"role": "user", "content": row.input}]} if api == "chat" else {"prompt": row.input}
    return {"model": model, **prompt, **kwargs, **extra}


def request_line(row: RunRow, model: str, api: str, sampling: SamplingSettings) -> bytes:
    """One line of a batch request file."""
    line = {"custom_id": row.id, "method": "POST", "url": ENDPOINTS[api], "body": request_body(row, model, api, sampling)}
    return (json.dumps(line, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


def part_paths(target: Path, count: int) -> list[Path]:
    """The files of a request set: ``target`` itself when one is enough, else ``stem-001.jsonl``, ``stem-002.jsonl``…"""
    if count == 1:
        return [target]
    stem = target.stem if target.suffix == ".jsonl" else target.name
    return [target.with_name(f"{stem}-{n:03d}.jsonl") for n in range(1, count + 1)]


@dataclass
class BatchWriter:
    """Writes request lines into as many parts as the limits need; ``commit`` renames them into place."""

    target: Path
    limits: BatchLimits = BatchLimits()
    parts: list[tuple[Path, int, int]] = field(default_factory=list)  # (temp file, requests, bytes)
    _handle: BinaryIO | None = None

    def add(self, line: bytes) -> None:
        """Append one request, starting a new part when this one would pass a limit."""
        if len(line) > self.limits.max_bytes:
            raise OneRulerError(f"one request is {len(line):,} bytes, over {named_setting('max_bytes')} {self.limits.max_bytes:,}")
        if not self.parts or self.parts[-1][1] + 1 > self.limits.max_requests or \
                self.parts[-1][2] + len(line) > self.limits.max_bytes:
            self._start()
        assert self._handle is not None
        self._handle.write(line)
        temp, requests, size = self.parts[-1]
        self.parts[-1] = (temp, requests + 1, size + len(line))

    def _start(self) -> None:
        self._close_handle()
        fd, temp = temp_file_beside(self.target, ".jsonl", prefix=temp_prefix(self.target))
        self._handle = os.fdopen(fd, "wb")
        self.parts.append((temp, 0, 0))

    def _close_handle(self) -> None:
        if self._handle is not None:
            self._handle.flush()
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None

    def commit(self) -> list[BatchFile]:
        """Rename every part into place; returns each file's name, requests and bytes."""
        self._close_handle()
        names = part_paths(self.target, len(self.parts))
        for (temp, _, _), name in zip(self.parts, names):
            os.replace(temp, name)
        return [BatchFile.of(file=name.name, requests=n, bytes=size) for (_, n, size), name in zip(self.parts, names)]

    def discard(self) -> None:
        """Remove the temporary parts (an interrupted or failed write)."""
        self._close_handle()
        for temp, _, _ in self.parts:
            temp.unlink(missing_ok=True)
        self.parts.clear()
