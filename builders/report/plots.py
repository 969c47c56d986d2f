"""Figures of a report, drawn with matplotlib's object API (no global pyplot state)."""

from __future__ import annotations

import io

from .aggregate import Report

# One colour per line or bar series (matplotlib's tab10 order), markers for print in grey.
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")


def _figure(width: float, height: float):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _png(fig) -> bytes:
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    return buf.getvalue()


def language_heatmap_png(languages: list[str], lengths: list[str], matrix: list[list[float | None]], title: str) -> bytes:
    """Accuracy (%) by language (rows) × length (columns) as a heatmap PNG; grey cells have no examples."""
    import matplotlib
    import numpy as np

    values = np.array([[np.nan if v is None else 100 * v for v in row] for row in matrix], dtype=float)
    fig = _figure(1.1 * len(lengths) + 2.8, 0.32 * len(languages) + 1.6)
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#dddddd")  # grey: no examples in this cell
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(lengths)), lengths)
    ax.set_yticks(range(len(languages)), languages)
    ax.set_xlabel("context length")
    ax.set_title(title, fontsize=10)
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            if not np.isnan(v):
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, fraction=0.05)
    return _png(fig)


def heatmap_png(report: Report) -> bytes:
    """A paper-Figure-3-style heatmap (accuracy % by language x length) as PNG bytes."""
    languages, lengths, matrix, scope = report.heatmap_matrix()
    title = f"Accuracy (%) on {scope}" + (" — strict" if report.strict else "")
    return language_heatmap_png(languages, lengths, matrix, title)


def group_curves_png(lengths: list[str], curves: dict[str, list[float | None]], model: str) -> bytes:
    """Accuracy (%) versus length per language group: resource (left panel) and script (right panel)."""
    fig = _figure(10, 4)
    names = list(curves)
    panels = [("Wikipedia size", names[:2]), ("script", names[2:])]
    for k, (what, members) in enumerate(panels):
        ax = fig.add_subplot(1, 2, k + 1)
        for n, name in enumerate(members):
            points = [(i, 100 * v) for i, v in enumerate(curves[name]) if v is not None]
            if points:
                xs, ys = zip(*points)
                ax.plot(xs, ys, marker=MARKERS[n % len(MARKERS)], label=name)
        ax.set_xticks(range(len(lengths)), lengths)
        ax.set_ylim(0, 100)
        ax.set_xlabel("context length")
        ax.set_ylabel("accuracy (%), all tasks")
        ax.set_title(f"{model}: by {what}", fontsize=10)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8, loc="lower left")
    return _png(fig)


def none_errors_png(languages: list[str], counts: dict[str, list[int]], scope: str) -> bytes:
    """Bars: how often each model answered "none" although the needle was there, per language (paper Figs. 18–19)."""
    import numpy as np

    fig = _figure(max(6.0, 0.45 * len(languages) * max(1, len(counts)) ** 0.5 + 2), 4)
    ax = fig.add_subplot()
    width = 0.8 / max(1, len(counts))
    x = np.arange(len(languages))
    for n, (model, values) in enumerate(counts.items()):
        ax.bar(x + (n - (len(counts) - 1) / 2) * width, values, width, label=model)
    ax.set_xticks(x, languages)
    ax.set_xlabel("language")
    ax.set_ylabel('"none" answers with the needle present')
    ax.set_title(f'"None" errors by language ({scope})', fontsize=10)
    ax.yaxis.get_major_locator().set_params(integer=True)
    ax.grid(axis="y", alpha=0.3)
    if counts:
        ax.legend(fontsize=8)
    return _png(fig)
