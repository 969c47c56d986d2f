"""``oneruler merge PREDS... --out PREDS.jsonl``: the predictions files of ``--shard I/N`` runs joined into one.

The shards must come from one run: the same model, API, sampling, dataset (manifest sha256 and
commit) and selection (globs, limit, number of shares); a setting that differs is named. An id
found in two files is refused unless the two lines are byte-identical (then it is reported and
written once). Rows of the selection that no file answers are reported, and the selection is
re-read from the dataset (ids and sizes only) to name them. Lines are copied, not parsed into
memory, into one file in id order; its meta lists the shards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ..base.errors import OneRulerError
from .dataset import Selection, resolve_source
from ..spec.prediction_line import PredictionLine
from .lines import LineRef, index_lines, write_in_id_order
from .runner import now
from .shard import Shard
from .store import read_meta, write_meta

SAME = ("model", "api", "preset", "sampling", "stream")


@dataclass
class MergeResult:
    """What the merge found: lines by status, duplicates written once, rows no shard answered, shards absent."""

    lines: dict[str, int] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    absent_shards: list[int] = field(default_factory=list)


def _metas(paths: list[Path]) -> list[dict]:
    metas = []
    for path in paths:
        meta = read_meta(path)
        if meta is None:
            raise OneRulerError(f"{path}: no meta file beside it; merge the predictions files `oneruler run` wrote")
        metas.append(meta)
    return metas


def check_same_run(paths: list[Path], metas: list[dict]) -> None:
    """Refuse files written with different settings, naming the first setting that differs."""
    first = metas[0]
    for path, meta in zip(paths[1:], metas[1:]):
        for key in SAME:
            if meta.get(key) != first.get(key):
                raise OneRulerError(f"{path} was written with {key} {json.dumps(meta.get(key))}, {paths[0]} with "
                                    f"{json.dumps(first.get(key))}: these are not shards of one run")
        for key in ("name", "revision", "manifest_sha256"):
            if (meta.get("dataset") or {}).get(key) != (first.get("dataset") or {}).get(key):
                raise OneRulerError(f"{path} and {paths[0]} read different datasets (dataset {key} "
                                    f"{(meta.get('dataset') or {}).get(key)!r} vs {(first.get('dataset') or {}).get(key)!r})")
        mine, theirs = _selection_key(meta), _selection_key(first)
        if mine != theirs:
            raise OneRulerError(f"{path} and {paths[0]} cover different selections (globs, limit, shares: {mine} vs "
                                f"{theirs}): these are not shards of one run")


def _selection_key(meta: dict) -> tuple:
    chosen = meta.get("selection") or {}
    shard = chosen.get("shard")
    return tuple(chosen.get("patterns") or ()), chosen.get("limit"), Shard.parse(shard).count if shard else None


def _index(paths: list[Path], result: MergeResult) -> dict[str, LineRef]:
    index: dict[str, LineRef] = {}
    for n, path in enumerate(paths):
        lines, torn = index_lines(path, file=n)
        if torn:
            raise OneRulerError(f"{path} ends in a torn line (an interrupted run): resume that shard first")
        for ident, ref in lines.items():
            first = index.get(ident)
            if first is None:
                index[ident] = ref
            elif _outcome(_line(paths, first)) == _outcome(_line(paths, ref)):
                result.duplicates.append(ident)
            else:
                raise OneRulerError(f"{ident!r} has different lines in {paths[first.file]} and {path}: the same row "
                                    f"was answered twice; keep one of the files out of the merge")
    return index


def _outcome(line: bytes) -> tuple:
    """What a line says the model did (its latency and token counts aside)."""
    return PredictionLine.from_json(json.loads(line), 0).outcome


def _line(paths: list[Path], ref: LineRef) -> bytes:
    with open(paths[ref.file], "rb") as handle:
        handle.seek(ref.offset)
        return handle.read(ref.size)


def merge(paths: list[Path], out: Path, dataset: str | None = None) -> MergeResult:
    """Join shard files into ``out`` (id order) with a meta listing the shards; see the module docstring."""
    if Path(out).resolve() in {p.resolve() for p in paths}:
        raise OneRulerError(f"--out {out} is one of the files to merge; write the merged file elsewhere")
    metas = _metas(paths)
    check_same_run(paths, metas)
    result = MergeResult()
    index = _index(paths, result)
    shards = [(meta.get("selection") or {}).get("shard") for meta in metas]
    count = Shard.parse(shards[0]).count if shards[0] else None
    if count is not None:
        result.absent_shards = sorted(set(range(count)) - {Shard.parse(x).index for x in shards if x})
    result.missing = sorted(_expected(metas[0], dataset) - set(index))
    write_in_id_order(Path(out), list(paths), index)
    result.lines = {s: sum(ref.status == s for ref in index.values()) for s in ("ok", "failed", "skipped")}
    doc = {k: v for k, v in metas[0].items() if k not in ("runs", "started_at", "ended_at", "lines")}
    doc["selection"] = dict(doc.get("selection") or {}, shard=None)
    doc.update(lines=result.lines, merged_at=now(), runs=[run for meta in metas for run in meta.get("runs", [])],
               shards=[{"file": str(p), "shard": x, "lines": meta.get("lines")} for p, x, meta in zip(paths, shards, metas)],
               missing=len(result.missing), duplicates=len(result.duplicates))
    write_meta(Path(out), doc)
    return result


def _expected(meta: dict, dataset: str | None) -> set[str]:
    """Every row id of the whole selection the shards were cut from."""
    ident, chosen = meta.get("dataset") or {}, meta.get("selection") or {}
    source = resolve_source(dataset or ident["name"], None if dataset else ident.get("revision"))
    if ident.get("manifest_sha256") and source.identity().manifest_sha256 != ident["manifest_sha256"]:
        raise OneRulerError(f"dataset {source.name!r} is not the one the shards read (manifest sha256 differs); "
                            f"give that dataset with --dataset")
    return {r.id for r in Selection.read(source, chosen.get("patterns") or [], chosen.get("limit")).rows}
