"""The merged leaderboard as text (stdout), ``leaderboard.csv``, ``leaderboard.md`` and ``leaderboard.png``.

The figure has one panel per leaderboard: each model a point at its value, with its 95 % interval
as a bar where one is known (a local report; a published result whose notes state it); RULER's published rows
(``--ruler-published``) a hollow grey diamond, RULER's own number without an interval.
"""

from __future__ import annotations

import io
from pathlib import Path

from ..report.render.folder import csv_bytes, write_files
from ..report.render.plots import wrap_title
from .leaderboard import RULER_BOARD, Board, Score, Standing


def cell_text(score: Score | None) -> str:
    """``63.42 [61.20, 65.60]``, ``63.42``, or ``—``."""
    if score is None:
        return "—"
    ci = f" [{score.low:.2f}, {score.high:.2f}]" if score.low is not None else ""
    return f"{score.value:.2f}{ci}"


def table_rows(board: Board) -> list[list[str]]:
    """Header and one row per standing: model, origin, then each task's cell."""
    rows = [["model", "origin", *board.tasks]]
    rows += [[s.model, s.origin, *(cell_text(s.scores.get(t)) for t in board.tasks)] for s in board.standings]
    return rows


def table_text(board: Board) -> str:
    """The table with aligned columns, for the terminal."""
    rows = table_rows(board)
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows)


def markdown(board: Board) -> str:
    """The table in Markdown, with a line saying what the values are."""
    rows = table_rows(board)
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    lines += ["| " + " | ".join(c.replace("|", "\\|") for c in r) + " |" for r in rows[1:]]
    told = "Value: micro accuracy (%) over the leaderboard's pool, [95 % interval] where known."
    if "ruler" in board.tasks:
        told += (" `ruler`: RULER's Avg. (%), the mean over 4K … 128K of its 13 tasks' mean credit; rows of origin "
                 "`RULER's README (published)` are RULER's own numbers (another harness and tokenizer, no interval).")
    return "\n".join([told, "", *lines, *(["", *(f"- {n}" for n in board.notes)] if board.notes else [])]) + "\n"


def csv_file(board: Board) -> bytes:
    """One row per standing; per task its value and interval bounds (empty where unknown)."""
    header = ["model", "origin"] + [f"{t}_{part}" for t in board.tasks for part in ("value", "ci_low", "ci_high")]
    rows = []
    for s in board.standings:
        cells: list = [s.model, s.origin]
        for t in board.tasks:
            score = s.scores.get(t)
            cells += [score.value, score.low, score.high] if score else [None, None, None]
        rows.append(cells)
    return csv_bytes(header, rows)


LABEL_CHARS = 60  # a longer model label is shortened in the middle: the figure stays a readable width


def figure_label(standing: Standing) -> str:
    """A model's label on the figure: ``name (hub|local)``, at most LABEL_CHARS characters."""
    text = f"{standing.model} ({standing.where})"
    half = LABEL_CHARS // 2
    return text if len(text) <= LABEL_CHARS else f"{text[:half - 1]}…{text[-half:]}"


def figure_png(board: Board) -> bytes | None:
    """One panel per leaderboard that has a value, models on the vertical axis, values with their intervals; the
    figure as wide as its longest label needs. None when no model has a value on any leaderboard: nothing to draw."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    tasks = [t for t in board.tasks if any(s.scores.get(t) for s in board.standings)]
    standings = [s for s in board.standings if any(s.scores.get(t) for t in tasks)]
    if not tasks:
        return None
    models = [figure_label(s) for s in standings]
    labels_in = 0.5 + 0.065 * max(len(m) for m in models)  # ~0.6 em per character at 8 pt
    width = labels_in + 2.6 * len(tasks)
    published = any(s.where == "published" for s in standings)
    fig = Figure(figsize=(width, 1.3 + 0.35 * len(models) + (0.4 if published else 0)))
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, len(tasks), sharey=True, squeeze=False)[0]
    for ax, task in zip(axes, tasks):
        for y, standing in enumerate(standings):
            score = standing.scores.get(task)
            if score is None:
                continue
            if standing.where == "published":  # RULER's own number: hollow, grey, no interval
                ax.plot([score.value], [y], marker="D", fillstyle="none", color="#7f7f7f", linestyle="none")
                continue
            err = [[score.value - score.low], [score.high - score.value]] if score.low is not None else None
            ax.errorbar([score.value], [y], xerr=err, fmt="o", color="C0", capsize=3)
        ax.set_title(task, fontsize=9)
        ax.set_xlim(0, 100)
        ax.set_xlabel("RULER's Avg. (%)" if task == RULER_BOARD else "accuracy (%)", fontsize=8)
        ax.tick_params(labelsize=8)
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(models)), models, fontsize=8)
    axes[0].set_ylim(len(models) - 0.5, -0.5)  # best first, no point on the frame
    if published:
        fig.suptitle(wrap_title("hollow grey: RULER's published numbers (its README; another harness and tokenizer, "
                                "no interval)", width - 0.3, 8), fontsize=8)
    fig.tight_layout()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    return buffer.getvalue()


def write_board(board: Board, out: Path) -> list[Path]:
    """leaderboard.csv, leaderboard.md and leaderboard.png into ``out``, each written atomically; no figure (and
    none left from an earlier run) when there is nothing to draw."""
    files = {"leaderboard.csv": csv_file(board), "leaderboard.md": markdown(board).encode("utf-8")}
    figure = figure_png(board)
    if figure is not None:
        files["leaderboard.png"] = figure
    written = write_files(out, files)
    if figure is None:
        (out / "leaderboard.png").unlink(missing_ok=True)
    return written
