"""Accuracy by needle depth (depth.csv, depth.png) from hand-written predictions whose truth is known by construction:
binned by token depth (needles[].token_depth) by default, by sentence depth with ``--depth-unit sentences``, a
sweep's bins centred on its depths, and exports that predate token depths."""

from __future__ import annotations

import csv

import pytest
from PIL import Image
from report_fixtures import make_row, run_cli, score_folder, write_export

from builders.report.compare.load import load_report
from builders.report.render.plots import depth_figure
from builders.report.report_data import ReportSettings
from builders.report.views.depth import report_depth_cells
from builders.report.views.grouping import task_rank

GRID = [round(k * 100 / 39) for k in range(40)]  # the paper's 40 depths: round(linspace(0, 100, 40))
FAIL = "1234567"


def token_depth(depth: float) -> float:
    """Where a needle at ``depth`` % of the sentences sits in the tokens: the haystack's early sentences are the
    longer ones (as in the Spanish 8k haystack, docs/generation.md), so a token share runs behind."""
    return round(100 * (depth / 100) ** 1.25, 3)


def value(config: str, index: int, j: int = 0) -> str:
    return str(2_000_000 + 10_000 * (len(config) % 7) + 100 * index + j)


def in_bin(depth: float, b: int, bins: int = 10) -> bool:
    return min(int(depth * bins / 100), bins - 1) == b


def build(tmp_path, with_tokens: bool = True):
    configs = {}

    def needle(key, val, depth, actual=None, tokens=None):
        actual = depth if actual is None else actual
        return (key, val, depth, actual, token_depth(actual) if tokens is None else tokens) if with_tokens \
            else (key, val, depth, actual)

    for lang in ("en", "pl"):  # one needle per row, at grid depth k for index k
        name = f"{lang}_s_niah_8k"
        configs[name] = [make_row(name, k, "s_niah", lang, lang, 8000, [value(name, k)], [needle("dom", value(name, k), d)])
                         for k, d in enumerate(GRID)]
    name = "en_mq_niah_8k"  # two queried keys at 10 % and 70 % of the sentences (12 % and 64 % of the tokens)
    configs[name] = [make_row(name, 0, "mq_niah", "en", "en", 8000, [value(name, 0, 0), value(name, 0, 1)],
                              [needle("a", value(name, 0, 0), 10, tokens=12.0), needle("b", value(name, 0, 1), 70, tokens=64.0)])]
    name = "en_mk_niah_8k"  # the queried key at 30 %, distractor keys elsewhere
    configs[name] = [make_row(name, 0, "mk_niah", "en", "en", 8000, [value(name, 0, 1)],
                              [needle("a", value(name, 0, 0), 5), needle("b", value(name, 0, 1), 30, tokens=33.0),
                               needle("c", value(name, 0, 2), 50), needle("d", value(name, 0, 3), 90)])]
    name = "en_mv3_niah_8k"  # three values of one key; the second landed at 61 % of the sentences, 58 % of the tokens
    configs[name] = [make_row(name, 0, "mv3_niah", "en", "en", 8000, [value(name, 0, j) for j in range(3)],
                              [needle("a", value(name, 0, 0), 20, 22.5, 21.0), needle("a", value(name, 0, 1), 45, 61.0, 58.0),
                               needle("a", value(name, 0, 2), 80, 80.0, 83.0)])]
    name = "en_none_niah_8k"
    configs[name] = [make_row(name, 0, "none_niah", "en", "en", 8000, ["none"], [needle("x", value(name, 0), 50)])]
    export = write_export(tmp_path / ("export" if with_tokens else "old-export"), configs)
    preds = []
    for lang in ("en", "pl"):
        for row in configs[f"{lang}_s_niah_8k"]:
            lost = 40 <= token_depth(row["needles"][0]["depth"]) < 60  # the model loses needles at 40-60 % of the tokens
            preds.append({"id": row["id"], "prediction": FAIL if lost else row["answers"][0]})
    mq, mk, mv = configs["en_mq_niah_8k"][0], configs["en_mk_niah_8k"][0], configs["en_mv3_niah_8k"][0]
    preds += [{"id": mq["id"], "prediction": f"{mq['answers'][0]}"},  # only the first value comes back
              {"id": mk["id"], "prediction": mk["answers"][0]},
              {"id": mv["id"], "prediction": f"{mv['answers'][0]}, {mv['answers'][2]}"},  # the second value is lost
              {"id": configs["en_none_niah_8k"][0]["id"], "prediction": "none"}]
    return export, preds


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("depth")
    export, preds = build(tmp)
    return tmp, export, preds, score_folder(export, preds, tmp / "report")


def read_depth(folder):
    with (folder / "depth.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_a_dip_at_40_to_60_percent_of_the_tokens_shows_there_and_nowhere_else(scored):
    rows = [r for r in read_depth(scored[3]) if r["task"] == "s_niah"]
    assert [(r["depth_low"], r["depth_high"], r["depth_unit"]) for r in rows] == [
        (f"{10.0 * b}", f"{10.0 * (b + 1)}", "tokens") for b in range(10)]
    per_bin = [sum(1 for d in GRID if in_bin(token_depth(d), b)) for b in range(10)]  # twice: en and pl
    assert [int(r["counted"]) for r in rows] == [2 * n for n in per_bin]
    for r in rows:
        dip = r["depth_low"] in ("40.0", "50.0")
        assert float(r["accuracy"]) == (0.0 if dip else 1.0), r
        assert int(r["passed"]) == (0 if dip else int(r["counted"]))
        assert 0 <= float(r["ci_low"]) <= float(r["accuracy"]) <= float(r["ci_high"]) <= 1


def test_the_same_needles_in_sentence_units_place_the_dip_elsewhere(scored):
    tmp, export, preds, _ = scored
    rows = [r for r in read_depth(score_folder(export, preds, tmp / "sentences", "--depth-unit", "sentences"))
            if r["task"] == "s_niah"]
    assert {r["depth_unit"] for r in rows} == {"sentences"}
    for b, r in enumerate(rows):  # the sentence depths of the needles lost: 48.7 % to 66.7 %
        lost = [d for d in GRID if in_bin(d, b) and 40 <= token_depth(d) < 60]
        assert (int(r["counted"]), int(r["passed"])) == (2 * sum(in_bin(d, b) for d in GRID),
                                                         2 * sum(in_bin(d, b) for d in GRID) - 2 * len(lost)), r
    assert int(rows[6]["passed"]) < int(rows[6]["counted"]) and int(rows[5]["passed"]) == 0


def test_queried_needles_only_each_value_separately_at_its_token_depth(scored):
    rows = read_depth(scored[3])
    found = {(r["task"], r["depth_low"]): (int(r["passed"]), int(r["counted"])) for r in rows if int(r["counted"])}
    assert {k: v for k, v in found.items() if k[0] == "mq_niah"} == {("mq_niah", "10.0"): (1, 1), ("mq_niah", "60.0"): (0, 1)}
    assert {k: v for k, v in found.items() if k[0] == "mk_niah"} == {("mk_niah", "30.0"): (1, 1)}  # not the distractors
    assert {k: v for k, v in found.items() if k[0] == "mv3_niah"} == {
        ("mv3_niah", "20.0"): (1, 1), ("mv3_niah", "50.0"): (0, 1), ("mv3_niah", "80.0"): (1, 1)}
    assert not [r for r in rows if r["task"] == "none_niah"]  # no queried needle


def test_the_depth_figure_carries_each_cells_count_unit_and_colorbar(scored):
    folder = scored[3]
    with Image.open(folder / "depth.png") as image:
        assert image.size[0] > 500 and image.size[1] > 300
    bins, cells = report_depth_cells(load_report(folder).report)
    fig = depth_figure(cells, bins, "title")
    panels = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
    s_niah = panels[0]
    assert s_niah.get_title() == "s_niah (80 needles)" and "% of the haystack's tokens" in s_niah.get_ylabel()
    written = {(r["task"], float(r["depth_low"])): r for r in read_depth(folder)}
    labels = [t.get_text() for t in s_niah.texts if t.get_text() != "no needle"]
    expected = [f"{100 * float(r['accuracy']):.0f}" + ("*" if float(r["ci_high"]) - float(r["ci_low"]) > 0.2 else "")
                + f"\nn={r['counted']}" for (task, _), r in sorted(written.items()) if task == "s_niah" and int(r["counted"])]
    assert labels == expected  # every cell says how many needles it rests on; wide intervals starred
    assert any(label.startswith("0*\nn=") for label in labels)  # a 0 from few needles says so
    colorbar = next(ax for ax in fig.axes if ax.get_label() == "<colorbar>")
    assert colorbar.get_ylabel() == "accuracy (%) on the queried needles"
    assert "n = queried needles per cell" in fig.get_suptitle().replace("\n", " ").replace("\xa0", " ")


def test_other_bins(scored):
    tmp, export, preds, _ = scored
    five = score_folder(export, preds, tmp / "five", "--depth-bins", "5")
    rows = [r for r in read_depth(five) if r["task"] == "s_niah"]
    assert [(float(r["depth_low"]), r["passed"] == r["counted"]) for r in rows] == [
        (0.0, True), (20.0, True), (40.0, False), (60.0, True), (80.0, True)]
    assert int(rows[2]["passed"]) == 0


def test_an_export_without_token_depths_falls_back_to_sentences_and_says_so(tmp_path):
    export, preds = build(tmp_path, with_tokens=False)
    preds_file = tmp_path / "old.jsonl"
    folder = score_folder(export, preds, tmp_path / "old")
    assert {r["depth_unit"] for r in read_depth(folder)} == {"sentences"}
    result = run_cli(["score", preds_file, "--dataset", export, "--out", tmp_path / "again"])
    assert "depth: depth.csv and depth.png are in sentence units: the dataset records no token depth" in result.output
    refused = run_cli(["score", preds_file, "--dataset", export, "--out", tmp_path / "refused", "--depth-unit", "tokens"])
    assert refused.exit_code == 2 and not (tmp_path / "refused").exists()
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("error: config ")
    assert "records no token depth" in refused.stderr and "pass --depth-unit sentences" in refused.stderr
    compared = run_cli(["compare", folder, "--out", tmp_path / "cmp", "--depth-unit", "tokens"])
    assert compared.exit_code == 2 and compared.stderr.startswith(f"error: {folder}: config ")


def test_a_sweep_has_a_bin_centred_on_each_of_its_depths(tmp_path):
    # _at{D} configs whose needles sit up to 4.5 points off D in tokens (a sentence's width); the model loses D = 50
    configs, preds = {}, []
    for lang in ("en", "pl"):
        for depth in range(0, 101, 10):
            name = f"{lang}_s_niah_8k_at{depth}"
            off = [-4.5, 4.4, -2.0, 3.0][depth // 10 % 4] if 0 < depth < 100 else 0.0
            rows = [make_row(name, i, "s_niah", lang, lang, 8000, [value(name, i)],
                             [("k", value(name, i), depth, depth + off / 2, depth + off)]) for i in range(3)]
            configs[name] = rows
            preds += [{"id": r["id"], "prediction": FAIL if depth == 50 else r["answers"][0]} for r in rows]
    export = write_export(tmp_path / "export", configs)
    preds_file = tmp_path / "sweep.jsonl"
    folder = score_folder(export, preds, tmp_path / "sweep")  # the default for a sweep: one bin per step of 10
    rows = read_depth(folder)
    assert [(float(r["depth_low"]), float(r["depth_high"])) for r in rows] == [(0, 5)] + [
        (d - 5, d + 5) for d in range(10, 100, 10)] + [(95, 100)]
    assert [int(r["counted"]) for r in rows] == [6] * 11  # every swept depth in its own bin
    assert [int(r["passed"]) for r in rows] == [6] * 5 + [0] + [6] * 5
    bins, cells = report_depth_cells(load_report(folder).report)
    panel = depth_figure(cells, bins, "sweep").axes[0]
    assert [t.get_text() for t in panel.get_yticklabels()] == [str(d) for d in range(0, 101, 10)]
    assert "bins centred on 0, 10, …, 100 (±5)" in panel.get_ylabel()
    five = report_depth_cells(load_report(folder, ReportSettings(depth_bins=5)).report)[1]
    # five bins centred on 0, 25, …, 100 (±12.5): the needles at 14.4, 18, 33, 35.5 % share the "25" bin
    assert [(c.label, c.counted) for c in five] == [("0", 6), ("25", 24), ("50", 12), ("75", 12), ("100", 12)]
    # the console prints the sweep as a depth × length table, languages pooled
    printed = run_cli(["score", preds_file, "--dataset", export, "--out", tmp_path / "again"]).output
    table = printed[printed.index("fixed-depth sweep"):].split("\n\n")[0].splitlines()
    assert table[1] == "s_niah, languages pooled: en, pl" and table[2].split() == ["depth", "%", "8k"]
    assert [line.split()[:2] for line in table[3:]] == [[str(d), "0.0" if d == 50 else "100.0"] for d in range(0, 101, 10)]


def test_a_sweep_with_crosss_depths_draws_a_row_per_swept_depth_not_the_empty_steps_between(tmp_path):
    # 0, 10, ..., 100 in en and CROSS's 0, 25, 50, 75, 100 in ko-en: one bin per step of 5 (21 bins); the figure
    # draws only the 13 depths some config sweeps, the CSV keeps every bin of the view
    configs, preds = {}, []
    for lang, depths in (("en", range(0, 101, 10)), ("ko-en", range(0, 101, 25))):
        ctx, _, inst = lang.partition("-")
        for depth in depths:
            name = f"{lang}_s_niah_8k_at{depth}"
            rows = [make_row(name, i, "s_niah", ctx, inst or ctx, 8000, [value(name, i)],
                             [("k", value(name, i), depth, depth, float(depth))]) for i in range(2)]
            configs[name] = rows
            preds += [{"id": r["id"], "prediction": r["answers"][0]} for r in rows]
    folder = score_folder(write_export(tmp_path / "export", configs), preds, tmp_path / "sweep")
    assert len(read_depth(folder)) == 21
    bins, cells = report_depth_cells(load_report(folder).report)
    labels = [t.get_text() for t in depth_figure(cells, bins, "sweep").axes[0].get_yticklabels()]
    assert labels == ["0", "10", "20", "25", "30", "40", "50", "60", "70", "75", "80", "90", "100"]


def test_task_order_places_multi_value_variants_after_mv_niah():
    tasks = ["cwe_easy", "mq_niah", "mv16_niah", "mv4e_niah", "mv_niah", "s_niah", "mv4_niah", "brand_new"]
    assert sorted(tasks, key=task_rank) == ["s_niah", "mv_niah", "mv4_niah", "mv4e_niah", "mv16_niah", "mq_niah",
                                            "cwe_easy", "brand_new"]
