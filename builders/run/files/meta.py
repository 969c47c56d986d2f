"""The meta beside a predictions file (``PREDS.meta.json``): where it lies, reading and writing it as a
``spec.run_meta.RunMeta``, the times it records, and the settings a resumed run must keep.

The one reader (``read_meta``: a file of the wrong shape is one error naming the file and the field)
and the one writer (``write_meta``, atomic) of the file; ``score`` reads it through ``read_meta`` too.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from ...base.errors import OneRulerError, named_setting
from ...base.files import atomic_write_bytes
from ...spec.run_meta import META_FORMAT, RunMeta
from .lock import temp_prefix

# Settings that must not change between the runs writing one file (a resumed run mixes their lines).
RESUME_KEYS = ("model", "api", "sampling")


def meta_path(predictions: Path) -> Path:
    """``preds.jsonl`` → ``preds.meta.json`` (any other name gets ``.meta.json`` appended)."""
    predictions = Path(predictions)
    stem = predictions.stem if predictions.suffix == ".jsonl" else predictions.name
    return predictions.with_name(stem + ".meta.json")


def now() -> str:
    """The current UTC time, ISO 8601 to the second (as every time in the meta)."""
    return dt.datetime.now(dt.timezone.utc).replace(microsecond=0).isoformat()


def read_meta(predictions: Path) -> RunMeta | None:
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
    try:
        return RunMeta.from_json(doc)
    except ValueError as exc:
        raise OneRulerError(f"{path}: not a `oneruler run` meta file: {exc}") from None


def write_meta(predictions: Path, meta: RunMeta) -> None:
    """Atomically write the sidecar meta."""
    text = json.dumps(meta.to_json(), ensure_ascii=False, indent=2) + "\n"
    path = meta_path(predictions)
    atomic_write_bytes(path, text.encode("utf-8"), prefix=temp_prefix(path))


def _refuse(said: str, fix: str) -> OneRulerError:
    return OneRulerError(f"{said}; {fix}")


def check_resumable(old: RunMeta, new: RunMeta, predictions: Path) -> None:
    """Refuse to add lines made with other settings (model, API, sampling, dataset) to a file."""
    for key in RESUME_KEYS:
        before, after = getattr(old, key), getattr(new, key)
        if before != after:
            raise _refuse(f"{predictions} was written with {key} {json.dumps(before)}, this run has "
                          f"{json.dumps(after)}", f"resume with the same settings or choose another {named_setting('out')}")
    for key in ("manifest_sha256", "revision"):
        before, after = old.dataset_field(key), new.dataset_field(key)
        if before != after:
            raise _refuse(f"{predictions} was written from another dataset ({key} {before!r}, now {after!r})",
                          f"choose another {named_setting('out')}")
    if old.shard != new.shard:
        raise _refuse(f"{predictions} holds shard {old.shard or 'none (the whole selection)'}, this run asks for "
                      f"{new.shard or 'the whole selection'}", f"give each shard its own {named_setting('out')}")
