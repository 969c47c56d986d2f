"""The merged leaderboard's parts that need no Hub: published notes read back, the order, the files."""

from __future__ import annotations

import csv
import io

from builders.publish.leaderboard import Board, Score, Standing, gather, score_of
from builders.publish.leaderboard_files import cell_text, csv_file, markdown, table_text
from builders.report.hub_results.notes import interval_note
from builders.report.hub_results.values import LeaderboardValue
from builders.report.stats.cells import Cell
from builders.report.stats.closed_form import Interval
from builders.spec.leaderboards import LEADERBOARDS, ServedLeaderboard


def test_a_published_interval_is_read_back_from_the_notes_score_wrote():
    cell = Cell(passed=154, counted=182, lines=182, rows=182, truncated=0, no_response=0, configs=182,
                interval=Interval(0.8013, 0.89))
    value = LeaderboardValue(ServedLeaderboard(LEADERBOARDS[1], None), 182, cell)
    assert score_of(value.value, "x; " + interval_note(value) + "; y") == Score(84.62, 80.13, 89.0)
    assert score_of(12.5, "no-tools") == Score(12.5) and score_of(3, None) == Score(3.0)


def board() -> Board:
    standings = [Standing("b", "local r2", {"oneruler_8k": Score(50.0)}),
                 Standing("a", "hub", {"oneruler_8k": Score(70.0, 65.0, 75.0), "oneruler": Score(60.0)}),
                 Standing("c", "hub, pull request #3", {"oneruler": Score(80.0)})]
    standings.sort(key=lambda s: (-(s.scores.get("oneruler", Score(-1)).value), s.model))
    return Board(["oneruler", "oneruler_8k"], standings, ["Hub part skipped: no --dataset given; local reports only"])


def test_the_table_csv_and_markdown_show_every_value_with_its_interval():
    text = table_text(board()).splitlines()
    assert text[0].split() == ["model", "origin", "oneruler", "oneruler_8k"]
    assert "70.00 [65.00, 75.00]" in text[2] and text[3].split()[-1] == "50.00" and "—" in text[3]
    rows = list(csv.DictReader(io.StringIO(csv_file(board()).decode("utf-8"))))
    assert [(r["model"], r["oneruler_value"], r["oneruler_8k_ci_low"]) for r in rows] == [
        ("c", "80.0", ""), ("a", "60.0", "65.0"), ("b", "", "")]
    md = markdown(board())
    assert "| a | hub | 60.00 | 70.00 [65.00, 75.00] |" in md and "- Hub part skipped" in md
    assert cell_text(None) == "—"


def test_gather_without_a_dataset_skips_the_hub_and_says_so():
    merged = gather(None, [])
    assert merged.standings == [] and merged.tasks == []
    assert merged.notes == ["Hub part skipped: no --dataset given; local reports only"]


def test_with_nothing_to_plot_no_figure_is_drawn_and_an_old_one_is_removed(tmp_path):
    from builders.publish.leaderboard_files import figure_png, write_board

    nothing = Board([], [Standing("r1", "local r1", {})], [])  # a local report that covers no leaderboard
    assert figure_png(nothing) is None and figure_png(Board(["oneruler"], [Standing("m", "hub", {})], [])) is None
    (tmp_path / "leaderboard.png").write_bytes(b"an earlier run's figure")
    written = write_board(nothing, tmp_path)
    assert sorted(p.name for p in written) == ["leaderboard.csv", "leaderboard.md"]
    assert not (tmp_path / "leaderboard.png").exists()


def test_a_long_model_name_fits_the_figure_without_a_layout_warning():
    import warnings

    from PIL import Image

    from builders.publish.leaderboard_files import LABEL_CHARS, figure_label, figure_png

    long = "organisation-with-a-very-long-name/Some-Model-Name-Instruct-2507-FP8-with-more-words"
    one = Board(["oneruler"], [Standing(long, "local r1", {"oneruler": Score(50.0)})], [])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # matplotlib's "Tight layout not applied" was printed with its file path
        png = figure_png(one)
    assert len(figure_label(one.standings[0])) == LABEL_CHARS and "…" in figure_label(one.standings[0])
    short = figure_png(Board(["oneruler"], [Standing("m", "hub", {"oneruler": Score(50.0)})], []))
    import io
    assert Image.open(io.BytesIO(png)).width > Image.open(io.BytesIO(short)).width  # as wide as its labels need


def test_only_leaderboards_with_a_value_get_a_panel():
    import io

    from PIL import Image

    from builders.publish.leaderboard_files import figure_png

    one_panel = Board(["oneruler", "oneruler_8k"], [Standing("m", "hub", {"oneruler": Score(50.0)})], [])
    two_panels = Board(["oneruler", "oneruler_8k"], [Standing("m", "hub", {"oneruler": Score(50.0),
                                                                           "oneruler_8k": Score(40.0)})], [])
    widths = [Image.open(io.BytesIO(figure_png(b))).width for b in (one_panel, two_panels)]
    assert widths[1] - widths[0] == round(2.6 * 110)  # one panel of 2.6 inches at 110 dpi more


def test_a_published_value_is_checked_before_it_is_shown():  # issue 36, case 4
    from builders.publish.leaderboard import checked_score

    notes = "95 % CI 80.00–90.00 (cluster bootstrap over example indices)"
    assert checked_score(85.0, notes) == (Score(85.0, 80.0, 90.0), None)
    for value, why in ((250, "value 250 is not a percentage within 0–100"), (-5, "value -5 is not a percentage"),
                       (float("nan"), "value nan is not"), (1e308, "value 1e+308 is not"), ("a word", "value 'a word' is not a number"),
                       (True, "value True is not a number")):
        score, said = checked_score(value, notes)
        assert score is None and said.startswith(why), (value, said)
    assert checked_score(95.0, notes) == (Score(95.0), "its interval 80–90 does not hold its value 95: shown without it")
    assert checked_score(60.0, "95 % CI 90.00–10.00 (x)")[0] == Score(60.0)  # reversed: dropped


def test_a_model_published_several_times_is_shown_once():  # issue 36, case 5
    from builders.publish.hub import PublishedResult
    from builders.publish.leaderboard import one_per_model

    found = [PublishedResult("a/m", ".eval_results/x.yaml", 1, False), PublishedResult("a/m", ".eval_results/x.yaml", 3, False),
             PublishedResult("b/m", ".eval_results/x.yaml", 2, False), PublishedResult("b/m", ".eval_results/x.yaml", None, False),
             PublishedResult("c/m", ".eval_results/x.yaml", 4, False), PublishedResult("c/m", ".eval_results/x.yaml", 4, False)]
    kept, notes = one_per_model(found)
    assert [(r.model, r.pull_request) for r in kept] == [("a/m", 3), ("b/m", None), ("c/m", 4)]
    assert notes == ["a/m: shown once, from pull request #3; also published in #1 (left out)",
                     "b/m: shown once, from main; also published in #2 (left out)"]
