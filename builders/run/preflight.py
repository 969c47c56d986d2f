"""No silent truncation: before anything is sent, every prompt + its max new tokens must fit the server's window.

The window is ``--max-model-len``, else the ``max_model_len`` that vLLM reports in ``GET /v1/models``.
Each prompt is counted as the server will see it: the server's ``POST /tokenize`` with the chat
messages (vLLM, SGLang: the chat template counts), else a local ``--tokenizer``, else the row's
``num_tokens`` (measured with the dataset's tokenizer) plus a stated margin, with a warning.
"""

from __future__ import annotations

import asyncio
import math
from dataclasses import dataclass, field
from typing import Callable, Iterator

from ..base.errors import OneRulerError
from ..spec.ids import id_order
from .client import ServerClient
from .dataset import RowRef, RunRow, async_batches
from .options import SamplingOptions
from .pool import Server, ServerPool
from .progress import RunProgress

PromptReader = Callable[[list[RowRef]], Iterator[list[RunRow]]]  # Selection.prompts: rows with prompts, per config

# Tokens a chat template may add around one user message (role headers, a default system prompt:
# Llama 3.1 adds ~30, Qwen 2.5 ~25) when the count cannot include the template itself.
CHAT_TEMPLATE_ALLOWANCE = 64
BOS_ALLOWANCE = 1


@dataclass(frozen=True)
class Window:
    """The server's context window in tokens (None: unknown) and where it was learnt."""

    size: int | None
    source: str


@dataclass
class Preflight:
    """Prompt counts, the window, the rows that do not fit, and the warnings to print."""

    window: Window
    method: str
    counts: dict[str, int]
    new_tokens: dict[str, int]
    warnings: list[str] = field(default_factory=list)

    @property
    def overlong(self) -> list[str]:
        """Ids of the rows whose prompt + max new tokens exceed the window."""
        if self.window.size is None:
            return []
        over = [i for i, n in self.counts.items() if n + self.new_tokens[i] > self.window.size]
        return sorted(over, key=id_order)  # counts arrive in completion order

    def refusal(self) -> str:
        """The error of a run that cannot start: how many rows, the worst, the window."""
        over = self.overlong
        worst = min(over, key=lambda i: (-(self.counts[i] + self.new_tokens[i]), id_order(i)))  # ties: first row
        p, m = self.counts[worst], self.new_tokens[worst]
        return (f"{len(over)} of {len(self.counts)} selected row(s) do not fit: prompt + max new tokens exceeds the "
                f"server's {self.window.size}-token window ({self.window.source}); worst {worst}: {p} prompt + {m} new = "
                f"{p + m} tokens (counted with {self.method}). Nothing was sent. Serve the model with a larger window, "
                f"pick shorter configs, or pass --skip-overlong to run the rest")

    def skip_reason(self, ident: str) -> str:
        """The error recorded on a skipped row."""
        p, m = self.counts[ident], self.new_tokens[ident]
        return (f"skipped: prompt of {p} tokens + {m} new tokens exceeds the server's {self.window.size}-token window "
                f"(counted with {self.method})")


async def learn_window(client: ServerClient, max_model_len: int | None, offline_ok: bool) -> tuple[Window, list[str]]:
    """The window: ``--max-model-len``, else ``max_model_len`` of the model in ``GET /v1/models``."""
    if max_model_len is not None:
        if max_model_len < 1:
            raise OneRulerError(f"--max-model-len must be positive (got {max_model_len})")
        return Window(max_model_len, "--max-model-len"), []
    try:
        models = await client.served_models()
    except client.openai.APIConnectionError as exc:
        if not offline_ok:
            raise OneRulerError(f"cannot reach {client.base_url} ({client.describe(exc)}); is the server running?") from None
        return Window(None, "server unreachable"), [f"{client.base_url} is unreachable: the window is unknown"]
    unknown = ("the window is unknown: pass --max-model-len; overlong prompts will be rejected by the server "
               "and recorded as failed")
    if models is None:
        return Window(None, "unknown"), [f"{client.base_url} lists no models; {unknown}"]
    served = {m["id"]: m for m in models}
    if client.model not in served:
        raise OneRulerError(f"model {client.model!r} is not served by {client.base_url}; it serves: "
                            f"{', '.join(sorted(served)) or 'nothing'} (give one of them to --model)")
    size = served[client.model].get("max_model_len")
    if not isinstance(size, int):
        return Window(None, "unknown"), [f"{client.base_url} does not report max_model_len for {client.model!r}; {unknown}"]
    return Window(size, "max_model_len from GET /v1/models"), []


async def server_counts(client: ServerClient, refs: list[RowRef], prompts: PromptReader, concurrency: int,
                        progress: bool) -> dict[str, int] | None:
    """Prompt tokens from the server's ``/tokenize``, config by config (None: the server has no such endpoint)."""
    counts: dict[str, int] = {}
    gate = asyncio.Semaphore(concurrency)
    bar = RunProgress(len(refs), "counting prompt tokens", progress and len(refs) > 1, tokens=False)

    async def one(row: RunRow) -> None:
        async with gate:
            n = await client.tokenize(row.input)
        if n is None:
            raise OneRulerError(f"{client.root_url}/tokenize stopped answering (row {row.id})")
        counts[row.id] = n
        bar.advance()

    try:
        async for batch in async_batches(prompts(refs)):
            if not counts:  # the first prompt tells whether the server counts at all
                first = await client.tokenize(batch[0].input)
                if first is None:
                    return None
                counts[batch[0].id] = first
                bar.advance()
                batch = batch[1:]
            await asyncio.gather(*(one(r) for r in batch))
    finally:
        bar.close()
    return counts


def local_counter(spec: str, chat: bool) -> tuple[Callable[[str], int], str]:
    """(text → tokens as the server will count them, description) for ``--tokenizer SPEC``.

    With ``transformers`` installed and a tokenizer that has a chat template, the template is
    applied; otherwise the text is encoded (``tokenizers``, or a tiktoken encoding name) and a
    fixed allowance is added for the template.
    """
    allowance = CHAT_TEMPLATE_ALLOWANCE if chat else BOS_ALLOWANCE
    try:
        import tiktoken

        enc = tiktoken.get_encoding(spec)
        return (lambda text: len(enc.encode(text, disallowed_special=())) + allowance), \
            f"tiktoken {spec} + {allowance} tokens for the template"
    except (ValueError, KeyError):
        pass
    try:
        from transformers import AutoTokenizer  # optional extra: applies the model's own chat template

        tok = AutoTokenizer.from_pretrained(spec)
        if chat and getattr(tok, "chat_template", None):
            return (lambda text: len(tok.apply_chat_template([{"role": "user", "content": text}],
                                                             add_generation_prompt=True, tokenize=True))), \
                f"tokenizer {spec} with its chat template"
        return (lambda text: len(tok(text)["input_ids"]) + (allowance if chat else 0)), f"tokenizer {spec}"
    except Exception:  # noqa: BLE001 - no transformers, or not a transformers tokenizer: try `tokenizers`
        pass
    return _tokenizers_counter(spec, allowance)


def _tokenizers_counter(spec: str, allowance: int) -> tuple[Callable[[str], int], str]:
    from pathlib import Path

    from tokenizers import Tokenizer

    try:
        path = Path(spec).expanduser()
        tok = Tokenizer.from_file(str(path / "tokenizer.json" if path.is_dir() else path)) if path.exists() \
            else Tokenizer.from_pretrained(spec)
    except Exception as exc:  # noqa: BLE001
        raise OneRulerError(f"--tokenizer {spec!r}: not a tiktoken encoding, a folder with tokenizer.json, "
                            f"or a loadable Hub tokenizer ({exc})") from None
    return (lambda text: len(tok.encode(text, add_special_tokens=True).ids) + allowance), \
        f"tokenizer {spec} + {allowance} tokens for the template"


def estimate(rows: list[RowRef], margin: float, chat: bool) -> tuple[dict[str, int], str]:
    """The fallback: the row's ``num_tokens`` + ``margin`` + the template allowance."""
    allowance = CHAT_TEMPLATE_ALLOWANCE if chat else BOS_ALLOWANCE
    counts = {r.id: math.ceil(r.num_tokens * (1 + margin)) + allowance for r in rows}
    tokenizers = ", ".join(sorted({r.tokenizer for r in rows}))
    return counts, f"the dataset's num_tokens ({tokenizers}) + {margin:.0%} + {allowance} tokens for the template"


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
        except OneRulerError as exc:
            if only or "cannot reach" not in str(exc):
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
    live = pool is not None and window.source != "server unreachable"
    counts, client = None, (pool.first if live else None)
    if client is not None:
        try:
            counts = await server_counts(client, refs, prompts, concurrency, progress)
        except client.openai.APIConnectionError as exc:
            if not offline_ok:
                raise OneRulerError(f"cannot reach {client.root_url}/tokenize ({client.describe(exc)})") from None
    if counts is not None:
        return Preflight(window, "the server's /tokenize", counts, new_tokens, warnings)
    if tokenizer is not None:
        count, method = local_counter(tokenizer, api == "chat")
        counts = {r.id: count(r.input) for batch in prompts(refs) for r in batch}
        return Preflight(window, method, counts, new_tokens, warnings)
    counts, method = estimate(refs, margin, api == "chat")
    why = f" ({client.tokenize_problem})" if client is not None and client.tokenize_problem else ""
    source = "the server's /tokenize gave no count" + why if pool is not None else "no server to count with"
    warnings.append(f"{source} and no --tokenizer was given: prompt sizes are estimated from {method}; a prompt near "
                    f"the window may still be rejected (or, by some servers, truncated)")
    return Preflight(window, method, counts, new_tokens, warnings)
