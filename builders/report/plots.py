"""Figures of a report, drawn with matplotlib's object API (no global pyplot state)."""

from __future__ import annotations

import io

from .aggregate import Report


def heatmap_png(report: Report) -> bytes:
    """A paper-Figure-3-style heatmap (accuracy % by language x length) as PNG bytes."""
    import matplotlib
    import numpy as np
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    languages, lengths, matrix, scope = report.heatmap_matrix()
    values = np.array([[np.nan if v is None else 100 * v for v in row] for row in matrix], dtype=float)
    fig = Figure(figsize=(1.1 * len(lengths) + 2.8, 0.32 * len(languages) + 1.6))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    cmap = matplotlib.colormaps["RdYlGn"].with_extremes(bad="#dddddd")  # grey: no examples in this cell
    image = ax.imshow(np.ma.masked_invalid(values), cmap=cmap, vmin=0, vmax=100, aspect="auto")
    ax.set_xticks(range(len(lengths)), lengths)
    ax.set_yticks(range(len(languages)), languages)
    ax.set_xlabel("context length")
    ax.set_title(f"Accuracy (%) on {scope}" + (" — strict" if report.strict else ""), fontsize=10)
    for i, row in enumerate(values):
        for j, v in enumerate(row):
            if not np.isnan(v):
                ax.text(j, i, f"{v:.0f}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, fraction=0.05)
    fig.tight_layout()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=120)
    return buf.getvalue()
