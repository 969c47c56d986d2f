"""The run's files: the predictions JSONL (resumable, one flushed line per finished row) and its meta sidecar.

Line: ``{"id", "prediction", "finish_reason", "reasoning", "usage", "latency_s", "error", "status"}``
with ``status`` ``ok``, ``failed`` (``error`` says why, ``prediction`` null) or ``skipped`` (the prompt
did not fit the server's window). A line torn by a kill (no final newline) is cut off on open; every
id appears at most once (``--retry-failed`` first rewrites the file without the lines it resends).
One process at a time: a lock file beside the predictions.
"""

from __future__ import annotations

import fcntl
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable
from urllib.parse import urlsplit, urlunsplit

from ..base.errors import OneRulerError
from ..base.files import atomic_write_bytes
from ..spec.prediction_line import LINE_STATUSES, PredictionLine
from .lines import LineRef, index_lines, reindexed, write_in_id_order

META_FORMAT = "oneruler-run/1"
# Settings that must not change between the runs writing one file (a resumed run mixes their lines).
RESUME_KEYS = ("model", "api", "sampling")


def meta_path(predictions: Path) -> Path:
    """``preds.jsonl`` → ``preds.meta.json`` (any other name gets ``.meta.json`` appended)."""
    predictions = Path(predictions)
    stem = predictions.stem if predictions.suffix == ".jsonl" else predictions.name
    return predictions.with_name(stem + ".meta.json")


def public_url(url: str) -> str:
    """A URL without user, password, query or fragment (where credentials hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    if ":" in host:
        host = f"[{host}]"
    netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def redact(text: str, secret: str | None) -> str:
    """``text`` with every occurrence of ``secret`` replaced by ``***``."""
    return text.replace(secret, "***") if secret else text


def line_bytes(line: PredictionLine) -> bytes:
    """One JSONL line (lone surrogates from model output become valid ``\\udxxx`` escapes)."""
    return (json.dumps(line.to_json(), ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


@dataclass
class PredictionStore:
    """The predictions file of a run, opened for appending under an exclusive lock.

    Holds an index of the lines (id → status and position, ``lines.LineRef``), never their text,
    so memory stays flat however long the answers are.
    """

    path: Path
    index: dict[str, LineRef] = field(default_factory=dict)
    torn_bytes: int = 0
    _handle: Any = None
    _lock: Any = None
    _size: int = 0

    def peek(self) -> "PredictionStore":
        """Read what earlier runs finished without locking or changing anything (for ``--dry-run``)."""
        if self.path.exists():
            self.index, self.torn_bytes = index_lines(self.path)
        return self

    def open(self) -> "PredictionStore":
        """Take the lock and read what earlier runs finished (cutting off a torn last line)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        lock_path = self.path.with_name(f".{self.path.name}.lock")
        self._lock = open(lock_path, "a")
        try:
            fcntl.flock(self._lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._lock.close()
            raise OneRulerError(f"{self.path}: another `oneruler run` is writing this file; wait for it or choose another --out") from None
        if self.path.exists():
            self.index, self.torn_bytes = index_lines(self.path)
            self._size = self.path.stat().st_size - self.torn_bytes
            if self.torn_bytes:
                with open(self.path, "r+b") as fh:
                    fh.truncate(self._size)
        return self

    def ids(self, *statuses: str) -> set[str]:
        """Ids of the lines with one of these statuses."""
        return {i for i, ref in self.index.items() if ref.status in statuses}

    def counts(self) -> dict[str, int]:
        """Lines per status."""
        out = dict.fromkeys(LINE_STATUSES, 0)
        for ref in self.index.values():
            out[ref.status] += 1
        return out

    def append(self, record: PredictionLine) -> None:
        """Write one finished row as a line, flushed to the OS at once (survives a kill of this process)."""
        if self._handle is None:  # created on the first line: a run refused before sending leaves no file
            self._handle = open(self.path, "ab", buffering=0)
        data = line_bytes(record)
        self._handle.write(data)
        self.index[record.id] = LineRef(record.status, self._size, len(data))
        self._size += len(data)

    def rewrite(self, drop: Iterable[str] = ()) -> None:
        """Atomically rewrite the file in id order, without the lines of ``drop`` (line by line, not in memory)."""
        for ident in drop:
            self.index.pop(ident, None)
        if self._handle is not None:
            self._handle.close()
            self._handle = None
        write_in_id_order(self.path, [self.path], self.index)
        self.index = reindexed(self.index)
        self._size = sum(ref.size for ref in self.index.values())

    def close(self) -> None:
        """Flush to disk and release the lock."""
        if self._handle is not None:
            os.fsync(self._handle.fileno())
            self._handle.close()
            self._handle = None
        if self._lock is not None:
            Path(self._lock.name).unlink(missing_ok=True)
            self._lock.close()
            self._lock = None


def read_meta(predictions: Path) -> dict | None:
    """The sidecar meta of a predictions file (None: there is none)."""
    path = meta_path(predictions)
    if not path.is_file():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise OneRulerError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or doc.get("format") != META_FORMAT:
        raise OneRulerError(f"{path}: not a `oneruler run` meta file (format {doc.get('format') if isinstance(doc, dict) else None!r})")
    return doc


def write_meta(predictions: Path, doc: dict) -> None:
    """Atomically write the sidecar meta."""
    text = json.dumps(doc, ensure_ascii=False, indent=2) + "\n"
    atomic_write_bytes(meta_path(predictions), text.encode("utf-8"))


def check_resumable(old: dict, new: dict, predictions: Path) -> None:
    """Refuse to add lines made with other settings (model, API, sampling, dataset) to a file."""
    for key in RESUME_KEYS:
        if old.get(key) != new.get(key):
            raise OneRulerError(f"{predictions} was written with {key} {json.dumps(old.get(key))}, this run has "
                                f"{json.dumps(new.get(key))}; resume with the same settings or choose another --out")
    before, now = old.get("dataset") or {}, new.get("dataset") or {}
    for key in ("manifest_sha256", "revision"):
        if before.get(key) != now.get(key):
            raise OneRulerError(f"{predictions} was written from another dataset ({key} {before.get(key)!r}, now "
                                f"{now.get(key)!r}); choose another --out")
    shard, now_shard = (old.get("selection") or {}).get("shard"), (new.get("selection") or {}).get("shard")
    if shard != now_shard:
        raise OneRulerError(f"{predictions} holds shard {shard or 'none (the whole selection)'}, this run asks for "
                            f"{now_shard or 'the whole selection'}; give each shard its own --out")
