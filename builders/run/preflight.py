"""No silent truncation: before anything is sent, every prompt + its max new tokens must fit the server's window.

The server's kind is recognised from what it answers (``dialects/``: vLLM, llama.cpp, Ollama, TGI,
SGLang, hosted OpenAI), and its window learnt in its own way; ``--max-model-len`` overrides it.
Each prompt is counted as the server will see it: by the server's own endpoints (the chat template
applied where the server can), else a local ``--tokenizer``, else the row's ``num_tokens``
(measured with the dataset's tokenizer) times a margin calibrated per task, with a warning.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Callable, Iterator

from ..base.errors import OneRulerError
from ..spec.ids import id_order
from .client import ServerClient
from .dialects import CHAT_TEMPLATE_ALLOWANCE, ServerFacts, detect
from .dataset import RowRef, RunRow, async_batches
from .estimate import BOS_ALLOWANCE, estimate
from .options import SamplingOptions
from .pool import Server, ServerPool
from .progress import RunProgress

LOW_COUNT = 0.1  # server count / num_tokens under which a chat template probably dropped the prompt
PromptReader = Callable[[list[RowRef]], Iterator[list[RunRow]]]  # Selection.prompts: rows with prompts, per config


class ServerUnreachable(OneRulerError):
    """A server did not answer at all (no connection), as opposed to answering with an error."""


@dataclass(frozen=True)
class Window:
    """The server's context window in tokens (None: unknown) and where it was learnt."""

    size: int | None
    source: str
    prompt_limit: int | None = None  # a cap on the prompt alone (TGI's max_input_tokens)


@dataclass
class Preflight:
    """Prompt counts, the window, the rows that do not fit, and the warnings to print."""

    window: Window
    method: str
    counts: dict[str, int]
    new_tokens: dict[str, int]
    warnings: list[str] = field(default_factory=list)
    server: ServerFacts | None = None  # what the (first) server said about itself
    exact: bool = False  # the counts are the server's own (not an estimate or a template allowance)

    def fits(self, ident: str) -> bool:
        """Whether a row's prompt + max new tokens fit the window (and its prompt the prompt cap)."""
        n, size, cap = self.counts[ident], self.window.size, self.window.prompt_limit
        return (size is None or n + self.new_tokens[ident] <= size) and (cap is None or n <= cap)

    @property
    def overlong(self) -> list[str]:
        """Ids of the rows whose prompt + max new tokens exceed the window."""
        over = [i for i in self.counts if not self.fits(i)]
        return sorted(over, key=id_order)  # counts arrive in completion order

    @property
    def fix(self) -> str:
        """What widens the window of this server (with the tokens the rows need, where it takes a number)."""
        need = max((n + self.new_tokens[i] for i, n in self.counts.items()), default=0)
        fix = self.server.fix if self.server is not None else "serve the model with a larger window"
        return fix.format(need=need)

    def describe(self) -> str:
        """The preflight line: the server's kind, its window and where it came from, how prompts were counted."""
        kind = f"{self.server.kind}; " if self.server is not None else ""
        size = f"{self.window.size:,}" if self.window.size else "unknown"
        cap = f", prompts at most {self.window.prompt_limit:,}" if self.window.prompt_limit else ""
        slots = f"; {self.server.slots} parallel slot(s)" if self.server is not None and self.server.slots else ""
        return f"server: {kind}window {size}{cap} ({self.window.source}){slots}; prompts counted with {self.method}"

    def refusal(self) -> str:
        """The error of a run that cannot start: how many rows, the worst, the window."""
        over = self.overlong
        worst = min(over, key=lambda i: (-(self.counts[i] + self.new_tokens[i]), id_order(i)))  # ties: first row
        p, m = self.counts[worst], self.new_tokens[worst]
        cap = f" (prompts at most {self.window.prompt_limit})" if self.window.prompt_limit else ""
        return (f"{len(over)} of {len(self.counts)} selected row(s) do not fit: prompt + max new tokens exceeds the "
                f"server's {self.window.size}-token window{cap} ({self.window.source}); worst {worst}: {p} prompt + {m} "
                f"new = {p + m} tokens (counted with {self.method}). Nothing was sent. To run them: {self.fix}; or pick "
                f"shorter configs, or pass --skip-overlong to run the rest")

    def skip_reason(self, ident: str) -> str:
        """The error recorded on a skipped row."""
        p, m = self.counts[ident], self.new_tokens[ident]
        return (f"skipped: prompt of {p} tokens + {m} new tokens exceeds the server's {self.window.size}-token window "
                f"{f'or its {self.window.prompt_limit}-token prompt cap ' if self.window.prompt_limit else ''}"
                f"(counted with {self.method})")


async def learn_window(client: ServerClient, max_model_len: int | None, offline_ok: bool) -> tuple[Window, list[str]]:
    """The window: ``--max-model-len``, else what the server says in its own dialect (``dialects.detect``)."""
    if max_model_len is not None and max_model_len < 1:
        raise OneRulerError(f"--max-model-len must be positive (got {max_model_len})")
    try:
        models = await client.served_models()
        card = await _card(client, models)
        client.dialect, client.facts = await detect(client, card)
    except client.openai.APIConnectionError as exc:
        if max_model_len is not None and offline_ok:  # the window is given: a dry run goes on without the server
            return Window(max_model_len, "--max-model-len"), [f"{client.base_url} is unreachable: prompts are estimated"]
        if not offline_ok:
            raise ServerUnreachable(f"cannot reach {client.base_url} ({client.describe(exc)}); is the server running?") from None
        return Window(None, "server unreachable"), [f"{client.base_url} is unreachable: the window is unknown"]
    facts: ServerFacts = client.facts
    warnings = list(facts.notes)
    if max_model_len is not None:
        if facts.truncates and facts.window and max_model_len > facts.window:
            warnings.append(f"--max-model-len {max_model_len} is larger than what {facts.kind} uses ({facts.window}, "
                            f"{facts.window_source}): longer prompts will be cut by the server. To widen it: "
                            f"{facts.fix.format(need=max_model_len)}")
        return Window(max_model_len, "--max-model-len", facts.prompt_limit), warnings
    if facts.window is None:
        warnings.append(f"{client.base_url} ({facts.kind}) does not report its window for {client.model!r}: pass "
                        f"--max-model-len; overlong prompts will be rejected by the server and recorded as failed")
    return Window(facts.window, facts.window_source, facts.prompt_limit), warnings


async def _card(client: ServerClient, models: list[dict] | None) -> dict | None:
    """The model's entry in ``GET /v1/models`` (None: the server lists none); a model not served is an error."""
    if models is None:
        return None
    served = {m["id"]: m for m in models}
    if client.model not in served:
        raise OneRulerError(f"model {client.model!r} is not served by {client.base_url}; it serves: "
                            f"{', '.join(sorted(served)) or 'nothing'} (give one of them to --model)")
    return served[client.model]


async def server_counts(client: ServerClient, refs: list[RowRef], prompts: PromptReader, concurrency: int,
                        progress: bool) -> dict[str, int] | None:
    """Prompt tokens counted by the server in its dialect, config by config (None: it cannot count)."""
    counts: dict[str, int] = {}
    gate = asyncio.Semaphore(concurrency)
    bar = RunProgress(len(refs), "counting prompt tokens", progress and len(refs) > 1, tokens=False)

    async def one(row: RunRow) -> None:
        async with gate:
            n = await client.count(row.input)
        if n is None:
            raise OneRulerError(f"{client.root_url} stopped counting prompt tokens (row {row.id}: "
                                f"{'; '.join(client.problems.values()) or 'no answer'})")
        counts[row.id] = n
        bar.advance()

    try:
        async for batch in async_batches(prompts(refs)):
            if not counts:  # the first prompt tells whether the server counts at all
                first = await client.count(batch[0].input)
                if first is None:
                    return None
                counts[batch[0].id] = first
                bar.advance()
                batch = batch[1:]
            await asyncio.gather(*(one(r) for r in batch))
    finally:
        bar.close()
    return counts


def local_counter(location: str, chat: bool) -> tuple[Callable[[str], int], str]:
    """(text → tokens as the server will count them, description) for ``--tokenizer SPEC``.

    With ``transformers`` installed and a tokenizer that has a chat template, the template is
    applied; otherwise the text is encoded (``tokenizers``, or a tiktoken encoding name) and a
    fixed allowance is added for the template.
    """
    allowance = CHAT_TEMPLATE_ALLOWANCE if chat else BOS_ALLOWANCE
    try:
        import tiktoken

        enc = tiktoken.get_encoding(location)
        return (lambda text: len(enc.encode(text, disallowed_special=())) + allowance), \
            f"tiktoken {location} + {allowance} tokens for the template"
    except (ValueError, KeyError):
        pass
    try:
        from transformers import AutoTokenizer  # optional extra: applies the model's own chat template

        tok = AutoTokenizer.from_pretrained(location)
        if chat and getattr(tok, "chat_template", None):
            return (lambda text: len(tok.apply_chat_template([{"role": "user", "content": text}],
                                                             add_generation_prompt=True, tokenize=True))), \
                f"tokenizer {location} with its chat template"
        return (lambda text: len(tok(text)["input_ids"]) + (allowance if chat else 0)), f"tokenizer {location}"
    except Exception:  # noqa: BLE001 - no transformers, or not a transformers tokenizer: try `tokenizers`
        pass
    return _tokenizers_counter(location, allowance)


def _tokenizers_counter(location: str, allowance: int) -> tuple[Callable[[str], int], str]:
    from pathlib import Path

    from tokenizers import Tokenizer

    try:
        path = Path(location).expanduser()
        tok = Tokenizer.from_file(str(path / "tokenizer.json" if path.is_dir() else path)) if path.exists() \
            else Tokenizer.from_pretrained(location)
    except Exception as exc:  # noqa: BLE001
        raise OneRulerError(f"--tokenizer {location!r}: not a tiktoken encoding, a folder with tokenizer.json, "
                            f"or a loadable Hub tokenizer ({exc})") from None
    return (lambda text: len(tok.encode(text, add_special_tokens=True).ids) + allowance), \
        f"tokenizer {location} + {allowance} tokens for the template"


async def pool_window(pool: ServerPool | None, max_model_len: int | None, offline_ok: bool) -> tuple[Window, list[str]]:
    """The window every server shares; servers that cannot be reached are taken out (a dry run may go on without any).

    Servers that report different windows are refused: a row that fits one would be cut or refused by another.
    """
    if pool is None:  # batch request files without a server: the window is what --max-model-len says
        if max_model_len is not None:
            return Window(max_model_len, "--max-model-len"), []
        return Window(None, "unknown"), ["no --base-url and no --max-model-len: the window is unknown, nothing is "
                                         "checked against it"]
    learnt: list[tuple[Server, Window]] = []
    warnings: list[str] = []
    for server in pool.servers:
        only = len(pool.servers) == 1
        try:
            window, said = await learn_window(server.client, max_model_len, offline_ok and only)
        except ServerUnreachable:
            if only:
                raise
            pool.take_out(server, "unreachable at the start")
            continue
        learnt.append((server, window))
        warnings += said
    if not learnt:
        if offline_ok:  # a dry run prices the rows without any server
            return Window(None, "server unreachable"), [f"no server can be reached ({len(pool.servers)} given): the "
                                                        f"window is unknown"]
        pool.live()  # raises: no server left
    sizes = {w.size for _, w in learnt}
    if len(sizes) > 1:
        each = "; ".join(f"{s.url}: {w.size} ({w.source})" for s, w in learnt)
        raise OneRulerError(f"the servers report different windows ({each}); serve the model with the same window "
                            f"everywhere, or pass --max-model-len with the smallest")
    return learnt[0][1], warnings


async def preflight(pool: ServerPool | None, refs: list[RowRef], prompts: PromptReader, sampling: SamplingOptions, *,
                    api: str, max_model_len: int | None, tokenizer: str | None, margin: float, concurrency: int,
                    offline_ok: bool = False, progress: bool = True) -> Preflight:
    """Learn the window and count every prompt (see the module docstring for the order of methods).

    Prompts are read config by config through ``prompts`` and dropped once counted: only counts are kept.
    """
    if not refs:  # nothing left to send: no need to reach the server
        return Preflight(Window(max_model_len, "nothing to send"), "nothing to count", {}, {})
    window, warnings = await pool_window(pool, max_model_len, offline_ok)
    new_tokens = {r.id: sampling.new_tokens(r.reserve) for r in refs}
    client = pool.first if pool is not None and any(s.client.dialect for s in pool.servers) else None
    facts = client.facts if client is not None else None
    counts = None
    if client is not None and client.dialect.counting:
        try:
            counts = await server_counts(client, refs, prompts, concurrency, progress)
        except client.openai.APIConnectionError as exc:
            if not offline_ok:
                raise OneRulerError(f"cannot reach {client.root_url} to count prompts ({client.describe(exc)})") from None
    if counts is not None:
        warnings += implausible(counts, refs, facts)
        return Preflight(window, client.dialect.counting, counts, new_tokens, warnings, facts, client.dialect.exact)
    if tokenizer is not None:
        count, method = local_counter(tokenizer, api == "chat")
        counts = {r.id: count(r.input) for batch in prompts(refs) for r in batch}
        return Preflight(window, method, counts, new_tokens, warnings, facts)
    counts, method = estimate(refs, margin, api == "chat")
    warnings.append(f"{_no_count(client, pool)} and no --tokenizer was given: prompt sizes are estimated from {method}; "
                    f"a prompt near the window may still be rejected (or, by some servers, truncated)")
    return Preflight(window, method, counts, new_tokens, warnings, facts)


def implausible(counts: dict[str, int], refs: list[RowRef], facts: ServerFacts | None) -> list[str]:
    """A warning when the server counts prompts at under half their ``num_tokens``: its chat template may drop them.

    Measured on llama.cpp: with Jinja on, ``--chat-template gemma`` is the template's text, and every prompt
    becomes "gemma" (3 tokens). Real tokenizers go as low as 0.20 of a cl100k count (Tamil, Gemma 3), so the
    threshold is 0.1, and half the rows must be under it.
    """
    low = [r for r in refs if counts.get(r.id, 0) < LOW_COUNT * r.num_tokens]
    if len(low) < max(1, len(refs) // 2):  # a few rows of one script are not a template fault
        return []
    kind = facts.kind if facts is not None else "the server"
    return [f"{kind} counts {len(low)} of {len(refs)} prompts at under {LOW_COUNT:.0%} of their num_tokens (e.g. "
            f"{low[0].id}: {counts[low[0].id]} vs {low[0].num_tokens}): is its chat template dropping the prompt? "
            f"(llama.cpp with Jinja on takes `--chat-template NAME` for the template's text: use --no-jinja, or "
            f"--chat-template-file)"]


def _no_count(client: ServerClient | None, pool: ServerPool | None) -> str:
    """Why the server did not count the prompts."""
    if client is None:
        return "no server to count with" if pool is None else "no server could be reached to count with"
    if not client.dialect.counting:
        return f"{client.facts.kind} has no endpoint that counts prompt tokens"
    return f"{client.facts.kind} gave no count ({'; '.join(client.problems.values()) or 'no answer'})"
