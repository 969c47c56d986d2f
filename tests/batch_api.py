"""The Batch API of the loopback stand-in (openai_server.py), and ``vllm run-batch`` in miniature.

OpenAI's Batch API cannot be reached from here, nor can vLLM run on this machine; both are stood
in for by what they document:

- ``POST /v1/files`` (multipart: ``file``, ``purpose=batch``) → a FileObject; ``GET /v1/files/{id}/content``
  → the bytes (openai-python ``resources/files.py``, ``types/file_object.py``).
- ``POST /v1/batches`` (``input_file_id``, ``endpoint``, ``completion_window``, ``metadata``) → a Batch in
  ``validating``; the first ``GET /v1/batches/{id}`` answers ``in_progress``, the next ``completed`` with
  ``output_file_id`` (answers) and ``error_file_id`` (failed requests), ``request_counts``
  (``types/batch.py``). Each request is answered by the same scripted model as the live endpoints.
- Output lines: ``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``, the
  shape of OpenAI's batch output and of vLLM's ``BatchRequestOutput``
  (``vllm/entrypoints/openai/run_batch.py``): ``run_batch`` maps a request file to such lines.
"""

from __future__ import annotations

import email
import email.policy
import json
import re

BATCH_PATH = re.compile(r"^/v1/batches/([\w-]+)$")
FILE_PATH = re.compile(r"^/v1/files/([\w-]+)/content$")


def answer_line(state, request: dict, n: int) -> dict:
    """The batch output line of one request line, answered by the stand-in's scripted model."""
    from openai_server import completion, user_text

    body = request["body"]
    chat = request["url"] == "/v1/chat/completions"
    prompt = user_text(body) if chat else body["prompt"]
    status, obj, _ = completion(state, body, chat, state.identify(prompt))
    return {"id": f"batch_req_{n}", "custom_id": request["custom_id"],
            "response": {"status_code": status, "request_id": f"req_{n}", "body": obj}, "error": None}


def run_batch(state, request_text: str) -> str:
    """What ``vllm run-batch -i requests.jsonl -o results.jsonl`` writes for a request file."""
    lines = [json.loads(x) for x in request_text.splitlines() if x.strip()]
    return "".join(json.dumps(answer_line(state, r, n)) + "\n" for n, r in enumerate(lines))


def _multipart(handler) -> tuple[bytes, str]:
    length = int(handler.headers.get("Content-Length") or 0)
    raw = handler.rfile.read(length)
    message = email.message_from_bytes(b"Content-Type: " + handler.headers["Content-Type"].encode() + b"\r\n\r\n" + raw,
                                       policy=email.policy.HTTP)
    data, name = b"", "upload.jsonl"
    for part in message.iter_parts():
        if part.get_param("name", header="content-disposition") == "file":
            data, name = part.get_payload(decode=True), part.get_filename() or name
    return data, name


def post(handler) -> None:
    """``POST /v1/files`` and ``POST /v1/batches``."""
    state = handler.server.state
    if handler.path == "/v1/files":
        data, name = _multipart(handler)
        handler._record({"file": name, "bytes": len(data)})
        file_id = f"file-{len(state.files) + 1}"
        state.files[file_id] = data
        return handler._json(200, {"id": file_id, "object": "file", "bytes": len(data), "created_at": 0,
                                   "filename": name, "purpose": "batch", "status": "processed"})
    body = handler._body()
    handler._record(body)
    if body.get("input_file_id") not in state.files:
        return handler._error(404, f"no file {body.get('input_file_id')!r}")
    batch_id = f"batch-{len(state.batches) + 1}"
    state.batches[batch_id] = {"id": batch_id, "object": "batch", "endpoint": body["endpoint"], "errors": None,
                               "input_file_id": body["input_file_id"], "completion_window": body["completion_window"],
                               "status": "validating", "output_file_id": None, "error_file_id": None,
                               "created_at": 0, "request_counts": {"total": 0, "completed": 0, "failed": 0},
                               "metadata": body.get("metadata")}
    handler._json(200, state.batches[batch_id])


def _advance(state, batch: dict) -> None:
    if batch["status"] == "validating":
        batch["status"] = "in_progress"
        return
    if batch["status"] != "in_progress":
        return
    lines = [json.loads(x) for x in state.files[batch["input_file_id"]].decode().splitlines() if x.strip()]
    answers = [answer_line(state, r, n) for n, r in enumerate(lines)]
    good = [a for a in answers if a["response"]["status_code"] == 200]
    bad = [a for a in answers if a["response"]["status_code"] != 200]
    for kind, part in (("output_file_id", good), ("error_file_id", bad)):
        if part:
            file_id = f"file-{len(state.files) + 1}"
            state.files[file_id] = "".join(json.dumps(a) + "\n" for a in part).encode()
            batch[kind] = file_id
    batch.update(status="completed", request_counts={"total": len(lines), "completed": len(good), "failed": len(bad)})


def get(handler) -> None:
    """``GET /v1/batches/{id}`` (moves the batch on) and ``GET /v1/files/{id}/content``."""
    state = handler.server.state
    found = BATCH_PATH.match(handler.path)
    if found:
        batch = state.batches.get(found.group(1))
        if batch is None:
            return handler._error(404, f"no batch {found.group(1)!r}")
        _advance(state, batch)
        return handler._json(200, batch)
    found = FILE_PATH.match(handler.path)
    data = state.files.get(found.group(1)) if found else None
    if data is None:
        return handler._error(404, f"no route {handler.path}")
    handler.send_response(200)
    handler.send_header("Content-Type", "application/octet-stream")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)
