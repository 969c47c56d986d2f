"""The truncation guard: every answer's ``usage.prompt_tokens`` against the prompt the run sent.

Some servers cut a prompt longer than their window instead of refusing it (Ollama's OpenAI endpoint
keeps the end and answers as if nothing happened). A cut prompt shows in the answer's usage:

- counts from the server itself (exact): the server read clearly fewer tokens than it counted
  (more than ``max(SLACK_TOKENS, SLACK_SHARE x count)`` fewer);
- estimates or local counts: the ratio read/counted falls below ``RATIO_DROP`` x the median ratio of
  the same config's answers so far (after ``RATIO_WARMUP`` of them). Per config, because the ratio
  depends on the language: a Tamil prompt is 0.20 of its cl100k size for Gemma 3 and 0.26 for
  o200k_base, an English one 1.0 (benchmarks/estimate_margins.py), so no fixed floor can tell;
- any count, a known window: the prompt read leaves no room for the new tokens (prompt + max new
  tokens over the window): only a server that cut the prompt to its window answers that. The
  window is the server's own when it truncates (Ollama's num_ctx, whatever --max-model-len says).

A cut row is recorded as failed with the reason; the run stops after ``STOP_AFTER`` of them, with a
``CutPrompts`` error (exit 1: rows were sent). Whether the window is the cause is said: a prompt read
that leaves room for the new tokens in a known window was not cut to fit it (a proxy, a chat template
or another model shortened it), and a larger window would not help.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from ...base.errors import OneRulerError
from ...spec.ids import config_of

SLACK_TOKENS = 8
SLACK_SHARE = 0.02
RATIO_DROP = 0.8
RATIO_WARMUP = 3
STOP_AFTER = 3


class CutPrompts(OneRulerError):
    """The run stopped because the server read shorter prompts than were sent. Exit code 1: rows were sent."""

    exit_code = 1


@dataclass
class TruncationGuard:
    """Checks answers against the preflight's counts; remembers what it saw."""

    counts: dict[str, int]
    new_tokens: dict[str, int]
    window: int | None
    exact: bool
    ratios: dict[str, list[float]] = field(default_factory=dict)  # config → read/counted of its answers
    cut: list[str] = field(default_factory=list)  # ids of rows the server cut
    worst: str | None = None  # the first cut row's reason, for the final error
    first: tuple[int, int] | None = None  # the first cut row's (prompt tokens sent, prompt tokens read)
    window_cause: bool = True  # whether the first cut row was cut to fit the window
    no_usage: int = 0

    def check(self, ident: str, usage: dict | None) -> str | None:
        """Why the server cut this row's prompt (None: it read it whole, or nothing can tell)."""
        read = (usage or {}).get("prompt_tokens")
        sent = self.counts.get(ident)
        if not isinstance(read, int) or isinstance(read, bool) or read <= 0:
            self.no_usage += 1
            return None
        if sent is None:
            return None
        reason = self._reason(ident, read, sent)
        if reason is None:
            self.ratios.setdefault(config_of(ident), []).append(read / sent)
            return None
        if self.worst is None:
            self.worst, self.first = reason, (sent, read)
            self.window_cause = self.fills_window(ident, read)
        self.cut.append(ident)
        return reason

    def fills_window(self, ident: str, read: int) -> bool:
        """Whether the prompt read leaves no room for the row's new tokens in the (known) window."""
        return self.window is not None and read + self.new_tokens.get(ident, 0) > self.window

    def _reason(self, ident: str, read: int, sent: int) -> str | None:
        how = "counted" if self.exact else "estimated"
        said = f"the server read {read} prompt tokens of the {sent} {how}"
        if self.fills_window(ident, read):
            return f"truncated by the server: {said}, filling its {self.window}-token window"
        shorter = None
        if self.exact and read < sent - max(SLACK_TOKENS, SLACK_SHARE * sent):
            shorter = said
        seen = self.ratios.get(config_of(ident), [])
        if not self.exact and len(seen) >= RATIO_WARMUP:
            floor = RATIO_DROP * statistics.median(seen)
            if read < floor * sent:
                shorter = f"{said} (under {floor:.2f} of it; the config's other rows came back whole)"
        if shorter is None:
            return None
        if self.window is None:
            return f"truncated by the server: {shorter}"
        return f"prompt cut short: {shorter}; its {self.window}-token window is not the cause"

    @property
    def stop(self) -> bool:
        """Whether enough rows were cut to stop the run."""
        return len(self.cut) >= STOP_AFTER
