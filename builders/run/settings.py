"""What ``oneruler run`` is asked to do, as typed groups built once; every default is defined here.

``RowChoice``: which rows (dataset, globs, revision, limit, shard). ``ServerSettings``: where they
go and how they are counted (base URLs, model, API, retries, window, tokenizer). ``BatchOutput``
(with its ``BatchLimits``): request files instead of requests. ``RunSettings``: the lot, the sampling
options, the predictions file and how the run behaves. The command line builds them from its
options (``settings_build.py``; an option left unset keeps the default written here). An invalid
value is a ``SettingError`` naming the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ..base.errors import OneRulerError, SettingError, named_setting
from ..base.retry import RetryPolicy
from ..spec.run_meta import SelectionRecord
from .request_settings import APIS, SamplingSettings
from .rows.shard import Shard

ORDERS = ("longest", "dataset")
DEFAULT_CONCURRENCY = 8  # when the server does not say how many requests it works on at once
LOAD_TIMEOUT_S = 600.0  # how long a model may take to load when the run asks a server to load it (Ollama)
OPENAI_MAX_REQUESTS = 50_000
OPENAI_MAX_BYTES = 200 * 1000 * 1000  # "up to 200 MB" per batch input file


@dataclass(frozen=True)
class RowChoice:
    """The rows of a run: configs of ``dataset`` picked by ``patterns`` (all if none), then limit, then shard."""

    dataset: str
    patterns: tuple[str, ...] = ()
    revision: str | None = None
    limit: int | None = None
    shard: Shard | None = None
    hub_cache: str | None = None

    def record(self) -> SelectionRecord:
        """The ``selection`` entry of the meta."""
        return SelectionRecord.of(patterns=self.patterns, limit=self.limit,
                                  shard=str(self.shard) if self.shard is not None else None)


@dataclass(frozen=True)
class ServerSettings:
    """The servers (one model, one or more base URLs) and how prompts are counted for them."""

    base_urls: tuple[str, ...]
    model: str
    api: str = "chat"
    stream: bool = False
    retry: RetryPolicy = RetryPolicy()
    max_model_len: int | None = None
    tokenizer: str | None = None
    count_margin: float | None = None  # None: the margin calibrated per task (estimate.py)
    load_timeout_s: float = LOAD_TIMEOUT_S

    def __post_init__(self) -> None:
        if self.api not in APIS:
            raise SettingError("api", f"{self.api!r}: use one of {', '.join(APIS)}")
        if len(set(self.base_urls)) < len(self.base_urls):
            raise OneRulerError(f"a {named_setting('base_urls')} is given twice; give each server once")
        if self.count_margin is not None and self.count_margin < 0:
            raise SettingError("count_margin", f"must not be negative (got {self.count_margin})")
        if self.max_model_len is not None and self.max_model_len < 1:
            raise SettingError("max_model_len", f"must be positive (got {self.max_model_len})")
        if not self.load_timeout_s > 0:
            raise SettingError("load_timeout_s", f"must be positive (got {self.load_timeout_s:g})")


@dataclass(frozen=True)
class BatchLimits:
    """The most requests and bytes one request file may hold (OpenAI's limits by default)."""

    max_requests: int = OPENAI_MAX_REQUESTS
    max_bytes: int = OPENAI_MAX_BYTES

    def __post_init__(self) -> None:
        if self.max_requests < 1:
            raise SettingError("max_requests", f"must be at least 1 (got {self.max_requests})")
        if self.max_bytes < 1024:
            raise SettingError("max_bytes", f"must be at least 1024 (got {self.max_bytes})")


@dataclass(frozen=True)
class BatchOutput:
    """``--batch-requests FILE``: write the requests to FILE (split by ``limits``) instead of sending them."""

    path: Path
    limits: BatchLimits = BatchLimits()
    submit: bool = False


@dataclass(frozen=True)
class RunSettings:
    """Everything ``oneruler run`` was asked to do (the API key is not here: it never leaves the client)."""

    rows: RowChoice
    server: ServerSettings
    out: Path | None
    sampling: SamplingSettings = field(default_factory=SamplingSettings)
    preset: str | None = None
    concurrency: int | None = None  # None: the server's parallel slots where it says, else DEFAULT_CONCURRENCY
    max_failed: str = "1%"
    retry_failed: bool = False
    skip_overlong: bool = False
    dry_run: bool = False
    order: str = "longest"
    batch: BatchOutput | None = None
    progress: bool = True

    def __post_init__(self) -> None:
        if self.concurrency is not None and self.concurrency < 1:
            raise SettingError("concurrency", f"must be at least 1 (got {self.concurrency})")
        if self.order not in ORDERS:
            raise SettingError("order", f"{self.order!r}: use one of {', '.join(ORDERS)}")
        if self.out is None and self.batch is None and not self.dry_run:
            raise OneRulerError(f"{named_setting('out')} PREDICTIONS.jsonl is required (or {named_setting('batch')} FILE to "
                                f"write requests)")
        if not self.server.base_urls and self.batch is None:
            raise OneRulerError(f"{named_setting('base_urls')} is required (or {named_setting('batch')} FILE to write requests)")

    @property
    def records(self) -> Path | None:
        """The file whose meta sidecar describes this run: the predictions, or the batch request file (None: a dry
        run without a predictions file)."""
        return self.batch.path if self.batch is not None else self.out


def default(cls: type, name: str):
    """The default of a settings field (for the command line's help)."""
    value = cls.__dataclass_fields__[name].default
    return value
