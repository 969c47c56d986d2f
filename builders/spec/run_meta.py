"""The meta beside a predictions file (``PREDS.meta.json``) as typed records: the contract between ``run``,
``merge``, ``ingest`` and ``score``.

``RunMeta`` is the file: the settings a resumed run must keep (model, API, sampling, dataset,
selection), one ``SessionRecord`` per invocation that wrote lines (``runs``; each with its
``ServerRecord``s), and what ``--batch-requests`` (``BatchRecord``, ``BatchFile``), ``ingest``
(``IngestRecord``) and ``merge`` (``ShardRecord``) add. ``run/files/meta.py`` reads and writes the
file through ``RunMeta.from_json`` and ``to_json``; ``score`` copies the record into scores.json.

Every record keeps its keys in the order they were written (``keys``) and the keys this version
does not know as they were (``extra``): a meta read and written back is the same bytes, whichever
version wrote it. ``with_`` sets fields as ``dict.update`` would (a new key goes last, a known one
keeps its place); a key absent from ``keys`` is absent from the file. A value of the wrong type is
a ``ValueError`` naming the field.
"""

from __future__ import annotations

import types
from dataclasses import MISSING, dataclass, field, fields, replace
from functools import cache
from typing import Any, TypeVar, Union, get_args, get_origin, get_type_hints

META_FORMAT = "oneruler-run/1"
R = TypeVar("R", bound="MetaRecord")
_KINDS = {str: "a string", int: "an integer", float: "a number", bool: "true or false"}


@dataclass(frozen=True, kw_only=True)
class MetaRecord:
    """A JSON object of the meta as typed fields, its key order and its unknown keys kept."""

    keys: tuple[str, ...] = field(default=(), repr=False)  # the keys present, in the file's order
    extra: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)  # keys this version does not know

    @classmethod
    def of(cls: type[R], **values: Any) -> R:
        """A record of exactly these keys, in this order."""
        return cls(keys=tuple(values), **values)

    def with_(self: R, **changes: Any) -> R:
        """The record with these fields set: a new key goes last, a present one keeps its place."""
        keys = self.keys + tuple(k for k in changes if k not in self.keys)
        return replace(self, keys=keys, **changes)

    def merged(self: R, other: R) -> R:
        """``dict(self, **other)``: every key of ``other`` set over this record's."""
        keys = self.keys + tuple(k for k in other.keys if k not in self.keys)
        return replace(self, keys=keys, extra={**self.extra, **other.extra}, **other.present())

    def without(self: R, *names: str) -> R:
        """The record without these keys."""
        known = {f.name: f for f in _fields(type(self))}
        reset = {n: _default(known[n]) for n in names if n in known}
        return replace(self, keys=tuple(k for k in self.keys if k not in names),
                       extra={k: v for k, v in self.extra.items() if k not in names}, **reset)

    def has(self, name: str) -> bool:
        """Whether the key is present (a present key may hold null)."""
        return name in self.keys

    def present(self) -> dict[str, Any]:
        """The known fields that are present, in key order."""
        return {k: getattr(self, k) for k in self.keys if k not in self.extra}

    def to_json(self) -> dict[str, Any]:
        """The JSON object, keys in their order (records and tuples as objects and lists)."""
        return {k: self.extra[k] if k in self.extra else _plain(getattr(self, k)) for k in self.keys}

    @classmethod
    def from_json(cls: type[R], obj: Any, where: str = "") -> R:
        """The record of a parsed JSON object; ValueError naming the field whose value has the wrong type."""
        if not isinstance(obj, dict):
            raise ValueError(f"{_name(where)} must be an object, got {_kind(obj)}")
        hints = _hints(cls)
        for f in _fields(cls):
            if f.name not in obj and f.default is MISSING and f.default_factory is MISSING:
                raise ValueError(f"{_name(where)} lacks {f.name!r}")
        values = {name: _typed(obj[name], hint, f"{where}.{name}" if where else name)
                  for name, hint in hints.items() if name in obj}
        return cls(keys=tuple(obj), extra={k: v for k, v in obj.items() if k not in hints}, **values)


@cache
def _fields(cls: type) -> tuple:
    return tuple(f for f in fields(cls) if f.name not in ("keys", "extra"))


@cache
def _hints(cls: type) -> dict[str, Any]:
    hints = get_type_hints(cls)
    return {f.name: hints[f.name] for f in _fields(cls)}


def _default(f: Any) -> Any:
    return f.default_factory() if f.default_factory is not MISSING else f.default


def _plain(value: Any) -> Any:
    if isinstance(value, MetaRecord):
        return value.to_json()
    if isinstance(value, (tuple, list)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _name(where: str) -> str:
    return f"field {where!r}" if where else "the meta"


def _kind(value: Any) -> str:
    return "null" if value is None else {dict: "an object", list: "a list"}.get(type(value), type(value).__name__)


def _typed(value: Any, hint: Any, where: str) -> Any:
    """``value`` as ``hint`` (X | None, records, tuple[...], dict[str, ...], str, int, float, bool, Any)."""
    origin, args = get_origin(hint), get_args(hint)
    if hint is Any:
        return value
    if origin in (Union, types.UnionType):
        if value is None and type(None) in args:
            return None
        return _typed(value, next(a for a in args if a is not type(None)), where)
    if isinstance(hint, type) and issubclass(hint, MetaRecord):
        return hint.from_json(value, where)
    if origin is tuple:
        if not isinstance(value, list):
            raise ValueError(f"{_name(where)} must be a list, got {_kind(value)}")
        if args[-1] is not Ellipsis and len(value) != len(args):
            raise ValueError(f"{_name(where)} must be a list of {len(args)} items, got {len(value)}")
        kinds = [args[0]] * len(value) if args[-1] is Ellipsis else list(args)
        return tuple(_typed(v, k, f"{where}[{i}]") for i, (v, k) in enumerate(zip(value, kinds)))
    if origin is dict:
        if not isinstance(value, dict):
            raise ValueError(f"{_name(where)} must be an object, got {_kind(value)}")
        return {k: _typed(v, args[1], f"{where}.{k}") for k, v in value.items()}
    number = hint is float and isinstance(value, int)
    if (not isinstance(value, hint) and not number) or (hint is not bool and isinstance(value, bool)):
        raise ValueError(f"{_name(where)} must be {_KINDS[hint]}, got {_kind(value)}")
    return value


@dataclass(frozen=True, kw_only=True)
class DatasetRecord(MetaRecord):
    """The rows a run read: the dataset's name, Hub commit (None: a folder) and manifest sha256."""

    name: str | None = None
    revision: str | None = None
    manifest_sha256: str | None = None


@dataclass(frozen=True, kw_only=True)
class SelectionRecord(MetaRecord):
    """Which rows: the config globs, the limit per config, the shard (``"I/N"``, None: the whole selection)."""

    patterns: tuple[str, ...] = ()
    limit: int | None = None
    shard: str | None = None


@dataclass(frozen=True, kw_only=True)
class ServerRecord(MetaRecord):
    """What one server of the pool did in a session: rows answered and failed, why it was taken out."""

    base_url: str | None = None
    answered: int | None = None
    failed: int | None = None
    taken_out: str | None = None


@dataclass(frozen=True, kw_only=True)
class SessionRecord(MetaRecord):
    """One invocation of ``oneruler run``: what the preflight learnt, how it sent, and (once ended) what came back."""

    started_at: str | None = None
    ended_at: str | None = None
    rows: int | None = None
    to_send: int | None = None
    server_kind: str | None = None
    slots: int | None = None
    window: int | None = None
    window_source: str | None = None
    prompt_limit: int | None = None
    prompt_count: str | None = None
    prompt_count_exact: bool | None = None
    warnings: tuple[str, ...] = ()
    concurrency: int | None = None
    max_retries: int | None = None
    timeout_s: float | None = None
    order: str | None = None
    selection: SelectionRecord | None = None
    packages: dict[str, Any] | None = None
    sent: int | None = None
    ok: int | None = None
    failed: int | None = None
    skipped: int | None = None
    stopped: bool | None = None
    servers: tuple[ServerRecord, ...] = ()
    shared_cache: int | None = None  # tokens the server's slots share (llama.cpp's unified KV cache); absent: none
    resent: int | None = None  # rows resent because that cache overflowed; absent: none
    concurrency_end: int | None = None  # the concurrency those overflows lowered it to


@dataclass(frozen=True, kw_only=True)
class BatchFile(MetaRecord):
    """One request file of ``--batch-requests``: its name (beside the meta), requests and bytes."""

    file: str
    requests: int
    bytes: int


@dataclass(frozen=True, kw_only=True)
class BatchRecord(MetaRecord):
    """The request files, the rows left out (id → [prompt tokens, reason]) and the batches submitted."""

    endpoint: str | None = None
    files: tuple[BatchFile, ...] = ()
    requests: int | None = None
    limits: dict[str, int] | None = None
    skipped: dict[str, tuple[int | None, str]] | None = None
    batches: tuple[str, ...] = ()


@dataclass(frozen=True, kw_only=True)
class IngestRecord(MetaRecord):
    """What ``ingest`` read: when, the batch output files, the lines written by status, rows without a line."""

    at: str | None = None
    results: tuple[str, ...] = ()
    lines: dict[str, int] | None = None
    missing: int | None = None


@dataclass(frozen=True, kw_only=True)
class ShardRecord(MetaRecord):
    """One file of a merge: its path, its shard and its lines by status."""

    file: str | None = None
    shard: str | None = None
    lines: dict[str, int] | None = None


@dataclass(frozen=True, kw_only=True)
class RunMeta(MetaRecord):
    """``PREDS.meta.json``: the run's settings, its sessions, and what batch requests, ingest and merge add."""

    format: str | None = None
    model: str | None = None
    base_url: str | None = None
    base_urls: tuple[str, ...] = ()
    api: str | None = None
    preset: str | None = None
    sampling: dict[str, Any] | None = None
    stream: bool | None = None
    dataset: DatasetRecord | None = None
    selection: SelectionRecord | None = None
    started_at: str | None = None
    runs: tuple[SessionRecord, ...] = ()
    ended_at: str | None = None
    lines: dict[str, int] | None = None
    batch: BatchRecord | None = None
    ingested: IngestRecord | None = None
    merged_at: str | None = None
    shards: tuple[ShardRecord, ...] = ()
    missing: int | None = None
    duplicates: int | None = None

    @property
    def shard(self) -> str | None:
        """The shard the lines are (``"I/N"``; None: the whole selection)."""
        return self.selection.shard if self.selection is not None else None

    def dataset_field(self, name: str) -> str | None:
        """``name``, ``revision`` or ``manifest_sha256`` of the dataset (None: not recorded)."""
        return getattr(self.dataset, name) if self.dataset is not None else None


def copied_meta(obj: Any) -> RunMeta | None:
    """The run's meta as a report copied it (scores.json's ``run``), read back as a record: None when there is none
    or it has another shape (a report outlives the version that wrote it; only a meta file's own reader refuses)."""
    if not isinstance(obj, dict):
        return None
    try:
        return RunMeta.from_json(obj)
    except ValueError:
        return None
