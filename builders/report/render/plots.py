"""Figures of a report, drawn with matplotlib's object API (no global pyplot state).

Every grid (accuracy heatmaps, depth heatmaps, difference heatmaps) is drawn by ``_draw_grid``:
value labels white on dark cells and black on light ones, cells with rows but nothing counted
hatched and labelled with the reason (``50 cut``), cells without rows hatched ``no rows``; titles
are wrapped to the figure's width so that none is clipped.
"""

from __future__ import annotations

import io
import re
import textwrap
from dataclasses import dataclass

from ...base.text import plural
from ..views.depth import DepthBins, DepthCell, depth_grid
from ..views.heatmap import HeatmapGrid

# One colour per line or bar series (matplotlib's tab10 order), markers for print in grey.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
WIDE_INTERVAL = 0.20  # cells whose 95 % interval is wider than 20 points are marked
EMPTY_COLOUR = "#f2f2f2"


@dataclass
class GridCell:
    """What one grid cell shows: a value (None: empty), its label, and whether it is drawn muted."""

    value: float | None
    label: str
    muted: bool = False
    bold: bool = False


def _figure(width: float, height: float, layout: str | None = None):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout=layout)
    FigureCanvasAgg(fig)
    return fig


def _png(fig) -> bytes:
    if fig.get_layout_engine() is None:  # a constrained layout places itself when drawn
        fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    return buf.getvalue()


def wrap_title(title: str, width_inches: float, fontsize: float = 10) -> str:
    """The title broken into lines that fit ``width_inches`` (about 0.6 em per character); a number stays with
    its unit or relation ("95 %", "20 points", "q ≥ 0.05")."""
    per_line = max(20, int(width_inches * 72 / (fontsize * 0.6)))
    kept = re.sub(r"(\d) (%|points)", "\\1\u00a0\\2", re.sub(r" ([≥<>=]) ", "\u00a0\\1\u00a0", title))
    return "\n".join(textwrap.wrap(kept, per_line, break_on_hyphens=False))


def _text_colour(rgba) -> str:
    r, g, b = rgba[:3]
    return "white" if 0.299 * r + 0.587 * g + 0.114 * b < 0.5 else "black"


def _draw_grid(ax, cells: list[list[GridCell]], cmap, vmin: float, vmax: float, fontsize: float = 8):
    """An image of the values, labels in readable colours, empty cells hatched, muted ones pale; returns the image.

    The labels lie inside the axes, so they are left out of the layout computation (which would
    otherwise measure every one of them before drawing them again)."""
    import numpy as np
    from matplotlib.colors import Normalize
    from matplotlib.patches import Rectangle

    norm = Normalize(vmin, vmax)
    values = np.array([[np.nan if c.value is None else c.value for c in row] for row in cells], dtype=float)
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap.with_extremes(bad=EMPTY_COLOUR), norm=norm, aspect="auto")
    colours = cmap(np.clip((np.nan_to_num(values) - vmin) / (vmax - vmin), 0, 1))  # every cell's colour at once
    artists = []
    for i, row in enumerate(cells):
        for j, cell in enumerate(row):
            if cell.value is None:
                artists.append(ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="///",
                                                      edgecolor="#b0b0b0", lw=0)))
                artists.append(ax.text(j, i, cell.label, ha="center", va="center", fontsize=fontsize - 1,
                                       color="#505050", bbox=dict(facecolor=EMPTY_COLOUR, edgecolor="none", pad=1)))
                continue
            colour = "#808080" if cell.muted else _text_colour(colours[i, j])
            if cell.muted:
                artists.append(ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="white", alpha=0.75,
                                                      edgecolor="none")))
            artists.append(ax.text(j, i, cell.label, ha="center", va="center", fontsize=fontsize, color=colour,
                                   fontweight="bold" if cell.bold else "normal"))
    for artist in artists:
        artist.set_in_layout(False)
    return image


def accuracy_cells(grid: HeatmapGrid) -> list[list[GridCell]]:
    """The heatmap's cells: accuracy %, ``*`` on intervals wider than 20 points, the reason on empty cells."""
    out = []
    for row in grid.cells:
        line = []
        for cell in row:
            if cell is None:
                line.append(GridCell(None, "no rows"))
            elif cell.accuracy is None:
                line.append(GridCell(None, cell.short_reason()))
            else:
                wide = cell.interval is not None and cell.interval.width > WIDE_INTERVAL
                line.append(GridCell(100 * cell.accuracy, f"{100 * cell.accuracy:.0f}" + ("*" if wide else "")))
        out.append(line)
    return out


def language_heatmap_png(grid: HeatmapGrid, title: str) -> bytes:
    """Accuracy (%) by language (rows) × length (columns) as a heatmap PNG, with the sample size in the title."""
    return _png(language_heatmap_figure(grid, title))


def language_heatmap_figure(grid: HeatmapGrid, title: str):
    """The figure of ``language_heatmap_png``."""
    import matplotlib

    counts = sorted(c.counted for row in grid.cells for c in row if c is not None and c.counted)
    width = 1.1 * len(grid.lengths) + 3.2
    fig = _figure(width, 0.32 * len(grid.languages) + 2.0)
    ax = fig.add_subplot()
    image = _draw_grid(ax, accuracy_cells(grid), matplotlib.colormaps["RdYlGn"], 0, 100)
    ax.set_xticks(range(len(grid.lengths)), grid.lengths)
    ax.set_yticks(range(len(grid.languages)), grid.languages)
    ax.set_xlabel("context length")
    size = f"{counts[0]}–{counts[-1]}" if counts and counts[0] != counts[-1] else (str(counts[0]) if counts else "0")
    hatched = any(c is None or c.accuracy is None for row in grid.cells for c in row)
    ax.set_title(wrap_title(f"{title}. Counted rows per cell: {size}; * = 95 % interval wider than "
                            f"{100 * WIDE_INTERVAL:.0f} points" + ("; hatched: nothing counted (cut = finish_reason "
                                                                   "length, null = no response)" if hatched else ""),
                            width), fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.05, label="accuracy (%)")
    return fig


def depth_png(cells: list[DepthCell], bins: DepthBins, title: str) -> bytes:
    """Length × depth heatmaps (depth on the y axis, 0 % at the top), one panel per task, pooled over languages."""
    return _png(depth_figure(cells, bins, title))


def depth_cell(cell: DepthCell) -> GridCell:
    """A depth figure's cell: accuracy %, ``*`` on intervals wider than 20 points, and its count of needles."""
    if not cell.counted:
        return GridCell(None, "no needle")
    wide = cell.ci_low is not None and cell.ci_high - cell.ci_low > WIDE_INTERVAL
    return GridCell(100 * cell.accuracy, f"{100 * cell.accuracy:.0f}{'*' if wide else ''}\nn={cell.counted}")


def depth_figure(cells: list[DepthCell], bins: DepthBins, title: str):
    """The figure of ``depth_png``: a panel per task, one colorbar, the unit and the bins on the depth axis."""
    import matplotlib

    panels = depth_grid(cells, swept=bins.centred)
    columns = min(3, len(panels))
    rows = (len(panels) + columns - 1) // columns
    width = 3.4 * columns + 1.6
    tallest = max(len(labels) for _, labels, _ in panels.values())
    fig = _figure(width, max(3.6, 0.36 * tallest + 1.2) * rows + 0.9, layout="constrained")
    cmap = matplotlib.colormaps["RdYlGn"]
    axes, image = [], None
    for k, (task, (lengths, labels, grid)) in enumerate(panels.items()):
        ax = fig.add_subplot(rows, columns, k + 1)
        image = _draw_grid(ax, [[depth_cell(c) for c in line] for line in grid], cmap, 0, 100, fontsize=6.5)
        ax.set_xticks(range(len(lengths)), lengths, fontsize=8)
        ax.set_yticks(range(len(labels)), labels, fontsize=7)
        ax.set_xlabel("context length", fontsize=8)
        ax.set_ylabel(bins.axis(), fontsize=7.5)
        total = sum(c.counted for line in grid for c in line)
        ax.set_title(f"{task} ({plural(total, 'needle')})", fontsize=9)
        axes.append(ax)
    fig.colorbar(image, ax=axes, fraction=0.04, label="accuracy (%) on the queried needles")
    fig.suptitle(wrap_title(f"{title}. n = queried needles per cell; * = 95 % interval wider than "
                            f"{100 * WIDE_INTERVAL:.0f} points", width, 10), fontsize=10)
    return fig


def difference_png(grid: list[list[GridCell]], languages: list[str], lengths: list[str], title: str) -> bytes:
    """Paired differences (points) by language × length; non-significant cells muted (pale, grey labels)."""
    import matplotlib

    width = 1.1 * len(lengths) + 3.2
    fig = _figure(width, 0.32 * len(languages) + 2.0)
    ax = fig.add_subplot()
    extent = max([abs(c.value) for row in grid for c in row if c.value is not None] + [10.0])
    image = _draw_grid(ax, grid, matplotlib.colormaps["RdBu"], -extent, extent)
    ax.set_xticks(range(len(lengths)), lengths)
    ax.set_yticks(range(len(languages)), languages)
    ax.set_xlabel("context length")
    ax.set_title(wrap_title(title, width), fontsize=9)
    fig.colorbar(image, ax=ax, fraction=0.05, label="difference (points)")
    return _png(fig)


def group_curves_png(lengths: list[str], curves: dict[str, list], model: str) -> bytes:
    """Accuracy (%) versus length per language group (pooled ``Cell``s): resource (left panel) and script (right
    panel), each curve with its 95 % interval as a band."""
    fig = _figure(10, 4)
    names = list(curves)
    panels = [("Wikipedia size", names[:2]), ("script", names[2:])]
    for k, (what, members) in enumerate(panels):
        ax = fig.add_subplot(1, 2, k + 1)
        for n, name in enumerate(members):
            points = [(i, c) for i, c in enumerate(curves[name]) if c is not None and c.accuracy is not None]
            if points:
                xs = [i for i, _ in points]
                line, = ax.plot(xs, [100 * c.accuracy for _, c in points], marker=MARKERS[n % len(MARKERS)], label=name)
                bands = [(i, c.interval) for i, c in points if c.interval is not None]
                if len(bands) > 1:
                    ax.fill_between([i for i, _ in bands], [100 * b.low for _, b in bands], [100 * b.high for _, b in bands],
                                    color=line.get_color(), alpha=0.15, linewidth=0)
                elif bands:  # a band over one length has no width: draw the interval as a bar
                    (i, b), = bands
                    ax.vlines(i, 100 * b.low, 100 * b.high, color=line.get_color(), alpha=0.5, linewidth=6)
        ax.set_xticks(range(len(lengths)), lengths)
        ax.set_ylim(0, 100)
        ax.set_xlabel("context length")
        ax.set_ylabel("accuracy (%), all tasks")
        ax.set_title(wrap_title(f"{model}: by {what} (bands: 95 % intervals)", 4.5), fontsize=10)
        ax.grid(alpha=0.3)
        if ax.get_legend_handles_labels()[0]:  # no curve: no counted row in any group (no empty legend, no warning)
            ax.legend(fontsize=8, loc="lower left")
    return _png(fig)


def none_errors_png(languages: list[str], counts: dict[str, list[int]], scope: str) -> bytes:
    """Bars: how often each model answered "none" although the needle was there, per language (paper Figs. 18–19)."""
    return _png(none_errors_figure(languages, counts, scope))


def none_errors_figure(languages: list[str], counts: dict[str, list[int]], scope: str):
    """The figure of ``none_errors_png``."""
    import numpy as np

    width = min(16.0, max(6.0, 0.45 * len(languages) * max(1, len(counts)) ** 0.5 + 2))  # 26 languages x 5 models: 16
    fig = _figure(width, 4)
    ax = fig.add_subplot()
    bar = 0.8 / max(1, len(counts))
    x = np.arange(len(languages))
    for n, (model, values) in enumerate(counts.items()):
        ax.bar(x + (n - (len(counts) - 1) / 2) * bar, values, bar, label=model)
    highest = max([v for values in counts.values() for v in values] + [0])
    ax.set_ylim(0, max(1, highest) * 1.1)  # never an axis around 0 when nothing was counted
    if highest == 0:
        ax.text(0.5, 0.5, 'no "none" answer where a needle was present', transform=ax.transAxes,
                ha="center", va="center", fontsize=10, color="#505050")
    ax.set_xticks(x, languages)
    ax.set_xlabel("language")
    ax.set_ylabel('"none" answers with the needle present')
    ax.set_title(wrap_title(f'"None" errors by language ({scope})', width), fontsize=10)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="y", alpha=0.3)
    if counts:
        ax.legend(fontsize=8)
    return fig


@dataclass(frozen=True)
class RulerCurve:
    """One line of RULER's figure: its name (the ranked panel's) and legend label, lengths (tokens), scores (%; None:
    not determined), their 95 % intervals (None: none, RULER's published rows), its Avg. (%) and interval, and
    whether it is a published row."""

    name: str
    label: str
    lengths: list[int]
    scores: list[float | None]
    intervals: list[tuple[float, float] | None]
    avg: float | None
    avg_interval: tuple[float, float] | None
    published: bool = False


def ruler_png(curves: list[RulerCurve], lengths: list[str], threshold: float, title: str, ranked: bool) -> bytes:
    """RULER's score (%) by length, each report's curve with its 95 % band, published rows dashed and grey, the
    threshold dotted; ``ranked``: a second panel of every row's Avg., best first (intervals where known)."""
    entries = len([c for c in curves if not c.published]) + min(sum(c.published for c in curves), 5) + 1
    height = 3.6 + 0.2 * entries
    fig = _figure(12 if ranked else 7, max(height, 0.22 * len(curves) + 1.6) if ranked else height,
                  layout="constrained")
    ax = fig.add_subplot(1, 2, 1) if ranked else fig.add_subplot()
    own = [c for c in curves if not c.published]
    few_published = sum(c.published for c in curves) <= 4
    for n, curve in enumerate(curves):
        xs = [i for i, v in enumerate(curve.scores) if v is not None]
        ys = [curve.scores[i] for i in xs]
        if curve.published:
            named = few_published or n == len(own)  # many published rows: one legend entry for them all
            label = curve.label if few_published else f"RULER's published rows ({len(curves) - len(own)})"
            ax.plot(xs, ys, linestyle="--", marker="o", fillstyle="none", color="#7f7f7f" if not few_published else
                    None, alpha=0.55 if not few_published else 0.9, linewidth=1, label=label if named else None)
            continue
        line, = ax.plot(xs, ys, marker=MARKERS[n % len(MARKERS)], label=curve.label, linewidth=2)
        bands = [(i, curve.intervals[i]) for i in xs if curve.intervals[i] is not None]
        if bands:
            ax.fill_between([i for i, _ in bands], [b[0] for _, b in bands], [b[1] for _, b in bands],
                            color=line.get_color(), alpha=0.15, linewidth=0)
    ax.axhline(threshold, color="black", linestyle=":", linewidth=1, label=f"threshold {threshold:g}: the effective "
               f"length is the longest length at or above it")
    ax.set_xticks(range(len(lengths)), lengths)
    ax.set_ylim(0, 100)
    ax.set_xlabel("context length (tokens; K = 1,024)")
    ax.set_ylabel("RULER score (%): mean of its 13 tasks")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, 0), borderaxespad=5.5, frameon=False)
    ax.set_title(wrap_title(title, 6.5 if ranked else 6.8), fontsize=9)
    if ranked:
        _ranked_avg(fig.add_subplot(1, 2, 2), curves)
    return _png(fig)


def _ranked_avg(ax, curves: list[RulerCurve]) -> None:
    """Every row's Avg., best first: a report's with its interval and colour, a published row hollow and grey."""
    shown = sorted((c for c in curves if c.avg is not None), key=lambda c: -c.avg)
    colours = {c.name: f"C{n % 10}" for n, c in enumerate(c for c in curves if not c.published)}
    for y, curve in enumerate(shown):
        if curve.published:
            ax.plot([curve.avg], [y], marker="D", fillstyle="none", color="#7f7f7f", linestyle="none")
            continue
        err = None if curve.avg_interval is None else [[curve.avg - curve.avg_interval[0]],
                                                       [curve.avg_interval[1] - curve.avg]]
        ax.errorbar([curve.avg], [y], xerr=err, fmt="o", color=colours[curve.name], capsize=3)
    ax.set_yticks(range(len(shown)), [c.name + (" [published]" if c.published else "") for c in shown], fontsize=7)
    ax.invert_yaxis()
    ax.set_xlim(0, 100)
    ax.set_xlabel("Avg. (%) over 4K … 128K")
    ax.grid(axis="x", alpha=0.3)
    ax.set_title(wrap_title("Avg. over RULER's six lengths, best first; hollow grey: RULER's published numbers "
                            "(another harness and tokenizer, no interval)", 5.0), fontsize=9)
