"""Submitting request files to a Batch API and fetching the results, with the official ``openai`` client.

``submit_files``: each file is uploaded (``POST /v1/files``, purpose ``batch``) and a batch created
for it (``POST /v1/batches``, completion window 24h). ``fetch_results``: each batch is polled
(``GET /v1/batches/{id}``) until it ends or ``wait_s`` runs out, then its output and error files
are downloaded (``GET /v1/files/{id}/content``) next to the request file. Every call has the
client's timeout; the polling has a deadline. A base URL's query goes with every call and its
credentials are never shown (``server.secrets.BaseAddress``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Callable

from ...base.errors import OneRulerError, named_setting
from ...base.files import atomic_write_bytes
from ..server.secrets import BaseAddress, redact

TIMEOUT_S = 300.0
FINAL = ("completed", "failed", "expired", "cancelled")


def _client(base_url: str | None, api_key: str | None):
    import openai

    if not api_key:
        raise OneRulerError("a Batch API needs a key: set OPENAI_API_KEY")
    if base_url is None:
        return openai.OpenAI(api_key=api_key, timeout=TIMEOUT_S, max_retries=3)
    address = BaseAddress.parse(base_url)
    return openai.OpenAI(api_key=api_key, base_url=address.url, timeout=TIMEOUT_S, max_retries=3,
                         default_query=dict(address.query) or None)


def _secrets(base_url: str | None, api_key: str | None) -> tuple[str | None, ...]:
    """Everything an error text must not show: the key, the base URL's credentials and query values."""
    return (api_key, *(BaseAddress.parse(base_url).secrets() if base_url else ()))


def _fail(what: str, exc: Exception, secrets: tuple[str | None, ...]) -> OneRulerError:
    text = " ".join((getattr(exc, "message", None) or str(exc) or type(exc).__name__).split())
    return OneRulerError(f"{what}: {redact(text, *secrets)[:400]}")


def submit_files(files: list[Path], endpoint: str, base_url: str | None, api_key: str | None,
                 log: Callable[[str], None]) -> list[str]:
    """Upload each request file and create its batch; returns the batch ids in file order."""
    client, secrets = _client(base_url, api_key), _secrets(base_url, api_key)
    ids = []
    for path in files:
        try:
            with open(path, "rb") as handle:
                uploaded = client.files.create(file=(path.name, handle), purpose="batch")
            batch = client.batches.create(input_file_id=uploaded.id, endpoint=endpoint, completion_window="24h",
                                          metadata={"oneruler_requests": path.name})
        except Exception as exc:  # noqa: BLE001 - any API failure is one line
            raise _fail(f"cannot submit {path.name}", exc, secrets) from None
        log(f"submitted {path.name}: batch {batch.id} ({batch.status})")
        ids.append(batch.id)
    return ids


def fetch_results(batch_ids: list[str], folder: Path, base_url: str | None, api_key: str | None, wait_s: float,
                  poll_s: float, log: Callable[[str], None]) -> list[Path]:
    """Wait (up to ``wait_s``) for the batches to end, then download their output and error files into ``folder``."""
    client, secrets = _client(base_url, api_key), _secrets(base_url, api_key)
    deadline = time.monotonic() + wait_s
    pending = list(batch_ids)
    done = {}
    while pending:
        for batch_id in list(pending):
            try:
                batch = client.batches.retrieve(batch_id)
            except Exception as exc:  # noqa: BLE001
                raise _fail(f"cannot read batch {batch_id}", exc, secrets) from None
            if batch.status in FINAL:
                done[batch_id] = batch
                pending.remove(batch_id)
                log(f"batch {batch_id}: {batch.status} ({_counts(batch)})")
        if pending:
            if time.monotonic() + poll_s > deadline:
                raise OneRulerError(f"{len(pending)} batch(es) still running after {wait_s:.0f} s ({', '.join(pending)}); "
                                    f"run `oneruler ingest` again later, or wait longer with {named_setting('wait_s')}")
            time.sleep(poll_s)
    return _download(client, [done[i] for i in batch_ids], folder, secrets)


def _counts(batch) -> str:
    counts = getattr(batch, "request_counts", None)
    return f"{counts.completed} completed, {counts.failed} failed of {counts.total}" if counts else "no counts"


def _download(client, batches: list, folder: Path, secrets: tuple[str | None, ...]) -> list[Path]:
    paths = []
    for batch in batches:
        for kind, file_id in (("output", batch.output_file_id), ("errors", batch.error_file_id)):
            if not file_id:
                continue
            try:
                data = client.files.content(file_id).content
            except Exception as exc:  # noqa: BLE001
                raise _fail(f"cannot download the {kind} file of batch {batch.id}", exc, secrets) from None
            path = Path(folder) / f"{batch.id}-{kind}.jsonl"
            atomic_write_bytes(path, data)
            paths.append(path)
        if batch.status != "completed" and not batch.output_file_id and not batch.error_file_id:
            raise OneRulerError(f"batch {batch.id} ended {batch.status} without results "
                                f"({getattr(batch, 'errors', None) or 'no reason given'})")
    return paths
