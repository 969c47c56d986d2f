"""``oneruler merge PREDS... --out PREDS.jsonl``: the predictions files of ``--shard I/N`` runs joined into one.

The shards must come from one run: the same model, API, sampling, dataset (manifest sha256 and
commit) and selection (globs, limit, number of shares); a setting that differs is named. An id
found in two files is refused unless the two lines are byte-identical (then it is reported and
written once). Rows of the selection that no file answers are reported, and the selection is
re-read from the dataset (ids and sizes only) to name them. Lines are copied, not parsed into
memory, into one file in id order (under its lock, ``lock.OutputLock``); its meta lists the shards.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from ...base.errors import OneRulerError, named_setting
from ...spec.prediction_line import PredictionLine
from ...spec.run_meta import RunMeta, SelectionRecord, ShardRecord
from ..rows.selection import Selection, recorded_source
from ..rows.shard import Shard
from .lines import LineRef, index_lines, write_in_id_order
from .lock import OutputLock
from .meta import meta_path, now, read_meta, write_meta

SAME = ("model", "api", "preset", "sampling", "stream")


@dataclass
class MergeResult:
    """What the merge found: lines by status, duplicates written once, rows no shard answered, shards absent."""

    lines: dict[str, int] = field(default_factory=dict)
    duplicates: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    absent_shards: list[int] = field(default_factory=list)


def _metas(paths: list[Path]) -> list[RunMeta]:
    metas = []
    for path in paths:
        meta = read_meta(path)
        if meta is None:
            raise OneRulerError(f"{path}: no meta file beside it; merge the predictions files `oneruler run` wrote")
        metas.append(meta)
    return metas


def check_same_run(paths: list[Path], metas: list[RunMeta]) -> None:
    """Refuse files written with different settings, naming the first setting that differs."""
    first = metas[0]
    for path, meta in zip(paths[1:], metas[1:]):
        for key in SAME:
            if getattr(meta, key) != getattr(first, key):
                raise OneRulerError(f"{path} was written with {key} {json.dumps(getattr(meta, key))}, {paths[0]} with "
                                    f"{json.dumps(getattr(first, key))}: these are not shards of one run")
        for key in ("name", "revision", "manifest_sha256"):
            if meta.dataset_field(key) != first.dataset_field(key):
                raise OneRulerError(f"{path} and {paths[0]} read different datasets (dataset {key} "
                                    f"{meta.dataset_field(key)!r} vs {first.dataset_field(key)!r})")
        mine, theirs = _selection_key(meta), _selection_key(first)
        if mine != theirs:
            raise OneRulerError(f"{path} and {paths[0]} cover different selections (globs, limit, shares: {mine} vs "
                                f"{theirs}): these are not shards of one run")


def _selection_key(meta: RunMeta) -> tuple:
    chosen = meta.selection or SelectionRecord()
    return tuple(chosen.patterns), chosen.limit, Shard.parse(chosen.shard).count if chosen.shard else None


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
        raise OneRulerError(f"{named_setting('out')} {out} is one of the files to merge; write the merged file elsewhere")
    metas = _metas(paths)
    check_same_run(paths, metas)
    result = MergeResult()
    index = _index(paths, result)
    shards = [meta.shard for meta in metas]
    count = Shard.parse(shards[0]).count if shards[0] else None
    if count is not None:
        result.absent_shards = sorted(set(range(count)) - {Shard.parse(x).index for x in shards if x})
    result.missing = sorted(_expected(metas[0], dataset) - set(index))
    with OutputLock(Path(out), also=(meta_path(Path(out)),)):
        write_in_id_order(Path(out), list(paths), index)
        result.lines = {s: sum(ref.status == s for ref in index.values()) for s in ("ok", "failed", "skipped")}
        write_meta(Path(out), merged_meta(paths, metas, result))
    return result


def merged_meta(paths: list[Path], metas: list[RunMeta], result: MergeResult) -> RunMeta:
    """The first shard's meta without its sessions, times and counts, for the whole selection; then the merge."""
    doc = metas[0].without("runs", "started_at", "ended_at", "lines")
    doc = doc.with_(selection=(doc.selection or SelectionRecord()).with_(shard=None))
    return doc.with_(lines=result.lines, merged_at=now(), runs=tuple(run for meta in metas for run in meta.runs),
                     shards=tuple(ShardRecord.of(file=str(p), shard=meta.shard, lines=meta.lines)
                                  for p, meta in zip(paths, metas)),
                     missing=len(result.missing), duplicates=len(result.duplicates))


def _expected(meta: RunMeta, dataset: str | None) -> set[str]:
    """Every row id of the whole selection the shards were cut from."""
    chosen = meta.selection or SelectionRecord()
    source = recorded_source(meta.dataset, dataset, "the shards read")
    return {r.id for r in Selection.read(source, list(chosen.patterns), chosen.limit).rows}
