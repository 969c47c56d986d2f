"""Paired comparison of two models on the same dataset rows (``oneruler compare``; docs/scoring.md).

Two reports pair when they scored the same rows: the same dataset manifest sha256 (recorded at
scoring time, else by the run's meta). Rows counted in both reports are compared per config, per
task × length, per language × length (the heatmap's NIAH pool), per language and overall: the
difference in accuracy, a paired cluster-bootstrap 95 % interval (example indices resampled, both
models' outcomes moving together), a p-value and Benjamini–Hochberg q-values across the cells of
each table; ``significant`` is q < 0.05. A config's p-value (one row per example index: its rows
are independent) is McNemar's exact test; a pooled cell's rows share example indices, so its
p-value is the exact cluster sign-flip test over the indices (``stats/sign_flip.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from ...spec.configs import render_length
from ..score.records import Record
from ..stats.bootstrap import ClusterBootstrap, percentiles
from ..stats.closed_form import ALPHA, bh_qvalues, mcnemar_exact
from ...base.text import plural
from ..stats.sign_flip import score_scale, sign_flip_p_values, smallest_p
from ..views.grouping import task_rank

# table name -> the record fields of its cells ("NIAH" tables keep NIAH rows when there are any)
TABLES: dict[str, tuple[str, ...]] = {
    "config": ("config",), "task × length": ("task", "length"), "language × length": ("language", "length"),
    "language": ("language",), "overall": (),
}
MCNEMAR, SIGN_FLIP = "exact McNemar", "cluster sign-flip"  # the test of a config's cells, of a pooled cell's
TESTS_LINE = ("tests: a config's p is McNemar's exact test (one row per example index: its rows are independent); "
              "a pooled cell's p (task × length, language × length, language, overall) is the exact sign-flip test "
              "over example indices (rows sharing an index are not independent; docs/scoring.md); q: "
              "Benjamini–Hochberg within each table")
GRADED_TESTS_LINE = ("graded rows (RULER's tasks: each row's credit, 0–1): a config's p is the exact sign-flip test of "
                     "the credit differences (McNemar's test is for pass/fail), a/b_only the rows one model scored higher")


@dataclass(frozen=True)
class PairedCell:
    """One line of paired.csv (accuracies, difference and interval as fractions, like every report file)."""

    model_a: str
    model_b: str
    scope: str  # the table: config, task × length, language × length, language, overall
    cell: str  # e.g. pl_s_niah_8k, "s_niah 8k", "pl 8k", pl, all
    n: int  # rows counted in both reports
    indices: int  # the example indices those rows come from (the clusters)
    acc_a: float
    acc_b: float
    diff: float  # acc_a - acc_b
    ci_low: float
    ci_high: float
    a_only: int  # rows only model A passed (graded rows: where A scored more credit)
    b_only: int
    test: str  # MCNEMAR (a config) or SIGN_FLIP (a pooled cell)
    p_value: float
    q_value: float
    significant: bool
    key: tuple = ()  # the cell's field values (not written)

    HEADER = ("model_a", "model_b", "scope", "cell", "n", "indices", "acc_a", "acc_b", "diff", "ci_low", "ci_high",
              "a_only", "b_only", "test", "p_value", "q_value", "significant")

    def csv_row(self) -> list[Any]:
        """The values in ``HEADER`` order: accuracies to 6 decimals, p and q to 6 significant digits."""
        return [float(f"{v:.6g}") if k in ("p_value", "q_value") else round(v, 6) if isinstance(v, float) else v
                for k, v in ((k, getattr(self, k)) for k in self.HEADER)]


def pairing(a_sha: str | None, b_sha: str | None) -> str | None:
    """None when two reports scored the same rows, else why they cannot be paired."""
    if a_sha is None or b_sha is None:
        return "a report does not record its dataset's manifest sha256"
    if a_sha != b_sha:
        return f"they scored different datasets (manifest sha256 {a_sha[:12]}… vs {b_sha[:12]}…)"
    return None


def _key_text(fields: tuple[str, ...], key: tuple) -> str:
    return " ".join(render_length(v) if f == "length" else str(v) for f, v in zip(fields, key)) or "all"


@dataclass(frozen=True)
class PairedRows:
    """The rows counted in both reports of a pair: model A's records of them, each model's passes (0/1) and the
    bootstrap over their example indices that every cell of the pair shares."""

    model_a: str
    model_b: str
    rows: list[Record]
    passed_a: np.ndarray  # each row's score (a graded row's credit, else 0/1)
    passed_b: np.ndarray
    bootstrap: ClusterBootstrap
    graded: np.ndarray | None = None  # each row is scored by a graded rule (RULER's)

    @property
    def scale(self) -> int:
        """The unit that makes every score of the pair whole (``stats/sign_flip.py:score_scale``; 1: pass/fail)."""
        return score_scale(np.concatenate([self.passed_a, self.passed_b]))


@dataclass(frozen=True)
class PairedTable:
    """One table of a pair: its name (``TABLES``), the record fields of its cells, the cells' keys in order and
    each paired row's cell (its position in ``keys``; −1: left out of the table)."""

    name: str
    fields: tuple[str, ...]
    keys: list[tuple]
    cell_of: np.ndarray  # each row's cell among ``keys`` (−1: not in the table)


def paired_rows(label_a: str, records_a: Sequence[Record], label_b: str, records_b: Sequence[Record]) -> PairedRows | None:
    """The rows both reports counted (None: none)."""
    other = {r.id: r for r in records_b if r.score.counted}
    pairs = [(r, other[r.id]) for r in records_a if r.score.counted and r.id in other]
    if not pairs:
        return None
    first = [a for a, _ in pairs]
    return PairedRows(label_a, label_b, first, np.array([a.score.score for a, _ in pairs], dtype=np.float64),
                      np.array([b.score.score for _, b in pairs], dtype=np.float64),
                      ClusterBootstrap(np.array([a.index for a in first])),
                      np.array([a.score.graded or b.score.graded for a, b in pairs], dtype=bool))


def paired_tables(rows: Sequence[Record], keeps_task: Callable[[str], bool]) -> list[PairedTable]:
    """Every table of ``TABLES`` over the paired rows, keys in paper order (the language × length table keeps
    the NIAH rows when there are any)."""
    tasks = {a.task for a in rows}
    kept, ranks = {t: keeps_task(t) for t in tasks}, {t: task_rank(t) for t in tasks}
    niah = np.array([kept[a.task] for a in rows], dtype=bool)
    config_order = {a.config: (ranks[a.task], a.language, a.length, a.config) for a in rows}

    def rank(field_name: str, value: Any) -> Any:
        return ranks[value] if field_name == "task" else config_order[value] if field_name == "config" else value

    out = []
    for table, fields in TABLES.items():
        keep = niah if table == "language × length" and niah.any() else np.ones(len(rows), dtype=bool)
        keys = sorted({tuple(getattr(a, f) for f in fields) for a, k in zip(rows, keep) if k},
                      key=lambda key: tuple(rank(f, v) for f, v in zip(fields, key)))
        number = {key: n for n, key in enumerate(keys)}
        cell_of = np.array([number[tuple(getattr(a, f) for f in fields)] if k else -1 for a, k in zip(rows, keep)])
        out.append(PairedTable(table, fields, keys, cell_of))
    return out


def table_cells(pair: PairedRows, table: PairedTable) -> list[PairedCell]:
    """The cells of one table: difference with its paired bootstrap interval, p (McNemar per pass/fail config, the
    cluster sign-flip test for pooled cells and for graded configs, on the credits in ``PairedRows.scale`` units)
    and BH q per cell."""
    cell_of, passed_a, passed_b, keys = table.cell_of, pair.passed_a, pair.passed_b, table.keys
    sums = pair.bootstrap.sums(cell_of, len(keys), passed_a, np.ones_like(passed_a), passed_b=passed_b)
    bounds = percentiles(pair.bootstrap.difference(sums))
    n = sums.counted.sum(axis=1)
    indices = (sums.counted > 0).sum(axis=1)
    inside = cell_of >= 0
    wins_a = np.bincount(cell_of[inside], weights=(passed_a > passed_b)[inside], minlength=len(keys))
    wins_b = np.bincount(cell_of[inside], weights=(passed_b > passed_a)[inside], minlength=len(keys))
    graded = np.zeros(len(keys), dtype=bool) if pair.graded is None else \
        np.bincount(cell_of[inside], weights=pair.graded[inside], minlength=len(keys)) > 0
    tests = [MCNEMAR if table.name == "config" and not g else SIGN_FLIP for g in graded]
    scaled = pair.scale * (sums.passed - sums.passed_b) if graded.any() else sums.passed - sums.passed_b
    p_values = [mcnemar_exact(int(x), int(y)) if test == MCNEMAR else sign_flip_p_values(scaled[k])[0]
                for k, (test, x, y) in enumerate(zip(tests, wins_a, wins_b))]
    q_values = bh_qvalues(p_values)
    cells = []
    for k, key in enumerate(keys):
        acc_a, acc_b = sums.passed[k].sum() / n[k], sums.passed_b[k].sum() / n[k]
        cells.append(PairedCell(
            pair.model_a, pair.model_b, table.name, _key_text(table.fields, key), n=int(n[k]), indices=int(indices[k]),
            acc_a=float(acc_a), acc_b=float(acc_b), diff=float(acc_a - acc_b), ci_low=float(bounds[0, k]),
            ci_high=float(bounds[1, k]), a_only=int(wins_a[k]), b_only=int(wins_b[k]), test=tests[k], p_value=p_values[k],
            q_value=q_values[k], significant=q_values[k] < ALPHA, key=key))
    return cells


def paired_cells(label_a: str, records_a: Sequence[Record], label_b: str, records_b: Sequence[Record],
                 keeps_task: Callable[[str], bool]) -> list[PairedCell]:
    """Every table's cells for one pair of models (``keeps_task``: which tasks the language × length table keeps)."""
    pair = paired_rows(label_a, records_a, label_b, records_b)
    if pair is None:
        return []
    return [cell for table in paired_tables(pair.rows, keeps_task) for cell in table_cells(pair, table)]


def _indices(n: int) -> str:
    return plural(n, "example index", "example indices")


def headline(cells: list[PairedCell]) -> str:
    """The overall result of a pair, clustered (``A vs B: ...``; see ``_overall_text``)."""
    overall = next(c for c in cells if c.scope == "overall")
    return f"{overall.model_a} vs {overall.model_b}: {_overall_text(overall)}"


def _overall_text(overall: PairedCell) -> str:
    """The accuracies, the difference with its paired cluster-bootstrap interval and the cluster sign-flip p; when the
    example indices are too few for any p below 0.05, it says so."""
    verdict = "significant" if overall.significant else "not significant"
    line = (f"{100 * overall.acc_a:.1f} vs {100 * overall.acc_b:.1f}, difference {100 * overall.diff:+.1f} points, "
            f"95 % paired cluster-bootstrap interval "
            f"[{100 * overall.ci_low:+.1f}, {100 * overall.ci_high:+.1f}], sign-flip p {_p_text(overall.p_value)} "
            f"over {_indices(overall.indices)} ({verdict})")
    floor = smallest_p(overall.indices)
    if floor >= ALPHA:
        line += f"; with {_indices(overall.indices)} no p can be below {floor:.3g}: build with --samples N"
    return line


def pair_summary(cells: list[PairedCell]) -> str:
    """The clustered overall result first, then per table how many cells differ significantly and in whose favour."""
    a, b = cells[0].model_a, cells[0].model_b
    overall = next(c for c in cells if c.scope == "overall")
    lines = [f"{a} vs {b}: {overall.n} rows counted in both, from {_indices(overall.indices)}",
             f"  overall: {_overall_text(overall)}"]
    for table in TABLES:
        mine = [c for c in cells if c.scope == table]
        if table == "overall" or not mine:
            continue
        better_a = [c.cell for c in mine if c.significant and c.diff > 0]
        better_b = [c.cell for c in mine if c.significant and c.diff < 0]
        cells_differ = "cell differs" if len(mine) == 1 else "cells differ"
        text = f"  {table}: {len(better_a) + len(better_b)} of {len(mine)} {cells_differ} (q < 0.05)"
        for model, better in ((a, better_a), (b, better_b)):
            if better:
                listed = ", ".join(better[:8]) + (f" and {len(better) - 8} more" if len(better) > 8 else "")
                text += f"; {len(better)} favour {model} ({listed})"
        lines.append(text)
    return "\n".join(lines)


def _p_text(p: float) -> str:
    """``= 0.0123``, or ``< 1e-300`` where the float underflowed."""
    return f"= {p:.3g}" if p > 0 else "< 1e-300"
