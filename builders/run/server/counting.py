"""Prompt tokens as the server will see them: counted by the server in its own dialect, else by a local
``tokenizer``, else estimated (``estimate.py``); and a warning when the server's counts cannot be right.

Prompts arrive config by config (``PromptReader``: ``Selection.prompts``) and are dropped once
counted: only the counts are kept.
"""

from __future__ import annotations

import asyncio
from typing import Callable, Iterator

from ...base.errors import OneRulerError, SettingError
from ..progress import RunProgress
from ..prompt import SENT_AS_BEFORE, PrefixForm, Prompt
from ..rows.selection import RowRef, RunRow, async_batches
from .client import ServerHung
from .dialects import CHAT_TEMPLATE_ALLOWANCE, KnownServer, ServerFacts
from .estimate import BOS_ALLOWANCE

LOW_COUNT = 0.1  # server count / num_tokens under which a chat template probably dropped the prompt
PromptReader = Callable[[list[RowRef]], Iterator[list[RunRow]]]  # Selection.prompts: rows with prompts, per config


async def server_counts(server: KnownServer, refs: list[RowRef], prompts: PromptReader, concurrency: int,
                        progress: bool, form: PrefixForm = SENT_AS_BEFORE) -> dict[str, int] | None:
    """Prompt tokens counted by the server in its dialect, config by config, each prompt sent in ``form`` (the
    answer prefixes: ``run/prompt.py``) (None: it cannot count)."""
    counts: dict[str, int] = {}
    gate = asyncio.Semaphore(concurrency)
    bar = RunProgress(len(refs), "counting prompt tokens", progress and len(refs) > 1, tokens=False)

    async def counted(row: RunRow) -> int | None:
        try:
            return await server.count(row.prompt, form)
        except ServerHung as exc:  # say what the run was doing when the server stopped answering
            raise ServerHung(f"counting prompt tokens (row {row.id}): {exc.marked}") from None  # its settings kept

    async def one(row: RunRow) -> None:
        async with gate:
            n = await counted(row)
        if n is None:
            raise OneRulerError(f"{server.probe.shown} stopped counting prompt tokens (row {row.id}: "
                                f"{server.problems()})")
        counts[row.id] = n
        bar.advance()

    try:
        async for batch in async_batches(prompts(refs)):
            if not counts:  # the first prompt tells whether the server counts at all
                first = await counted(batch[0])
                if first is None:
                    return None
                counts[batch[0].id] = first
                bar.advance()
                batch = batch[1:]
            await asyncio.gather(*(one(r) for r in batch))
    finally:
        bar.close()
    return counts


def local_counter(location: str, chat: bool,
                  form: PrefixForm = SENT_AS_BEFORE) -> tuple[Callable[[Prompt], int], str]:
    """(prompt → tokens as the server will count them, sent in ``form``, description) for ``--tokenizer SPEC``.

    With ``transformers`` installed and a tokenizer that has a chat template, the template is
    applied (a prefill continues the final assistant message); otherwise the text (the answer prefix
    after the input) is encoded (``tokenizers``, or a tiktoken encoding name) and a fixed allowance is
    added for the template.
    """
    allowance = CHAT_TEMPLATE_ALLOWANCE if chat else BOS_ALLOWANCE
    try:
        import tiktoken

        enc = tiktoken.get_encoding(location)
        return (lambda prompt: len(enc.encode(form.text(prompt), disallowed_special=())) + allowance), \
            f"tiktoken {location} + {allowance} tokens for the template"
    except (ValueError, KeyError):
        pass
    try:
        from transformers import AutoTokenizer  # optional extra: applies the model's own chat template

        tok = AutoTokenizer.from_pretrained(location)
        if chat and getattr(tok, "chat_template", None):
            def templated(prompt: Prompt) -> int:
                messages = form.messages(prompt)
                if messages[-1]["role"] == "assistant":  # a prefill: the template left open after the prefix
                    return len(tok.apply_chat_template(messages, add_generation_prompt=False,
                                                       continue_final_message=True, tokenize=True))
                return len(tok.apply_chat_template(messages, add_generation_prompt=True, tokenize=True))

            return templated, f"tokenizer {location} with its chat template"
        return (lambda prompt: len(tok(form.text(prompt))["input_ids"]) + (allowance if chat else 0)), \
            f"tokenizer {location}"
    except Exception:  # noqa: BLE001 - no transformers, or not a transformers tokenizer: try `tokenizers`
        pass
    return _tokenizers_counter(location, allowance, form)


def _tokenizers_counter(location: str, allowance: int, form: PrefixForm) -> tuple[Callable[[Prompt], int], str]:
    from pathlib import Path

    from tokenizers import Tokenizer

    try:
        path = Path(location).expanduser()
        tok = Tokenizer.from_file(str(path / "tokenizer.json" if path.is_dir() else path)) if path.exists() \
            else Tokenizer.from_pretrained(location)
    except Exception as exc:  # noqa: BLE001
        raise SettingError("tokenizer", f"{location!r}: not a tiktoken encoding, a folder with tokenizer.json, "
                                        f"or a loadable Hub tokenizer ({exc})") from None
    return (lambda prompt: len(tok.encode(form.text(prompt), add_special_tokens=True).ids) + allowance), \
        f"tokenizer {location} + {allowance} tokens for the template"


def implausible(counts: dict[str, int], refs: list[RowRef], facts: ServerFacts | None) -> list[str]:
    """A warning when the server counts prompts at under half their ``num_tokens``: its chat template may drop them.

    Measured on llama.cpp: with Jinja on, ``--chat-template gemma`` is the template's text, and every prompt
    becomes "gemma" (3 tokens). Real tokenizers go as low as 0.20 of a cl100k count (Tamil, Gemma 3), so the
    threshold is 0.1, and half the rows must be under it.
    """
    low = [r for r in refs if counts.get(r.id, 0) < LOW_COUNT * r.num_tokens]
    if len(low) < max(1, len(refs) // 2):  # a few rows of one script are not a template fault
        return []
    software = facts.software if facts is not None else "the server"
    return [f"{software} counts {len(low)} of {len(refs)} prompts at under {LOW_COUNT:.0%} of their num_tokens (e.g. "
            f"{low[0].id}: {counts[low[0].id]} vs {low[0].num_tokens}): is its chat template dropping the prompt? "
            f"(llama.cpp with Jinja on takes `--chat-template NAME` for the template's text: use --no-jinja, or "
            f"--chat-template-file)"]
