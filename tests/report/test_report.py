"""`oneruler score` end to end on a small exported dataset (real Parquet, real load_dataset)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import datasets
import pytest
from click.testing import CliRunner
from report_fixtures import BEFORE_ACTUAL_DEPTH, make_row, row_features, write_export, write_jsonl

from builders.report.report_data import score_predictions
from builders.report.score.predictions import Prediction
from builders.report.views.heatmap import heatmap
from builders.cli import cli

REPO = Path(__file__).resolve().parents[2]
WORDS_JA = ["在る", "議室", "けがらわしい", "組合せ", "もらう", "出る", "社", "連休", "年", "物"]


def make_rows() -> dict[str, list[dict]]:
    """Six configs: NIAH in en/pl/de, a cross-lingual ko-en config and a ja CWE config."""
    configs: dict[str, list[dict]] = {}
    values = {}

    def v(config, i, j=0):
        # deterministic, distinct 7-digit values
        return values.setdefault((config, i, j), str(1_000_000 + 104_729 * (len(values) + 1)))

    for length, name in [(8000, "en_s_niah_8k"), (32000, "en_s_niah_32k")]:
        configs[name] = [make_row(name, i, "s_niah", "en", "en", length, [v(name, i)], [("apple", v(name, i), 50)])
                         for i in range(4)]
    name = "pl_mk_niah_8k"
    configs[name] = [
        make_row(name, i, "mk_niah", "pl", "pl", 8000, [v(name, i, 0)],
             [(k, v(name, i, j), d) for j, (k, d) in enumerate([("dom", 10), ("kot", 30), ("las", 60), ("most", 90)])])
        for i in range(4)
    ]
    name = "de_none_niah_8k"
    configs[name] = [
        make_row(name, i, "none_niah", "de", "de", 8000, ["Keine vorhanden"],
             [(k, v(name, i, j), 25 * j) for j, k in enumerate(["Haus", "Katze", "Wald", "Brücke"])])
        for i in range(4)
    ]
    name = "ja_cwe_easy_8k"
    configs[name] = [make_row(name, i, "cwe_easy", "ja", "ja", 8000, WORDS_JA) for i in range(3)]
    name = "ko-en_mq_niah_8k"
    configs[name] = [
        make_row(name, i, "mq_niah", "ko", "en", 8000, [v(name, i, 0), v(name, i, 1)],
             [("집", v(name, i, 0), 20), ("고양이", v(name, i, 1), 70)])
        for i in range(2)
    ]
    return configs


def make_predictions(configs: dict[str, list[dict]]) -> list[dict]:
    """Gold answers with controlled corruptions; the expected scores are worked out in EXPECTED."""
    g = {name: [r["answers"] for r in rows] for name, rows in configs.items()}
    needle = {name: [[n["value"] for n in r["needles"]] for r in rows] for name, rows in configs.items()}
    fullwidth = str.maketrans("0123456789", "０１２３４５６７８９")
    preds = [
        # en 8k: pass, none -> fail, null -> dropped, truncated -> dropped (paper)
        ("en_s_niah_8k/0", f"<answer>{g['en_s_niah_8k'][0][0]}</answer>", "stop"),
        ("en_s_niah_8k/1", "<answer>none</answer>", None),
        ("en_s_niah_8k/2", None, None),
        ("en_s_niah_8k/3", f"<answer>{g['en_s_niah_8k'][3][0]}</answer>", "length"),
        # en 32k: pass, full-width pass, "nonetheless" (paper fail / strict pass), empty fail
        ("en_s_niah_32k/0", g["en_s_niah_32k"][0][0], None),
        ("en_s_niah_32k/1", g["en_s_niah_32k"][1][0].translate(fullwidth), None),
        ("en_s_niah_32k/2", f"nonetheless, {g['en_s_niah_32k'][2][0]}", None),
        ("en_s_niah_32k/3", "", None),
        # pl mk: distractor, pass, pass + brak (none_when_present), pass
        ("pl_mk_niah_8k/0", needle["pl_mk_niah_8k"][0][2], None),
        ("pl_mk_niah_8k/1", g["pl_mk_niah_8k"][1][0], None),
        ("pl_mk_niah_8k/2", f"{g['pl_mk_niah_8k'][2][0]} brak", None),
        ("pl_mk_niah_8k/3", f"<odpowiedź>{g['pl_mk_niah_8k'][3][0]}</odpowiedź>", None),
        # de none: pass, "Keine vorhandenen" (paper pass / strict fail), distractor, no answer
        ("de_none_niah_8k/0", "Keine vorhanden", None),
        ("de_none_niah_8k/1", "Keine vorhandenen", None),
        ("de_none_niah_8k/2", needle["de_none_niah_8k"][2][1], None),
        ("de_none_niah_8k/3", "nichts", None),
        # ja cwe: all words reversed -> pass, null -> wrong, 9 of 10 -> partial
        ("ja_cwe_easy_8k/0", "、".join(reversed(WORDS_JA)), None),
        ("ja_cwe_easy_8k/1", None, None),
        ("ja_cwe_easy_8k/2", " ".join(WORDS_JA[:9]), None),
        # ko-en mq: both values reversed -> pass, one value -> partial
        ("ko-en_mq_niah_8k/0", " ".join(reversed(g["ko-en_mq_niah_8k"][0])), None),
        ("ko-en_mq_niah_8k/1", g["ko-en_mq_niah_8k"][1][0], None),
    ]
    return [{"id": i, "prediction": p, **({"finish_reason": f} if f else {})} for i, p, f in preds]


# config -> (passed, counted) in paper mode and strict mode
EXPECTED_PAPER = {"en_s_niah_8k": (1, 2), "en_s_niah_32k": (2, 4), "pl_mk_niah_8k": (2, 4),
                  "de_none_niah_8k": (2, 4), "ja_cwe_easy_8k": (1, 3), "ko-en_mq_niah_8k": (1, 2)}
EXPECTED_STRICT = dict(EXPECTED_PAPER, en_s_niah_32k=(3, 4), de_none_niah_8k=(1, 4))


@pytest.fixture(scope="module")
def export(tmp_path_factory) -> tuple[Path, dict]:
    root = tmp_path_factory.mktemp("export") / "oneruler"
    configs = make_rows()
    return write_export(root, configs), configs


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("hf-cache"))


def run(args: list[str]):
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def score(export, cache, tmp_path, records, *extra):
    preds = write_jsonl(tmp_path / "preds.jsonl", records)
    out = tmp_path / "report"
    result = run(["score", str(preds), "--dataset", str(export[0]), "--out", str(out), "--datasets-cache", cache, *extra])
    return result, out


def test_load_dataset_reads_the_fixture(export, cache):
    ds = datasets.load_dataset(str(export[0]), "ko-en_mq_niah_8k", split="test", cache_dir=cache)
    # needles without actual_depth, as before issue 18; a NIAH config's columns: the core, no CWE fields
    assert ds.num_rows == 2 and ds.features == row_features("mq_niah", BEFORE_ACTUAL_DEPTH)
    assert "cwe_pool_size" not in ds.features


def test_score_end_to_end_paper_mode(export, cache, tmp_path):
    result, out = score(export, cache, tmp_path, make_predictions(export[1]))
    assert result.exit_code == 0, result.output
    data = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    groups = {g["config"]: (g["passed"], g["counted"]) for g in data["groups"]}
    assert groups == EXPECTED_PAPER
    passed, counted = map(sum, zip(*EXPECTED_PAPER.values()))
    assert (data["overall"]["passed"], data["overall"]["counted"]) == (passed, counted) == (9, 19)
    assert data["overall"]["accuracy"] == pytest.approx(9 / 19)
    assert data["overall"]["total"] == 21 and data["overall"]["dropped"] == 2
    assert data["null_predictions"] == {"by_family": {"niah": 1, "cwe": 1}, "dropped": 1, "counted_wrong": 1}
    assert data["complete"] is True and data["coverage"]["missing_lines"] == 0
    # 19 lines hold text, 2 of them say how they finished: 17 unknown
    assert data["finish_reason_length"] == {"count": 1, "by_family": {"niah": 1, "cwe": 0}, "unknown": 17}
    assert data["by_language"]["ko-en"]["accuracy"] == 0.5
    assert list(data["by_length"]) == ["8k", "32k"]
    assert data["by_task"]["s_niah"]["accuracy"] == pytest.approx(3 / 6)
    errors = data["errors"]
    assert errors["s_niah"] == {"correct": 3, "none_when_present": 2, "distractor": 0, "partial": 0, "wrong": 0,
                                "no_answer": 1, "counted": 6, "dropped": 2}
    assert errors["mk_niah"]["distractor"] == 1 and errors["mk_niah"]["none_when_present"] == 1
    assert errors["none_niah"]["distractor"] == 1 and errors["none_niah"]["no_answer"] == 1
    assert errors["cwe_easy"] == {"correct": 1, "none_when_present": 0, "distractor": 0, "partial": 1, "wrong": 0,
                                  "no_answer": 1, "counted": 3, "dropped": 0}
    assert errors["mq_niah"]["partial"] == 1
    assert "disagreements" not in data

    # the printed table: task x language rows, length columns, percentages
    lines = result.output.splitlines()
    header = next(line for line in lines if line.startswith("task"))
    assert header.split() == ["task", "language", "8k", "32k", "all"]
    # Wilson 95 % by hand: 1/2 -> 9.5-90.5 %, 2/4 -> 15.0-85.0 %, 1/3 -> 6.1-79.2 %; few rows show their count
    s_line = next(line for line in lines if line.startswith("s_niah")).split()
    assert s_line[:8] == ["s_niah", "en", "50.0", "[9–91]", "n=2", "50.0", "[15–85]", "n=4"]
    assert s_line[8] == "50.0" and s_line[10] == "n=6"  # "all": a pooled (bootstrap) interval
    assert next(line for line in lines if line.startswith("cwe_easy")).split() == [
        "cwe_easy", "ja", "33.3", "[6–79]", "n=3", "-", "33.3", "[6–79]", "n=3"]
    assert "overall accuracy: 47.4% (9/19), 95 % interval" in result.output
    assert "null predictions: 1 NIAH, 1 CWE; NIAH dropped from the accuracy, CWE counted wrong" in result.output
    assert "PARTIAL" not in result.output
    assert "finish_reason=length: 1 (1 NIAH, 0 CWE)" in result.output
    # the overall detectable difference in words: why 19 rows are not 19 independent ones
    assert ("overall from the 4 example indices, not the 19 rows: rows that share an index share their draws and are "
            "not independent") in result.output

    with (out / "scores.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert {r["config"]: (int(r["passed"]), int(r["counted"])) for r in rows} == EXPECTED_PAPER
    ci = {r["config"]: (float(r["ci_low"]), float(r["ci_high"])) for r in rows}
    assert ci["en_s_niah_8k"] == pytest.approx((0.0945, 0.9055), abs=1e-4)
    assert ci["ja_cwe_easy_8k"] == pytest.approx((0.0615, 0.7923), abs=1e-4)
    assert {g["config"]: g["ci"] for g in data["groups"]}["en_s_niah_32k"] == pytest.approx([0.1500, 0.8500], abs=1e-4)
    assert {r["config"]: r["language"] for r in rows}["ko-en_mq_niah_8k"] == "ko-en"
    with (out / "errors.csv").open(encoding="utf-8") as handle:
        err_rows = {r["task"]: r for r in csv.DictReader(handle)}
    assert err_rows["s_niah"]["none_when_present"] == "2"
    examples = [json.loads(line) for line in (out / "examples.jsonl").read_text(encoding="utf-8").splitlines()]
    assert len(examples) == 21
    assert {e["id"]: e["status"] for e in examples}["en_s_niah_8k/3"] == "truncated"
    assert not (out / "disagreements.jsonl").exists()


def test_heatmap_is_a_valid_png(export, cache, tmp_path):
    from PIL import Image
    import matplotlib.image

    result, out = score(export, cache, tmp_path, make_predictions(export[1]))
    assert result.exit_code == 0, result.output
    png = out / "heatmap.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with Image.open(png) as image:
        image.verify()
    with Image.open(png) as image:
        width, height = image.size
    assert width > 200 and height > 150
    assert matplotlib.image.imread(png).shape[:2] == (height, width)
    assert not list(out.glob(".*.tmp"))  # atomic writes leave no temporaries
    mask = os.umask(0)
    os.umask(mask)
    assert png.stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's 0600


def test_heatmap_pools_niah_by_language_and_length(export):
    preds = {p["id"]: Prediction(p["id"], p["prediction"], p.get("finish_reason"), n)
             for n, p in enumerate(make_predictions(export[1]), 1)}
    rows = {r["id"]: r for rs in export[1].values() for r in rs}
    grid = heatmap(score_predictions(preds, rows).columns)
    assert grid.scope == "NIAH tasks" and grid.lengths == ["8k", "32k"]
    # the ja CWE config is not NIAH; languages by accuracy (a tie: by code), cross-lingual pairs last
    assert grid.languages == ["de", "en", "pl", "ko-en"]
    cell = dict(zip(grid.languages, grid.cells))
    assert [c.accuracy for c in cell["en"]] == [0.5, 0.5] and cell["ko-en"][1] is None and cell["pl"][1] is None
    en8k = cell["en"][0]  # 4 rows with a line, 2 counted (a null and a truncated output dropped), Wilson 1/2
    assert (en8k.passed, en8k.counted, en8k.lines, en8k.truncated, en8k.no_response) == (1, 2, 4, 1, 1)
    assert (en8k.interval.low, en8k.interval.high) == pytest.approx((0.0945, 0.9055), abs=1e-4)


def test_strict_mode_reports_disagreements(export, cache, tmp_path):
    result, out = score(export, cache, tmp_path, make_predictions(export[1]), "--strict")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    assert data["mode"] == "strict"
    assert {g["config"]: (g["passed"], g["counted"]) for g in data["groups"]} == EXPECTED_STRICT
    assert data["paper_overall"]["accuracy"] == pytest.approx(9 / 19)
    assert data["disagreements"]["count"] == 2
    assert {(d["id"], d["paper"], d["strict"]) for d in data["disagreements"]["examples"]} == {
        ("en_s_niah_32k/2", 0, 1), ("de_none_niah_8k/1", 1, 0)}
    assert "strict vs paper: 2 examples differ (1 pass only in paper mode, 1 only in strict mode)" in result.output
    assert len((out / "disagreements.jsonl").read_text(encoding="utf-8").splitlines()) == 2


@pytest.mark.parametrize("policy, en8k", [("score", (2, 3)), ("wrong", (1, 3)), ("paper", (1, 2))])
def test_truncation_policy_is_explicit(export, cache, tmp_path, policy, en8k):
    result, out = score(export, cache, tmp_path, make_predictions(export[1]), "--truncated", policy)
    assert result.exit_code == 0, result.output
    data = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    assert data["truncation"] == policy
    assert {g["config"]: (g["passed"], g["counted"]) for g in data["groups"]}["en_s_niah_8k"] == en8k


def test_the_evaluate_metric_gives_the_same_accuracy(export, cache, tmp_path):
    import evaluate

    result, out = score(export, cache, tmp_path, make_predictions(export[1]))
    assert result.exit_code == 0, result.output
    preds = {p["id"]: p for p in make_predictions(export[1])}
    rows = [r for rs in export[1].values() for r in rs]
    metric = evaluate.load(str(REPO / "metrics" / "oneruler"))
    scores = metric.compute(
        predictions=[preds.get(r["id"], {}).get("prediction") for r in rows],
        references=[r["answers"] for r in rows], tasks=[r["task"] for r in rows],
        instruction_languages=[r["instruction_language"] for r in rows], needles=[r["needles"] for r in rows],
        finish_reasons=[preds.get(r["id"], {}).get("finish_reason") for r in rows],
    )
    data = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    assert scores["accuracy"] == pytest.approx(data["overall"]["accuracy"])
    assert scores["num_counted"] == data["overall"]["counted"]


# --------------------------------------------------------------------------- bad input


def _expect_error(result, *needles):
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ")
    for needle in needles:
        assert needle in result.stderr, result.stderr


def test_unknown_ids_are_named(export, cache, tmp_path):
    records = make_predictions(export[1]) + [{"id": "en_s_niah_8k/99", "prediction": "1"}]
    result, _ = score(export, cache, tmp_path, records)
    _expect_error(result, "unknown id 'en_s_niah_8k/99'", "line 22")


def test_unknown_configs_are_named(export, cache, tmp_path):
    records = [{"id": "xx_s_niah_8k/0", "prediction": "1"}] + make_predictions(export[1])
    result, _ = score(export, cache, tmp_path, records)
    _expect_error(result, "config 'xx_s_niah_8k' (line 1, id 'xx_s_niah_8k/0')")


def test_duplicates_and_malformed_lines_are_all_named(export, cache, tmp_path):
    good = make_predictions(export[1])
    path = tmp_path / "preds.jsonl"
    lines = [json.dumps(r) for r in good[:3]]
    lines += [json.dumps(good[0]), "{not json", "[1, 2]", json.dumps({"prediction": "x"}),
              json.dumps({"id": "no-index", "prediction": "x"}), json.dumps({"id": "en_s_niah_8k/2"}),
              json.dumps({"id": "en_s_niah_32k/0", "prediction": 5}), "", "   "]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    with path.open("ab") as handle:
        handle.write(b'{"id": "en_s_niah_32k/1", "prediction": "\xff"}\n')
    result = run(["score", str(path), "--dataset", str(export[0]), "--out", str(tmp_path / "r"), "--datasets-cache", cache])
    _expect_error(result, "8 problem(s)", "line 4: duplicate id 'en_s_niah_8k/0' (first on line 1)",
                  "line 5: not valid JSON", "line 6: expected a JSON object", "line 7: field 'id'",
                  "line 8: id 'no-index' is not '{config}/{index}'", "line 9 (id 'en_s_niah_8k/2'): missing field",
                  "line 10 (id 'en_s_niah_32k/0'): 'prediction' must be a string or null",
                  "line 13: not valid UTF-8")
    assert not (tmp_path / "r").exists()


def test_missing_files_and_datasets_are_errors(export, cache, tmp_path):
    result = run(["score", str(tmp_path / "nope.jsonl"), "--dataset", str(export[0])])
    _expect_error(result, "predictions file not found", "nope.jsonl")
    preds = write_jsonl(tmp_path / "p.jsonl", make_predictions(export[1]))
    result = run(["score", str(preds), "--dataset", str(tmp_path / "no-such-dataset"), "--datasets-cache", cache])
    _expect_error(result, "no-such-dataset")
    empty = write_jsonl(tmp_path / "empty.jsonl", [])
    _expect_error(run(["score", str(empty), "--dataset", str(export[0])]), "no predictions")


def test_default_out_dir_is_beside_the_predictions(export, cache, tmp_path):
    preds = write_jsonl(tmp_path / "model-x.jsonl", make_predictions(export[1]))
    result = run(["score", str(preds), "--dataset", str(export[0]), "--datasets-cache", cache])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "model-x-report" / "scores.json").is_file()


def test_odd_predictions_get_scores_and_valid_json(export, cache, tmp_path):
    records = [{"id": "en_s_niah_8k/0", "prediction": "\ud800 junk \udfff"},
               {"id": "de_none_niah_8k/0", "prediction": "x" * 2_000_000},
               {"id": "en_s_niah_32k/0", "prediction": "".join(chr(c) for c in range(0x660, 0x66a)) * 3}]
    preds = tmp_path / "odd.jsonl"
    preds.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="ascii")
    out = tmp_path / "odd-report"
    result = run(["score", str(preds), "--dataset", str(export[0]), "--out", str(out), "--datasets-cache", cache,
                  "--strict", "--allow-partial"])
    assert result.exit_code == 0, result.output
    json.loads((out / "scores.json").read_text(encoding="utf-8"))


def test_python_m_builders_cli_score(export, cache, tmp_path):
    preds = write_jsonl(tmp_path / "p.jsonl", make_predictions(export[1]))
    proc = subprocess.run([sys.executable, "-m", "builders.cli", "score", str(preds), "--dataset", str(export[0]),
                           "--out", str(tmp_path / "r"), "--datasets-cache", cache],
                          cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
    assert proc.returncode == 0, proc.stderr
    assert "overall accuracy: 47.4% (9/19)" in proc.stdout
    bad = write_jsonl(tmp_path / "bad.jsonl", [{"id": "en_s_niah_8k/77", "prediction": "x"}])
    proc = subprocess.run([sys.executable, "-m", "builders.cli", "score", str(bad), "--dataset", str(export[0]),
                           "--datasets-cache", cache], cwd=REPO, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1"})
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "en_s_niah_8k/77" in proc.stderr


def test_rows_without_a_prediction_line_make_a_partial_run(export, cache, tmp_path):
    """Half the lines of a config: reported as partial everywhere, exit 1 unless --allow-partial."""
    records = [r for r in make_predictions(export[1]) if r["id"] not in ("pl_mk_niah_8k/2", "pl_mk_niah_8k/3")]
    result, out = score(export, cache, tmp_path, records)
    assert result.exit_code == 1, result.output
    error = [line for line in result.output.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "2 rows of 1 config have no prediction line" in error[0]
    assert "pl_mk_niah_8k 2/4" in error[0] and "--allow-partial" in error[0]
    # the report is still written, and never claims completeness
    data = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    assert data["complete"] is False
    assert data["coverage"] == {"rows": 21, "predicted": 19, "missing_lines": 2,
                                "partial_configs": {"pl_mk_niah_8k": "2/4"}}
    group = {g["config"]: g for g in data["groups"]}["pl_mk_niah_8k"]
    # the two present rows: a distractor (wrong) and a pass; the missing ones are in no denominator
    assert (group["passed"], group["counted"], group["coverage"], group["partial"]) == (1, 2, "2/4", True)
    with (out / "scores.csv").open(encoding="utf-8") as handle:
        rows = {r["config"]: r for r in csv.DictReader(handle)}
    assert rows["pl_mk_niah_8k"]["coverage"] == "2/4" and rows["en_s_niah_8k"]["coverage"] == "4/4"
    line = next(line for line in result.output.splitlines() if line.startswith("mk_niah"))
    assert line.split() == ["mk_niah", "pl", "50.0", "[9–91]", "n=2", "(2/4)", "-", "50.0", "[9–91]", "n=2", "(2/4)"]
    assert "PARTIAL: 2 of 21 rows have no prediction line" in result.output
    result, _ = score(export, cache, tmp_path, records, "--allow-partial")
    assert result.exit_code == 0 and "PARTIAL" in result.output


def test_reasoning_options_in_the_cli(export, cache, tmp_path):
    g = {name: [r["answers"] for r in rows] for name, rows in export[1].items()}
    records = [
        {"id": "en_s_niah_32k/0", "prediction": f"<think>maybe 1234567?</think><Answer>{g['en_s_niah_32k'][0][0]}</Answer>"},
        {"id": "en_s_niah_32k/1", "prediction": f"<think>never closed {g['en_s_niah_32k'][1][0]}"},
        {"id": "en_s_niah_32k/2", "prediction": f"I think {g['en_s_niah_32k'][2][0]}"},
        {"id": "en_s_niah_32k/3", "prediction": None},
    ]

    def passes(*extra):
        result, out = score(export, cache, tmp_path, records, *extra)
        assert result.exit_code == 0, result.output
        examples = [json.loads(x) for x in (out / "examples.jsonl").read_text(encoding="utf-8").splitlines()]
        return [(e["passed"], e["counted"]) for e in examples]

    # default: the think block is removed, an unclosed one is no answer, null dropped (paper)
    assert passes() == [(True, True), (False, True), (True, True), (False, False)]
    # --keep-think: the reasoning's number makes the first answer fail; the unclosed one now passes
    assert passes("--keep-think") == [(False, True), (True, True), (True, True), (False, False)]
    # --answer-tag: only the last <Answer> block counts; no block means nothing to score
    assert passes("--answer-tag") == [(True, True), (False, True), (False, True), (False, False)]
    result, _ = score(export, cache, tmp_path, records, "--missing-policy", "upstream", "--truncated", "wrong")
    assert result.exit_code == 2 and "no effect with --missing-policy upstream" in result.output


def test_upstream_missing_policy_drops_null_and_truncated_for_every_task(export, cache, tmp_path):
    result, out = score(export, cache, tmp_path, make_predictions(export[1]), "--missing-policy", "upstream")
    assert result.exit_code == 0, result.output
    data = json.loads((out / "scores.json").read_text(encoding="utf-8"))
    groups = {g["config"]: (g["passed"], g["counted"]) for g in data["groups"]}
    # ja CWE: its null line is dropped instead of counted wrong; en 8k: null and truncated both dropped
    assert groups == dict(EXPECTED_PAPER, ja_cwe_easy_8k=(1, 2))
    assert data["options"]["missing"] == "upstream" and data["null_predictions"]["dropped"] == 2


def test_a_report_with_nothing_counted_says_so_instead_of_a_percentage(export, cache, tmp_path):
    """Only en 8k s_niah answered, every answer cut at the token limit: nothing is counted anywhere."""
    records = [dict(r, finish_reason="length", prediction=r["prediction"] or "x")
               for r in make_predictions(export[1]) if r["id"].startswith("en_s_niah_8k/")]
    result, _ = score(export, cache, tmp_path, records)
    assert result.exit_code == 0, result.output
    assert "overall accuracy: none: no row is counted (4 dropped by the missing-answer policy, notes below)" \
        in result.output and "-%" not in result.output


def test_an_empty_cell_says_why_and_what_to_do(export, cache, tmp_path):
    """Every en 8k answer cut at the token limit (the paper drops them): the table, scores.csv, the notes and the
    heatmap's cell say how many and why, and point to --max-tokens and --truncated score."""
    records = [dict(r, finish_reason="length") if r["id"].startswith("en_s_niah_8k/") else r
               for r in make_predictions(export[1])]
    records = [dict(r, prediction=r["prediction"] or "x") for r in records]  # no null line in that config either
    result, out = score(export, cache, tmp_path, records)
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("s_niah"))
    assert line.split()[2:5] == ["-", "(4", "cut)"]
    with (out / "scores.csv").open(encoding="utf-8") as handle:
        row = {r["config"]: r for r in csv.DictReader(handle)}["en_s_niah_8k"]
    assert row["empty_reason"] == "all 4 truncated (finish_reason=length) and dropped by the missing-answer policy"
    assert (row["accuracy"], row["ci_low"], row["counted"]) == ("", "", "0")
    assert ("empty: 1 config has no counted row, all 4 truncated (finish_reason=length) and dropped by the "
            "missing-answer policy: en_s_niah_8k") in result.output
    assert "rerun with a larger --max-tokens (`oneruler run`), or score the cut text with --truncated score" in result.output
    preds = {p["id"]: Prediction(p["id"], p["prediction"], p.get("finish_reason"), n) for n, p in enumerate(records, 1)}
    grid = heatmap(score_predictions(preds, {r["id"]: r for rs in export[1].values() for r in rs}).columns)
    en8k = grid.cells[grid.languages.index("en")][0]
    assert en8k.accuracy is None and en8k.short_reason() == "4 cut"
