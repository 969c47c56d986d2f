"""The report's figures are readable: titles not clipped, labels legible on dark cells, empty cells say why,
an all-zero bar chart keeps a sensible axis (issue 21, item 7). Checked on the figures' own geometry."""

from __future__ import annotations

import pytest

from builders.report.render.plots import language_heatmap_figure, none_errors_figure
from builders.report.stats.cells import Cell
from builders.report.stats.closed_form import wilson
from builders.report.views.heatmap import HeatmapGrid

LONG = "google/gemma3-270m-instruct-q4_k_m (llama-server report folder from yesterday's run)"


def cell(passed: int, counted: int, lines: int | None = None, truncated: int = 0) -> Cell:
    lines = counted if lines is None else lines
    return Cell(passed, counted, lines, lines, truncated, 0, 1, wilson(passed, counted))


@pytest.fixture
def figure():
    grid = HeatmapGrid(["pl", "en", "sw"], ["8k", "128k"],
                       [[cell(50, 50), cell(25, 50)], [cell(4, 4), cell(0, 0, lines=50, truncated=50)],
                        [cell(45, 50), None]], "NIAH tasks")
    fig = language_heatmap_figure(grid, f"{LONG}: accuracy (%) on NIAH tasks")
    fig.tight_layout()
    fig.canvas.draw()
    return fig


def labels(fig) -> dict[str, str]:
    return {t.get_text(): t.get_color() for t in fig.axes[0].texts}


def test_a_long_title_is_wrapped_inside_the_figure(figure):
    title = figure.axes[0].title
    box = title.get_window_extent(figure.canvas.get_renderer())
    assert LONG in title.get_text().replace("\n", " ")
    assert box.x0 >= 0 and box.x1 <= figure.bbox.width and box.y1 <= figure.bbox.height


def test_labels_are_white_on_dark_cells_and_black_on_light_ones(figure):
    colours = labels(figure)
    assert colours["100"] == "white"  # 100 % is the darkest green of RdYlGn
    assert colours["50*"] == "black"  # 50 % is pale yellow (and its 36.6-63.4 interval is wider than 20 points)


def test_the_colorbar_says_what_it_measures(figure):
    colorbar = next(ax for ax in figure.axes if ax.get_label() == "<colorbar>")
    assert colorbar.get_ylabel() == "accuracy (%)"


def test_empty_cells_say_why_and_are_hatched(figure):
    texts = labels(figure)
    assert "50 cut" in texts and "no rows" in texts
    hatched = [p for p in figure.axes[0].patches if p.get_hatch()]
    assert len(hatched) == 2
    assert "hatched: nothing counted" in figure.axes[0].title.get_text().replace("\n", " ")
    assert "100*" in texts  # 4 of 4: Wilson 51-100 %, wider than 20 points
    assert "90" in texts  # 45 of 50: 78.6-95.7 %, narrower


def test_none_errors_with_nothing_to_show_keeps_a_positive_axis():
    fig = none_errors_figure(["de", "pl"], {"model-a": [0, 0], "model-b": [0, 0]}, "S-NIAH at 64k")
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert low == 0 and high >= 1
    assert any("no \"none\" answer" in t.get_text() for t in ax.texts)
    busy = none_errors_figure(["de", "pl"], {"model-a": [3, 7]}, "S-NIAH at 64k").axes[0]
    assert busy.get_ylim()[1] >= 7 and not busy.texts


def test_the_none_errors_figure_stays_readable_with_every_language_and_many_models():
    languages = [f"l{i}" for i in range(26)]
    figure = none_errors_figure(languages, {f"model{m}": [m] * 26 for m in range(5)}, "S-NIAH at 64k, 128k")
    assert figure.get_figwidth() == 16.0  # was 28 inches: every label a speck once shown
    assert none_errors_figure(["pl"], {"a": [0]}, "S-NIAH at 8k").get_figwidth() == 6.0
