"""``--dry-run``: what a run would send, per config and overall, and what it would cost at most."""

from __future__ import annotations

from dataclasses import dataclass

from .rows.selection import RowRef
from .server.preflight import Preflight


@dataclass
class PlanLine:
    """Requests and tokens of one config (or of the whole run)."""

    name: str
    requests: int = 0
    prompt_tokens: int = 0
    max_output_tokens: int = 0
    overlong: int = 0

    def cost(self, price_in: float | None, price_out: float | None) -> float | None:
        """USD at these prices per million tokens (every row using all its output tokens): an upper bound."""
        if price_in is None and price_out is None:
            return None
        return (self.prompt_tokens * (price_in or 0.0) + self.max_output_tokens * (price_out or 0.0)) / 1e6


def plan_lines(rows: list[RowRef], pre: Preflight) -> list[PlanLine]:
    """One PlanLine per config (name order), then the total (named ``all``)."""
    by_config: dict[str, PlanLine] = {}
    total = PlanLine("all")
    over = set(pre.overlong)
    for row in rows:
        line = by_config.setdefault(row.config, PlanLine(row.config))
        for target in (line, total):
            target.requests += 1
            target.prompt_tokens += pre.counts[row.id]
            target.max_output_tokens += pre.new_tokens[row.id]
            target.overlong += row.id in over
    return [by_config[name] for name in sorted(by_config)] + [total]


def render_plan(lines: list[PlanLine], price_in: float | None, price_out: float | None) -> str:
    """The dry-run table (a cost column when a price is given)."""
    priced = price_in is not None or price_out is not None
    head = ["config", "requests", "prompt_tokens", "max_output_tokens", "overlong"] + (["max_cost_usd"] if priced else [])
    table = [head]
    for line in lines:
        cells = [line.name, f"{line.requests:,}", f"{line.prompt_tokens:,}", f"{line.max_output_tokens:,}",
                 f"{line.overlong:,}"]
        if priced:
            cells.append(f"{line.cost(price_in, price_out):,.2f}")
        table.append(cells)
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    text = "\n".join("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
                     for row in table)
    return text
