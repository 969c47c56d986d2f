"""Accuracy by needle depth (depth.csv, depth.png) from hand-written predictions whose truth is known by construction."""

from __future__ import annotations

import csv

import pytest
from PIL import Image
from report_fixtures import make_row, score_folder, write_export

from builders.report.views.grouping import task_rank

GRID = [round(k * 100 / 39) for k in range(40)]  # the paper's 40 depths: round(linspace(0, 100, 40))
FAIL = "1234567"


def value(config: str, index: int, j: int = 0) -> str:
    return str(2_000_000 + 10_000 * (len(config) % 7) + 100 * index + j)


def build(tmp_path):
    configs = {}
    for lang in ("en", "pl"):  # one needle per row, at grid depth k for index k
        name = f"{lang}_s_niah_8k"
        configs[name] = [make_row(name, k, "s_niah", lang, lang, 8000, [value(name, k)], [("dom", value(name, k), d)])
                         for k, d in enumerate(GRID)]
    name = "en_mq_niah_8k"  # two queried keys at 10 % and 70 %
    configs[name] = [make_row(name, 0, "mq_niah", "en", "en", 8000, [value(name, 0, 0), value(name, 0, 1)],
                              [("a", value(name, 0, 0), 10), ("b", value(name, 0, 1), 70)])]
    name = "en_mk_niah_8k"  # the queried key at 30 %, distractor keys elsewhere
    configs[name] = [make_row(name, 0, "mk_niah", "en", "en", 8000, [value(name, 0, 1)],
                              [("a", value(name, 0, 0), 5), ("b", value(name, 0, 1), 30), ("c", value(name, 0, 2), 50),
                               ("d", value(name, 0, 3), 90)])]
    name = "en_mv3_niah_8k"  # three values of one key; the second really landed at 61 % (nominal 45 %)
    configs[name] = [make_row(name, 0, "mv3_niah", "en", "en", 8000, [value(name, 0, j) for j in range(3)],
                              [("a", value(name, 0, 0), 20, 22.5), ("a", value(name, 0, 1), 45, 61.0),
                               ("a", value(name, 0, 2), 80, 80.0)])]
    name = "en_none_niah_8k"
    configs[name] = [make_row(name, 0, "none_niah", "en", "en", 8000, ["none"], [("x", value(name, 0), 50)])]
    export = write_export(tmp_path / "export", configs)
    preds = []
    for lang in ("en", "pl"):
        for row in configs[f"{lang}_s_niah_8k"]:
            lost = 40 <= row["needles"][0]["depth"] < 60  # the model loses needles at 40-60 % only
            preds.append({"id": row["id"], "prediction": FAIL if lost else row["answers"][0]})
    mq, mk, mv = configs["en_mq_niah_8k"][0], configs["en_mk_niah_8k"][0], configs["en_mv3_niah_8k"][0]
    preds += [{"id": mq["id"], "prediction": f"{mq['answers'][0]}"},  # only the 10 % value comes back
              {"id": mk["id"], "prediction": mk["answers"][0]},
              {"id": mv["id"], "prediction": f"{mv['answers'][0]}, {mv['answers'][2]}"},  # the 61 % value is lost
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


def test_a_dip_at_40_to_60_percent_shows_there_and_nowhere_else(scored):
    rows = [r for r in read_depth(scored[3]) if r["task"] == "s_niah"]
    assert [(r["depth_low"], r["depth_high"]) for r in rows] == [(f"{10.0 * b}", f"{10.0 * (b + 1)}") for b in range(10)]
    # grid points per bin of 10: 4 4 4 5 4 4 4 4 3 4 ... (unequal: 40 points over 10 bins), twice (en and pl)
    per_bin = [sum(1 for d in GRID if 10 * b <= d < 10 * (b + 1) or (b == 9 and d == 100)) for b in range(10)]
    assert [int(r["counted"]) for r in rows] == [2 * n for n in per_bin]
    for r in rows:
        dip = r["depth_low"] in ("40.0", "50.0")
        assert float(r["accuracy"]) == (0.0 if dip else 1.0), r
        assert int(r["passed"]) == (0 if dip else int(r["counted"]))
        assert 0 <= float(r["ci_low"]) <= float(r["accuracy"]) <= float(r["ci_high"]) <= 1


def test_queried_needles_only_each_value_separately_at_its_actual_depth(scored):
    rows = read_depth(scored[3])
    found = {(r["task"], r["depth_low"]): (int(r["passed"]), int(r["counted"])) for r in rows if int(r["counted"])}
    assert {k: v for k, v in found.items() if k[0] == "mq_niah"} == {("mq_niah", "10.0"): (1, 1), ("mq_niah", "70.0"): (0, 1)}
    assert {k: v for k, v in found.items() if k[0] == "mk_niah"} == {("mk_niah", "30.0"): (1, 1)}  # not the distractors
    assert {k: v for k, v in found.items() if k[0] == "mv3_niah"} == {
        ("mv3_niah", "20.0"): (1, 1), ("mv3_niah", "60.0"): (0, 1), ("mv3_niah", "80.0"): (1, 1)}
    assert not [r for r in rows if r["task"] == "none_niah"]  # no queried needle


def test_depth_png_and_other_bins(scored):
    tmp, export, preds, folder = scored
    with Image.open(folder / "depth.png") as image:
        assert image.size[0] > 500 and image.size[1] > 300
    five = score_folder(export, preds, tmp / "five", "--depth-bins", "5")
    rows = [r for r in read_depth(five) if r["task"] == "s_niah"]
    assert [(float(r["depth_low"]), float(r["accuracy"])) for r in rows] == [
        (0.0, 1.0), (20.0, 1.0), (40.0, 0.0), (60.0, 1.0), (80.0, 1.0)]


def test_task_order_places_multi_value_variants_after_mv_niah():
    tasks = ["cwe_easy", "mq_niah", "mv16_niah", "mv4e_niah", "mv_niah", "s_niah", "mv4_niah", "brand_new"]
    assert sorted(tasks, key=task_rank) == ["s_niah", "mv_niah", "mv4_niah", "mv4e_niah", "mv16_niah", "mq_niah",
                                            "cwe_easy", "brand_new"]
