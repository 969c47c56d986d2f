"""Batch output files → a predictions file, line for line what ``oneruler run`` would have written.

Output lines (OpenAI Batch API; ``vllm run-batch -o`` writes the same shape,
``vllm/entrypoints/openai/run_batch.py:BatchRequestOutput``)::

    {"id": "...", "custom_id": "<row id>", "error": null | {...} | "text",
     "response": {"status_code": 200, "request_id": "...", "body": {chat.completion or text_completion}}}

A 200 response is read like a live answer (``server.answers.answer_parts``: the answer split from the
reasoning, finish reason, usage); any other status, an ``error`` or a body that holds no answer is a
``failed`` line whose error says so in words. ``latency_s`` is null: a batch has no per-request time.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator

from ...base.errors import OneRulerError
from ...spec.ids import check_id
from ..server.answers import BadAnswer, answer_parts
from ..server.client import Completion, split_answer

ERROR_CHARS = 500


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        inner = error.get("error") if isinstance(error.get("error"), dict) else error
        parts = [str(inner.get(k)) for k in ("code", "message") if inner.get(k)]
        return ": ".join(parts) or json.dumps(error)[:ERROR_CHARS]
    return str(error)[:ERROR_CHARS]


def completion_of(record: dict, api: str) -> Completion:
    """The Completion one batch output line stands for (a failure named in words)."""
    response = record.get("response")
    if record.get("error") not in (None, "", {}):
        status = f"HTTP {response.get('status_code')}: " if isinstance(response, dict) else ""
        return Completion(None, None, None, None, None, f"batch request failed: {status}{_error_text(record['error'])}")
    if not isinstance(response, dict):
        return Completion(None, None, None, None, None, "batch output line has neither a response nor an error")
    body, status = response.get("body"), response.get("status_code")
    if status != 200:
        return Completion(None, None, None, None, None, f"batch request failed: HTTP {status}: {_error_text(body)}")
    return _parsed(body, api)


def _parsed(body: Any, api: str) -> Completion:
    try:
        parts = answer_parts(body, api, "the batch response body")
    except BadAnswer as exc:
        return Completion(None, None, None, None, None, str(exc)[:ERROR_CHARS])
    answer, reasoning = split_answer(parts.content, parts.reasoning)
    return Completion(answer, parts.finish_reason, reasoning, parts.usage, None, notes=parts.notes)


def output_lines(path: Path) -> Iterator[tuple[int, dict]]:
    """(line number, record) of a batch output file, each with a row id as ``custom_id``; bad lines are errors."""
    with open(path, "rb") as handle:
        for number, raw in enumerate(handle, 1):
            if not raw.strip():
                continue
            try:
                record = json.loads(raw.decode("utf-8"))
                if not isinstance(record, dict) or not isinstance(record.get("custom_id"), str):
                    raise ValueError("no custom_id")
                check_id(record["custom_id"], number)
            except (ValueError, UnicodeDecodeError) as exc:
                raise OneRulerError(f"{path}: line {number} is not a batch output line of oneruler requests "
                                    f"({str(exc)[:200]})") from None
            yield number, record
