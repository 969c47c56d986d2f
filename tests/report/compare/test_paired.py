"""Paired comparisons in ``oneruler compare`` (paired.csv, difference heatmaps, the printed summary), from two
models whose predictions are identical except in one language, so the truth is known by construction."""

from __future__ import annotations

import csv

import pytest
from PIL import Image
from report_fixtures import make_row, run_cli, score_folder, write_export

LANGS = ("de", "en", "pl", "sw")
LENGTHS = (8, 32)


def rows() -> dict[str, list[dict]]:
    configs = {}
    for lang in LANGS:
        for n in LENGTHS:
            name = f"{lang}_s_niah_{n}k"
            configs[name] = [make_row(name, i, "s_niah", lang, lang, n * 1000, [str(4_000_000 + 997 * i + n)],
                                      [("k", str(4_000_000 + 997 * i + n), 2 * i)]) for i in range(50)]
    return configs


def predictions(configs, model: str) -> list[dict]:
    out = []
    for name, config_rows in configs.items():
        for r in config_rows:
            ok = r["index"] % 10 != 0  # both models: 90 %
            if model == "b" and name.startswith("sw_") and r["index"] % 10 < 7:
                ok = False  # model B loses 30 more rows per Swahili config (30 %)
            out.append({"id": r["id"], "prediction": r["answers"][0] if ok else "1234567", "finish_reason": "stop"})
    return out


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("paired")
    configs = rows()
    export = write_export(tmp / "export", configs)
    other = write_export(tmp / "other-export", configs, manifest="v2")  # the same rows, another dataset version
    a = score_folder(export, predictions(configs, "a"), tmp / "a", model="model-a")
    b = score_folder(export, predictions(configs, "b"), tmp / "b", model="model-b")
    b_other = score_folder(other, predictions(configs, "b"), tmp / "b-other", model="model-b")
    return tmp, a, b, b_other


def compare(tmp, name, *folders):
    result = run_cli(["compare", *folders, "--out", tmp / name])
    assert result.exit_code == 0, result.output
    return result.output, tmp / name


def read_paired(folder) -> list[dict]:
    with (folder / "paired.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def test_a_difference_in_one_language_is_significant_there_and_nowhere_else(folders):
    tmp, a, b, _ = folders
    output, out = compare(tmp, "cmp", a, b)
    paired = read_paired(out)
    significant = {(r["scope"], r["cell"]) for r in paired if r["significant"] == "True"}
    assert {c for s, c in significant if s == "config"} == {"sw_s_niah_8k", "sw_s_niah_32k"}
    assert {c for s, c in significant if s == "language"} == {"sw"}
    assert {c for s, c in significant if s == "language × length"} == {"sw 8k", "sw 32k"}
    # the tables that pool Swahili with the rest see its difference too
    assert {c for s, c in significant if s in ("task × length", "overall")} == {"s_niah 8k", "s_niah 32k", "all"}
    sw8 = next(r for r in paired if r["cell"] == "sw_s_niah_8k")
    assert (sw8["model_a"], sw8["model_b"], sw8["n"], sw8["a_only"], sw8["b_only"]) == ("model-a", "model-b", "50", "30", "0")
    assert float(sw8["diff"]) == pytest.approx(0.6) and float(sw8["acc_a"]) == 0.9 and float(sw8["acc_b"]) == 0.3
    assert float(sw8["p_value"]) == pytest.approx(2 * 0.5 ** 30)  # exact McNemar: 30 discordant pairs, all for A
    assert float(sw8["ci_low"]) > 0.3 and float(sw8["ci_high"]) <= 0.8
    de = next(r for r in paired if r["cell"] == "de")
    assert (de["diff"], de["ci_low"], de["ci_high"], de["p_value"], de["q_value"]) == ("0.0", "0.0", "0.0", "1.0", "1.0")
    assert "model-a vs model-b: 400 rows counted in both" in output
    assert "  language: 1 of 4 cells differ (q < 0.05); 1 favour model-a (sw)" in output
    assert "  config: 2 of 8 cells differ (q < 0.05); 2 favour model-a (sw_s_niah_8k, sw_s_niah_32k)" in output
    with Image.open(out / "diff-model-a-vs-model-b.png") as image:
        assert image.size[0] > 300 and image.size[1] > 200


def test_the_bootstrap_is_byte_identical_across_runs(folders):
    tmp, a, b, _ = folders
    _, first = compare(tmp, "first", a, b)
    _, second = compare(tmp, "second", a, b)
    for name in ("paired.csv", "by_task_length.csv", "by_language.csv", "effective_length.csv", "depth.csv"):
        assert (first / name).read_bytes() == (second / name).read_bytes(), name
    rescored = tmp / "a-again"
    result = run_cli(["score", tmp / "a.jsonl", "--dataset", tmp / "export", "--out", rescored])
    assert result.exit_code == 0, result.output
    for name in ("scores.json", "scores.csv", "effective_length.csv", "depth.csv"):
        assert (rescored / name).read_bytes() == (a / name).read_bytes(), name


def test_reports_of_different_datasets_are_not_paired(folders):
    tmp, a, _, b_other = folders
    output, out = compare(tmp, "unpaired", a, b_other)
    assert "model-a vs model-b: no paired comparison (they scored different datasets (manifest sha256" in output
    assert "compare their intervals instead" in output
    assert not (out / "paired.csv").exists() and not list(out.glob("diff-*.png"))
    assert (out / "by_language.csv").is_file()  # the unpaired tables with each model's own intervals


def test_a_difference_in_one_example_index_is_not_significant_overall(tmp_path):
    # 16 configs of 50 rows; model B fails example index 1 in every config, where model A passes it: 16
    # discordant rows, all for A (an exact McNemar test over the rows: p = 2 x 0.5^16), but one cluster
    configs = {}
    for lang in LANGS:
        for n in (8, 32, 64, 128):
            name = f"{lang}_s_niah_{n}k"
            configs[name] = [make_row(name, i, "s_niah", lang, lang, n * 1000, [str(5_000_000 + 991 * i + n)],
                                      [("k", str(5_000_000 + 991 * i + n), 2 * i)]) for i in range(50)]
    export = write_export(tmp_path / "export", configs)

    def answers(model: str) -> list[dict]:
        return [{"id": r["id"], "finish_reason": "stop",
                 "prediction": "1234567" if r["index"] % 10 == 0 or (model == "b" and r["index"] == 1) else r["answers"][0]}
                for rows in configs.values() for r in rows]

    a = score_folder(export, answers("a"), tmp_path / "a", model="model-a")
    b = score_folder(export, answers("b"), tmp_path / "b", model="model-b")
    output, out = compare(tmp_path, "cmp", a, b)
    paired = read_paired(out)
    overall = next(r for r in paired if r["scope"] == "overall")
    assert (overall["n"], overall["indices"], overall["a_only"], overall["b_only"]) == ("800", "50", "16", "0")
    assert (overall["test"], overall["p_value"], overall["significant"]) == ("cluster sign-flip", "1.0", "False")
    assert {r["test"] for r in paired if r["scope"] == "config"} == {"exact McNemar"}
    assert {r["test"] for r in paired if r["scope"] != "config"} == {"cluster sign-flip"}
    assert not [r for r in paired if r["significant"] == "True"]
    # the headline leads, clustered: the paired cluster-bootstrap interval and the sign-flip p, then which test is which
    lines = output.splitlines()
    assert lines[1].startswith("model-a vs model-b: 90.0 vs 88.0, difference +2.0 points, 95 % paired cluster-bootstrap "
                               "interval [") and lines[1].endswith("sign-flip p = 1 over 50 example indices (not significant)")
    assert lines[2].startswith("tests: a config's p is McNemar's exact test") and "rows sharing an index are not independent" in lines[2]
    markdown = (out / "compare.md").read_text(encoding="utf-8")
    assert markdown.index(lines[1]) < markdown.index(lines[2]) < markdown.index("## Accuracy")
