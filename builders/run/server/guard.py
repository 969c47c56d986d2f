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

A cut row is recorded as failed with the reason; the run stops after ``STOP_AFTER`` of them.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass, field

from ...spec.ids import config_of

SLACK_TOKENS = 8
SLACK_SHARE = 0.02
RATIO_DROP = 0.8
RATIO_WARMUP = 3
STOP_AFTER = 3


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
        self.cut.append(ident)
        self.worst = self.worst or reason
        return reason

    def _reason(self, ident: str, read: int, sent: int) -> str | None:
        how = "counted" if self.exact else "estimated"
        said = f"the server read {read} prompt tokens of the {sent} {how}"
        if self.window is not None and read + self.new_tokens.get(ident, 0) > self.window:
            return f"truncated by the server: {said}, filling its {self.window}-token window"
        if self.exact and read < sent - max(SLACK_TOKENS, SLACK_SHARE * sent):
            return f"truncated by the server: {said}"
        seen = self.ratios.get(config_of(ident), [])
        if not self.exact and len(seen) >= RATIO_WARMUP:
            floor = RATIO_DROP * statistics.median(seen)
            if read < floor * sent:
                return f"truncated by the server: {said} (under {floor:.2f} of it; the config's other rows came back whole)"
        return None

    @property
    def stop(self) -> bool:
        """Whether enough rows were cut to stop the run."""
        return len(self.cut) >= STOP_AFTER
