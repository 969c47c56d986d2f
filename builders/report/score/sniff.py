"""What a file given to ``score`` as its predictions is, when it is plainly something else: one line naming it and
what was expected, instead of a problem per line (a Parquet shard is hundreds of "not valid UTF-8").

Read from its first bytes (at most ``HEAD_BYTES``) and, for a JSON document, from the document: an
export's ``manifest.json`` or dataset card, a run's ``PREDS.meta.json``, a report's ``scores.json``,
a Parquet file, a zip archive that is not an Inspect log. A file that may be predictions (JSON
lines, lm-eval samples) or an Inspect log (``.eval``; a ``.json`` log, a document with ``eval``
and ``version``) is left to its reader.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...export.layout import MANIFEST_FORMAT
from ...spec.run_meta import META_FORMAT

HEAD_BYTES = 1 << 16
DOCUMENT_BYTES = 64 << 20  # a JSON document larger than this is not read whole to be named
EXPECTED = ("expected a predictions file: one JSON object per line with 'id' and 'prediction', as `oneruler run "
            "--out` writes, lm-eval's --log_samples output, or an Inspect log (.eval)")


def is_json_document(path: Path) -> bool:
    """A JSON document spread over lines (its first line opens it alone), which a predictions file is not."""
    with path.open("rb") as handle:
        return handle.readline().strip() in (b"{", b"[")


def named_document(obj: object) -> str | None:
    """What a parsed JSON object of ours (or Inspect's) is; None for a predictions line or an Inspect log."""
    if not isinstance(obj, dict) or "id" in obj or "doc_id" in obj or ("eval" in obj and "version" in obj):
        return None
    fmt = obj.get("format")
    if fmt == MANIFEST_FORMAT or (isinstance(fmt, str) and fmt.startswith("oneruler-export")):
        return "the manifest.json of an export (the dataset, not answers): give its folder to --dataset"
    if fmt == META_FORMAT or ("runs" in obj and "model" in obj):
        return "the meta of a run (PREDS.meta.json), not its predictions: score the PREDS.jsonl beside it"
    if "overall" in obj and "coverage" in obj:
        return "a report's scores.json (what `oneruler score` wrote): compare reports with `oneruler compare`"
    return None


def what_it_is(path: Path) -> str | None:
    """``path`` is ... (a phrase), when it is plainly not predictions; None when its reader should decide."""
    with path.open("rb") as handle:
        head = handle.read(HEAD_BYTES)
    if head.startswith(b"PAR1"):
        return "a Parquet file (an export's data shard?), not predictions: give the export's folder to --dataset"
    if head.startswith(b"PK\x03\x04") and path.suffix != ".eval":
        return "a zip archive, not predictions (an Inspect log is read by its .eval name)"
    first = head.split(b"\n", 1)[0].strip()
    if first.startswith(b"---") or first.startswith(b"#"):
        card = b"\nconfigs:" in head or head.startswith(b"---\nconfigs:")
        return ("a dataset card (README.md of an export): give its folder to --dataset" if card else
                "a Markdown or YAML file, not predictions")
    if first in (b"{", b"[") and path.suffix != ".eval" and path.stat().st_size <= DOCUMENT_BYTES:
        try:
            obj = json.loads(path.read_bytes())
        except ValueError:
            return None
        named = named_document(obj)
        if named is None and not (isinstance(obj, dict) and "eval" in obj and "version" in obj):
            keys = ", ".join(list(obj)[:5]) if isinstance(obj, dict) else "a list"
            return f"a JSON document ({keys}), not one JSON object per line"
        return named
    try:
        return named_document(json.loads(first))
    except ValueError:
        return None
