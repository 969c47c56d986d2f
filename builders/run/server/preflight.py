"""No silent truncation: before anything is sent, every prompt + its max new tokens must fit the server's window.

The server's software is recognised from what it answers and its window learnt in its own way
(``window.py``; ``max_model_len`` overrides it). Each prompt is counted as the server will see it
(``counting.py``): by the server's own endpoints (the chat template applied where the server can),
else a local ``tokenizer``, else the row's ``num_tokens`` (measured with the dataset's tokenizer)
times a margin calibrated per task (``estimate.py``), with a warning. ``Preflight`` is what it
found: the counts, the window, the rows that do not fit, what to print.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...base.errors import OneRulerError, named_setting
from ...spec.ids import id_order
from ..request_settings import SamplingSettings
from ..rows.selection import RowRef
from .counting import PromptReader, implausible, local_counter, server_counts
from .dialects import KnownServer, ServerFacts
from .estimate import estimate
from .balancer import ServerBalancer
from .window import Window, servers_window


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
        """The preflight line: the server's software, its window and where it came from, how prompts were counted."""
        software = f"{self.server.software}; " if self.server is not None else ""
        size = f"{self.window.size:,}" if self.window.size else "unknown"
        cap = f", prompts at most {self.window.prompt_limit:,}" if self.window.prompt_limit else ""
        slots = f"; {self.server.slots} parallel slot(s)" if self.server is not None and self.server.slots else ""
        if self.server is not None and self.server.shared_cache:
            slots += f" sharing one {self.server.shared_cache:,}-token KV cache ({self.server.shared_source})"
        return f"server: {software}window {size}{cap} ({self.window.source}){slots}; prompts counted with {self.method}"

    def largest(self, n: int) -> list[int]:
        """The ``n`` largest requests (prompt + max new tokens) among the rows that fit, largest first."""
        return sorted((c + self.new_tokens[i] for i, c in self.counts.items() if self.fits(i)), reverse=True)[:n]

    def together(self) -> int | None:
        """How many requests one server can work on at once: its slots, or, when they share one cache, as many of
        the largest requests as fit it together (at least 1); None when it does not say its slots."""
        server = self.server
        if server is None or not server.slots:
            return None
        if not server.shared_cache:
            return server.slots
        largest, total, fitting = self.largest(server.slots), 0, 0
        for size in largest:
            if total + size > server.shared_cache:
                break
            total, fitting = total + size, fitting + 1
        return server.slots if fitting == len(largest) else max(1, fitting)

    def more_at_once(self) -> str:
        """What would let a server whose slots share one cache work on all its slots at once (the dialect's words)."""
        server = self.server
        if server is None or not server.shared_cache or not server.slots:
            return ""
        largest = self.largest(server.slots)
        return server.more_at_once.format(together=sum(largest), slots=server.slots, window=self.window.size,
                                          separate=server.slots * (self.window.size or 0))

    def refusal(self) -> OneRulerError:
        """The error of a run that cannot start: how many rows, the worst, the window."""
        over = self.overlong
        worst = min(over, key=lambda i: (-(self.counts[i] + self.new_tokens[i]), id_order(i)))  # ties: first row
        p, m = self.counts[worst], self.new_tokens[worst]
        cap = f" (prompts at most {self.window.prompt_limit})" if self.window.prompt_limit else ""
        said = (f"{len(over)} of {len(self.counts)} selected row(s) do not fit: prompt + max new tokens exceeds the "
                f"server's {self.window.size}-token window{cap} ({self.window.source}); worst {worst}: {p} prompt + {m} "
                f"new = {p + m} tokens (counted with {self.method}). Nothing was sent. To run them: {self.fix}")
        return OneRulerError(f"{said}; or pick shorter configs, or pass {named_setting('skip_overlong')} to run the rest")

    def skip_reason(self, ident: str) -> str:
        """The error recorded on a skipped row."""
        p, m = self.counts[ident], self.new_tokens[ident]
        return (f"skipped: prompt of {p} tokens + {m} new tokens exceeds the server's {self.window.size}-token window "
                f"{f'or its {self.window.prompt_limit}-token prompt cap ' if self.window.prompt_limit else ''}"
                f"(counted with {self.method})")


async def preflight(balancer: ServerBalancer | None, refs: list[RowRef], prompts: PromptReader, sampling: SamplingSettings, *,
                    api: str, max_model_len: int | None, tokenizer: str | None, margin: float, concurrency: int,
                    offline_ok: bool = False, progress: bool = True) -> Preflight:
    """Learn the window and count every prompt (see the module docstring for the order of methods).

    Prompts are read config by config through ``prompts`` and dropped once counted: only counts are kept.
    """
    if not refs:  # nothing left to send: no need to reach the server
        return Preflight(Window(max_model_len, "nothing to send"), "nothing to count", {}, {})
    import openai

    window, warnings = await servers_window(balancer, max_model_len, offline_ok)
    new_tokens = {r.id: sampling.new_tokens(r.reserve, r.task) for r in refs}
    server = balancer.first if balancer is not None and any(s.known for s in balancer.servers) else None
    known = server.known if server is not None else None
    facts = known.facts if known is not None else None
    counts = None
    if server is not None and known is not None and known.dialect.counting:
        try:
            counts = await server_counts(known, refs, prompts, concurrency, progress)
        except openai.APIConnectionError as exc:
            if not offline_ok:
                raise OneRulerError(f"cannot reach {server.client.shown} to count prompts "
                                    f"({server.client.describe(exc, server.slots)})") from None
    if known is not None and counts is not None:
        warnings += implausible(counts, refs, facts)
        return Preflight(window, known.dialect.counting, counts, new_tokens, warnings, facts, known.dialect.exact)
    if tokenizer is not None:
        count, method = local_counter(tokenizer, api == "chat")
        counts = {r.id: count(r.input) for batch in prompts(refs) for r in batch}
        return Preflight(window, method, counts, new_tokens, warnings, facts)
    counts, method = estimate(refs, margin, api == "chat")
    warnings.append(f"{_no_count(known, balancer)} and no --tokenizer was given: prompt sizes are estimated from {method}; "
                    f"a prompt near the window may still be rejected (or, by some servers, truncated)")
    return Preflight(window, method, counts, new_tokens, warnings, facts)


def _no_count(known: KnownServer | None, balancer: ServerBalancer | None) -> str:
    """Why the server did not count the prompts."""
    if known is None:
        return "no server to count with" if balancer is None else "no server could be reached to count with"
    if not known.dialect.counting:
        return f"{known.facts.software} has no endpoint that counts prompt tokens"
    return f"{known.facts.software} gave no count ({known.problems()})"
