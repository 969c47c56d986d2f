"""``oneruler compare``: two models' real score reports side by side, groups and "none" errors as worked out by hand."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image
from report_fixtures import make_row, write_export

from builders.cli import cli
from builders.report.compare.load import load_report
from builders.report.compare.tables import group_curves, none_errors
from builders.scoring import none_words

LANGS = ("en", "ru", "hi", "sw")  # high Latin, high Cyrillic, low Devanagari, low Latin
# (language, length) -> answers of model A to the 4 S-NIAH rows: "ok", "none" or "bad" (a wrong number)
MODEL_A = {("en", 64): "ok ok ok ok", ("en", 128): "ok ok ok none", ("ru", 64): "ok ok ok ok",
           ("ru", 128): "ok ok none none", ("hi", 64): "ok ok none none", ("hi", 128): "none none none none",
           ("sw", 64): "ok ok ok bad", ("sw", 128): "ok none none none"}
MODEL_B = {key: "ok ok ok ok" for key in MODEL_A} | {("hi", 128): "ok ok none none"}
CWE_WORDS = [f"słowo{i}" for i in range(10)]


def _row(config: str, i: int, task: str, lang: str, length: int) -> dict:
    value = str(2_000_000 + 1_000 * length + 10 * LANGS.index(lang) + i)
    cwe = task == "cwe_easy"
    return make_row(config, i, task, lang, lang, length * 1000, CWE_WORDS if cwe else [value],
                    [] if cwe else [("k", value, 50)])


def build(tmp_path: Path) -> tuple[Path, dict[str, list[dict]]]:
    configs = {f"{lang}_s_niah_{n}k": [_row(f"{lang}_s_niah_{n}k", i, "s_niah", lang, n) for i in range(4)]
               for lang, n in MODEL_A}
    configs["en_cwe_easy_64k"] = [_row("en_cwe_easy_64k", i, "cwe_easy", "en", 64) for i in range(2)]
    return write_export(tmp_path / "export", configs), configs


def predictions(configs: dict[str, list[dict]], plan: dict, cwe_passes: int) -> list[dict]:
    out = []
    for (lang, n), answers in plan.items():
        for row, kind in zip(configs[f"{lang}_s_niah_{n}k"], answers.split()):
            # "none" in the instruction language: English "none" in a Hindi answer is no none answer
            text = {"ok": row["answers"][0], "none": none_words(lang)[0], "bad": "1234567"}[kind]
            out.append({"id": row["id"], "prediction": text, "finish_reason": "stop"})
    for i, row in enumerate(configs["en_cwe_easy_64k"]):
        out.append({"id": row["id"], "prediction": " ".join(CWE_WORDS if i < cwe_passes else CWE_WORDS[:5])})
    return out


@pytest.fixture(scope="module")
def reports(tmp_path_factory) -> list[Path]:
    tmp = tmp_path_factory.mktemp("compare")
    export, configs = build(tmp)
    folders = []
    for model, plan, cwe in (("model-a", MODEL_A, 1), ("model-b", MODEL_B, 2)):
        preds = tmp / f"{model}.jsonl"
        preds.write_text("".join(json.dumps(p) + "\n" for p in predictions(configs, plan, cwe)), encoding="utf-8")
        (tmp / f"{model}.meta.json").write_text(json.dumps({"format": "oneruler-run/1", "model": model}))
        result = CliRunner().invoke(cli, ["score", str(preds), "--dataset", str(export), "--out", str(tmp / model),
                                          "--datasets-cache", str(tmp / "hf")], catch_exceptions=False)
        assert result.exit_code == 0, result.output
        folders.append(tmp / model)
    return folders


def test_scores_json_carries_the_run_meta(reports):
    data = json.loads((reports[0] / "scores.json").read_text(encoding="utf-8"))
    assert data["run"] == {"format": "oneruler-run/1", "model": "model-a"}


def flat(table: dict) -> dict:
    """{key: (a, b)} as {(key, 0): a, (key, 1): b}: pytest.approx compares flat mappings only (pytest >= 9.1)."""
    return {(key, i): value for key, values in table.items() for i, value in enumerate(values)}


def test_tables_side_by_side(reports, tmp_path):
    result = CliRunner().invoke(cli, ["compare", *map(str, reports), "--out", str(tmp_path / "cmp")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    with (tmp_path / "cmp" / "by_task_length.csv").open(encoding="utf-8") as handle:
        table = {(r["task"], r["length"]): (float(r["model-a"]), float(r["model-b"])) for r in csv.DictReader(handle)}
    assert flat(table) == pytest.approx(flat({("s_niah", "64k"): (13 / 16, 1.0), ("s_niah", "128k"): (6 / 16, 14 / 16),
                                   ("cwe_easy", "64k"): (0.5, 1.0), ("all", "64k"): (14 / 18, 1.0),
                                   ("all", "128k"): (6 / 16, 14 / 16)}))
    with (tmp_path / "cmp" / "by_language.csv").open(encoding="utf-8") as handle:
        by_lang = {r["language"]: (float(r["model-a"]), float(r["model-b"])) for r in csv.DictReader(handle)}
    assert flat(by_lang) == pytest.approx(flat({"en": (8 / 10, 1.0), "hi": (2 / 8, 6 / 8), "ru": (6 / 8, 1.0), "sw": (4 / 8, 1.0),
                                     "all": (20 / 34, 32 / 34)}))
    markdown = (tmp_path / "cmp" / "compare.md").read_text(encoding="utf-8")
    assert re.search(r"\| s_niah \| 128k \| 37\.5 \[\d+–\d+\] \| 87\.5 \[\d+–\d+\] \|", markdown)
    # hi: 2 of 8 and 6 of 8 over two configs (a pooled interval), few rows shown with their count
    hi = next(x for x in result.output.splitlines() if x.startswith("hi")).split()
    assert hi[0:2] == ["hi", "25.0"] and hi[3:6] == ["n=8", "75.0", hi[5]] and hi[6] == "n=8"
    with (tmp_path / "cmp" / "by_language.csv").open(encoding="utf-8") as handle:
        hi_row = next(r for r in csv.DictReader(handle) if r["language"] == "hi")
    assert hi_row["model-a counted"] == "8" and float(hi_row["model-a ci_low"]) < 0.25 < float(hi_row["model-a ci_high"])
    names = {p.name for p in (tmp_path / "cmp").iterdir()}
    assert {"heatmap-model-a.png", "heatmap-model-b.png", "groups-model-a.png", "groups-model-b.png", "none-errors.png",
            "depth-model-a.png", "depth-model-b.png", "depth.csv", "effective_length.csv", "paired.csv",
            "diff-model-a-vs-model-b.png"} <= names
    for name in names:
        if name.endswith(".png"):
            with Image.open(tmp_path / "cmp" / name) as image:
                image.verify()
            with Image.open(tmp_path / "cmp" / name) as image:
                assert image.size[0] > 300 and image.size[1] > 200


def test_language_groups_by_resource_and_script(reports):
    lengths, cells = group_curves(load_report(reports[0]))
    assert lengths == ["64k", "128k"]
    curves = {name: [c.accuracy for c in row] for name, row in cells.items()}
    assert all(c.interval.low <= c.accuracy <= c.interval.high for row in cells.values() for c in row)
    assert flat(curves) == pytest.approx(flat({"high-resource": [9 / 10, 5 / 8], "low-resource (hi, st, sw, ta)": [5 / 8, 1 / 8],
                                    "Latin script": [8 / 10, 4 / 8], "other scripts": [6 / 8, 2 / 8]}))


def test_none_errors_by_language_like_figures_18_19(reports):
    languages, counts, scope = none_errors([load_report(p) for p in reports])
    assert languages == ["en", "hi", "ru", "sw"] and scope == "S-NIAH at 64k, 128k"
    assert counts == {"model-a": [1, 6, 2, 3], "model-b": [0, 2, 0, 0]}


def test_bad_folders_are_named(tmp_path):
    result = CliRunner().invoke(cli, ["compare", str(tmp_path), "--out", str(tmp_path / "o")])
    assert result.exit_code == 2 and f"{tmp_path}: no scores.json" in result.stderr
