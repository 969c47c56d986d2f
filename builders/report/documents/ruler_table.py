"""RULER's table row as a typed record with one writer and one reader: ``RulerRow`` (``to_json`` / ``from_json``,
scores.json's ``ruler_table`` block; ruler_table.csv is written from it by ``render/ruler.py``).

One row per tokenizer of a report's RULER rows (RULER's 13 English tasks): per length the mean of the 13 tasks'
scores, Avg., wAvg. (inc), wAvg. (dec) and the effective length, as in RULER's README table
(``views/ruler_table.py`` computes it). Scores and interval bounds are fractions (0–1), as in every report file;
a value that cannot be determined is None with what it lacks (``missing``: the tasks a length has no counted row
of, or the lengths Avg. needs).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

AVG, WAVG_INC, WAVG_DEC = "Avg.", "wAvg. (inc)", "wAvg. (dec)"  # RULER's column names
NOT_DETERMINED = "not determined"


@dataclass
class RulerValue:
    """One column of the row: ``column`` (``4K`` … ``128K``, ``Avg.``, ``wAvg. (inc)``, ``wAvg. (dec)``), its value
    and 95 % interval ([low, high], fractions), or None with ``missing``: what it would need (task ids for a length,
    length columns for the averages)."""

    column: str
    value: float | None
    ci: list[float] | None = None
    missing: list[str] | None = None

    def text(self, decimals: int = 1) -> str:
        """``96.6 [95–98]`` (percent, the interval's bounds whole), or ``not determined (missing …)``."""
        if self.value is None:
            return f"{NOT_DETERMINED} ({missing_text(self.missing or [])})"
        shown = f"{100 * self.value:.{decimals}f}"
        return shown + (f" [{100 * self.ci[0]:.0f}–{100 * self.ci[1]:.0f}]" if self.ci else "")


def missing_text(missing: list[str]) -> str:
    """``missing ruler_vt, ruler_cwe`` (the first three, then how many more)."""
    shown = ", ".join(missing[:3]) + (f" and {len(missing) - 3} more" if len(missing) > 3 else "")
    return f"missing {shown}" if missing else "nothing counted"


@dataclass
class RulerRow:
    """RULER's table row of one tokenizer's rows: its columns, the effective length (``32K``, ``<4K``, ``>128K``, or
    ``not determined (…)``) with its 95 % interval ([shortest, longest] as the same labels), the threshold it was read
    against (percent) and the counted rows, by example indices."""

    tokenizer: str
    lengths: list[int]
    columns: list[RulerValue]
    effective_length: str
    effective_length_ci: list[str] | None
    threshold: float
    rows: int
    indices: int

    def column(self, name: str) -> RulerValue:
        """The column called ``name`` (KeyError: none)."""
        for value in self.columns:
            if value.column == name:
                return value
        raise KeyError(name)

    def effective_text(self) -> str:
        """``64K [32K–>128K]``: the effective length and its interval."""
        ci = self.effective_length_ci
        return self.effective_length + (f" [{ci[0]}–{ci[1]}]" if ci and ci[0] != ci[1] else "")

    def to_json(self) -> dict[str, Any]:
        """scores.json's object (``missing`` and ``ci`` only where set)."""
        out: dict[str, Any] = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "columns"}
        out["columns"] = [{k: v for k, v in vars(c).items() if v is not None or k == "value"} for c in self.columns]
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> "RulerRow":
        """The row of a scores.json object (KeyError/TypeError when it is not one)."""
        columns = [RulerValue(**c) for c in data["columns"]]
        return cls(**{**{f.name: data[f.name] for f in fields(cls) if f.name != "columns"}, "columns": columns})
