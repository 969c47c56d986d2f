"""What every ``oneruler run`` shares, live or writing batch requests: the rows, the opening, the meta, the result.

The opening (``opened``): one client per base URL in a balancer, the preflight on the rows still to
send (window, prompt counts), the balancer closed at the end; ``fitting`` refuses rows over the window
unless ``skip_overlong``. The meta (``spec.run_meta``): ``settings_meta`` is what a resumed run must
match, ``session_record`` this invocation's entry in ``runs``. ``RunResult`` is what the command
line prints.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import AsyncIterator, Callable

from ..base.errors import OneRulerError
from ..base.versions import package_versions as installed_versions
from ..spec.run_meta import META_FORMAT, BatchFile, DatasetRecord, RunMeta, ServerRecord, SessionRecord
from .files.meta import now
from .plan import PlanLine
from .rows.selection import RowRef, Selection, resolve_source
from .server.client import ServerClient
from .server.balancer import ServerBalancer
from .server.preflight import Preflight, preflight
from .server.secrets import public_url
from .settings import DEFAULT_CONCURRENCY, RunSettings

PACKAGES = ("oneruler", "openai", "datasets", "huggingface-hub", "pyarrow", "tiktoken", "tokenizers", "transformers")


@dataclass
class Noted:
    """How many answers got one note (``server.answers``: no finish reason, parts that are not text), and the first."""

    count: int
    first: str


@dataclass
class RunResult:
    """What a run did (``plan`` for a dry run), for the command line to print."""

    rows: int = 0
    already: int = 0
    sent: int = 0
    ok: int = 0
    failed: int = 0
    skipped: int = 0
    stopped: bool = False
    failure_limit: int = 0
    last_error: str | None = None
    plan: list[PlanLine] = field(default_factory=list)
    preflight: Preflight | None = None
    servers: list[ServerRecord] = field(default_factory=list)
    batch_files: list[BatchFile] = field(default_factory=list)
    no_server: str | None = None  # why the run stopped: every server was taken out of rotation
    truncation: OneRulerError | None = None  # why the run stopped: the server cut prompts
    concurrency: int = DEFAULT_CONCURRENCY
    resent: int = 0  # rows resent because the server's shared cache overflowed (``server/capacity.py``)
    concurrency_end: int | None = None  # the limit the capacity signals lowered the concurrency to (None: never)
    sharing: str = ""  # what a cache shared by the server's slots means for the run (``runner.shared_cache_line``)
    notes: dict[str, Noted] = field(default_factory=dict)  # note on answers → how many, the first
    stale: list[str] = field(default_factory=list)  # temporary files of an interrupted write, removed

    @property
    def note_lines(self) -> list[str]:
        """One line per note on the answers: how many rows got it, and the first."""
        return [f"{n.count} answer(s) {note} (first: {n.first})" for note, n in self.notes.items()]

    @property
    def warnings(self) -> list[str]:
        """What the preflight found worth saying (nothing before it ran), then the notes on the answers."""
        return (self.preflight.warnings if self.preflight is not None else []) + self.note_lines


def package_versions() -> dict[str, str]:
    """Versions of the packages a run's outputs depend on (those installed)."""
    return installed_versions(PACKAGES, absent=None)


def settings_meta(s: RunSettings, dataset: DatasetRecord) -> RunMeta:
    """The part of the meta a resumed run must match, plus where it ran."""
    urls = [public_url(u) for u in s.server.base_urls]
    return RunMeta.of(format=META_FORMAT, model=s.server.model, base_url=urls[0] if urls else None,
                      base_urls=tuple(urls), api=s.server.api, preset=s.preset, sampling=s.sampling.to_meta(),
                      stream=s.server.stream, dataset=dataset, selection=s.rows.record())


def session_record(s: RunSettings, rows: int, to_send: int, pre: Preflight, concurrency: int | None) -> SessionRecord:
    """The entry of this invocation in the meta's ``runs`` list (completed when it ends)."""
    server = pre.server
    record = SessionRecord.of(
        started_at=now(), ended_at=None, rows=rows, to_send=to_send, server_kind=server.software if server else None,
        slots=server.slots if server else None, window=pre.window.size, window_source=pre.window.source,
        prompt_limit=pre.window.prompt_limit, prompt_count=pre.method, prompt_count_exact=pre.exact,
        warnings=tuple(pre.warnings), concurrency=concurrency, max_retries=s.server.retry.attempts - 1,
        timeout_s=s.server.retry.timeout_s, order=s.order, selection=s.rows.record(), packages=package_versions())
    return record.with_(shared_cache=server.shared_cache) if server is not None and server.shared_cache else record


def load_selection(s: RunSettings) -> tuple[Selection, DatasetRecord]:
    """The selected rows (without prompts) and the dataset's identity."""
    source = resolve_source(s.rows.dataset, s.rows.revision, s.rows.hub_cache)
    selection = Selection.read(source, list(s.rows.patterns), s.rows.limit, s.rows.shard)
    if not selection.rows:
        raise OneRulerError(f"no rows to send: the selected configs of {s.rows.dataset!r} are empty"
                            + (f" (or shard {s.rows.shard} got none of them)" if s.rows.shard else ""))
    identity = source.identity()
    return selection, DatasetRecord.of(name=identity.name, revision=identity.revision,
                                       manifest_sha256=identity.manifest_sha256)


def make_pool(s: RunSettings, api_key: str | None, log: Callable[[str], None]) -> ServerBalancer | None:
    """One client per base URL (None: no server, batch request files only)."""
    if not s.server.base_urls:
        return None
    clients = [ServerClient(url, s.server.model, s.server.api, api_key, s.server.retry, s.server.stream, say=log,
                            load_timeout_s=s.server.load_timeout_s) for url in s.server.base_urls]
    return ServerBalancer(clients, lambda message: log(f"warning: {message}"))


@dataclass
class Opening:
    """A run opened: its balancer of servers (None: batch requests without a server) and what the preflight found."""

    balancer: ServerBalancer | None
    pre: Preflight

    def fitting(self, skip_overlong: bool) -> set[str]:
        """The ids of the rows over the window, to record as skipped; none may be unless ``skip_overlong``."""
        over = set(self.pre.overlong)
        if over and not skip_overlong:
            raise self.pre.refusal()
        return over


@asynccontextmanager
async def opened(s: RunSettings, api_key: str | None, selection: Selection, todo: list[RowRef],
                 log: Callable[[str], None], offline_ok: bool = False) -> AsyncIterator[Opening]:
    """The balancer and the preflight of the rows still to send (``offline_ok``: a dry run goes on without a server)."""
    balancer = make_pool(s, api_key, log)
    try:
        pre = await preflight(balancer, todo, selection.prompts, s.sampling, api=s.server.api,
                              max_model_len=s.server.max_model_len, tokenizer=s.server.tokenizer,
                              margin=s.server.count_margin, concurrency=s.concurrency or DEFAULT_CONCURRENCY,
                              offline_ok=offline_ok, progress=s.progress)
        yield Opening(balancer, pre)
    finally:
        if balancer is not None:
            await balancer.close()
