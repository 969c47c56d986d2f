"""``oneruler compare`` and ``oneruler leaderboard`` on reports of RULER's rows (RULER-shaped rows scored by the real
``score``): RULER's table of each model read back from its report folder, RULER's published rows beside them when
asked, graded configs tested by the exact sign-flip test (checked against every sign assignment), and RULER's
published Avg. in the leaderboard's ``ruler`` column."""

from __future__ import annotations

import csv
import io
import itertools
import json
from fractions import Fraction

import pytest
from report_fixtures import run_cli, write_jsonl
from ruler_export import answer_with, credit, ruler_specs, write_ruler_export

from builders.spec.configs import ConfigSpec
from builders.spec.grids import RULER_LENGTHS, RULER_TASKS
from builders.spec.ruler_published import CAVEAT, PUBLISHED_ROWS, SOURCE

LABELS = ["4K", "8K", "16K", "32K", "64K", "128K"]


def hits_a(row: dict) -> int:
    """Model A: every reference at the short lengths, one fewer per length step past 8K on some indices."""
    p = RULER_LENGTHS.index(row["length"])
    n = len(row["answers"])
    return n if p < 2 or (RULER_TASKS.index(row["task"]) + row["index"]) % 3 else max(0, n - p + 1)


def hits_b(row: dict) -> int:
    """Model B: every reference at 4K only, then none on every other index."""
    return len(row["answers"]) if row["length"] == 4096 or row["index"] % 2 else 0


@pytest.fixture(scope="module")
def reports(tmp_path_factory):
    root = tmp_path_factory.mktemp("ruler-compare")
    rows = write_ruler_export(root / "export", ruler_specs(), rows=3)
    folders = {}
    for name, hits in (("model-a", hits_a), ("model-b", hits_b)):
        preds = write_jsonl(root / f"{name}.jsonl", [{"id": i, "prediction": answer_with(r, hits(r))}
                                                     for i, r in rows.items()])
        result = run_cli(["score", preds, "--dataset", root / "export", "--out", root / name])
        assert result.exit_code == 0, result.output
        folders[name] = root / name
    return root, rows, folders


def csv_rows(path) -> list[dict]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))


def test_compare_sets_each_models_ruler_table_beside_rulers_published_rows(reports, tmp_path):
    root, rows, folders = reports
    out = tmp_path / "cmp"
    result = run_cli(["compare", folders["model-a"], folders["model-b"], "--out", out, "--ruler-published", "GPT-4",
                      "--ruler-published", "llama3.1 (8b)"])
    assert result.exit_code == 0, result.output
    lines = csv_rows(out / "ruler_table.csv")
    assert [(r["model"], r["origin"]) for r in lines] == [
        ("model-a", "this report"), ("model-b", "this report"),
        ("GPT-4-1106-preview", "RULER's README (published)"), ("Llama3.1 (8B)", "RULER's README (published)")]
    for line, name in zip(lines, ("model-a", "model-b")):
        # read back from the report folder (examples.jsonl, graded rows) and recomputed: what score wrote
        (written,) = json.loads((folders[name] / "scores.json").read_text(encoding="utf-8"))["ruler_table"]
        for column in written["columns"]:
            assert float(line[column["column"]]) == pytest.approx(column["value"], abs=1e-6)
            assert float(line[column["column"] + " ci_low"]) == pytest.approx(column["ci"][0], abs=1e-6)
        assert line["effective length"] == written["effective_length"]
    # model B by hand: 4K full credit, every other length half the indices (1 and 3 of 0..2: index 1 only)
    b = lines[1]
    assert float(b["4K"]) == 1.0 and all(float(b[label]) == pytest.approx(1 / 3) for label in LABELS[1:])
    assert b["effective length"] == "4K"
    gpt4 = lines[2]
    assert [float(gpt4[label]) for label in LABELS] == [0.966, 0.963, 0.952, 0.932, 0.87, 0.812]
    assert (gpt4["Avg."], gpt4["wAvg. (inc)"], gpt4["wAvg. (dec)"]) == ("0.916", "0.89", "0.941")
    assert (gpt4["effective length"], gpt4["claimed length"], gpt4["rank wAvg. (inc)"]) == ("64K", "128K", "4")
    assert gpt4["4K ci_low"] == "" and gpt4["tokenizer"] == ""  # RULER's number: no interval, its own tokenizer
    text = result.output
    assert "GPT-4-1106-preview [published]" in text and "89.0 (4th)" in text and CAVEAT in text and SOURCE.url in text
    markdown = (out / "compare.md").read_text(encoding="utf-8")
    assert "## RULER's table" in markdown and "| Llama3.1 (8B) [published] |" in markdown
    assert (out / "ruler.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert not (out / "none-errors.png").exists() and "none-errors.png" not in text  # RULER's rows: no "none" answer


def test_without_published_rows_only_the_reports_rows_and_a_misspelt_model_is_one_line(reports, tmp_path):
    _, _, folders = reports
    result = run_cli(["compare", folders["model-a"], "--out", tmp_path / "one"])
    assert result.exit_code == 0, result.output
    assert [r["model"] for r in csv_rows(tmp_path / "one" / "ruler_table.csv")] == ["model-a"]
    assert "[published]" not in result.output
    bad = run_cli(["compare", folders["model-a"], "--out", tmp_path / "bad", "--ruler-published", "GPT-5"])
    assert bad.exit_code == 2 and bad.output.count("\n") == 1 and "'gpt-5' is in no model name" in bad.output
    assert not (tmp_path / "bad").exists()


def exact_sign_flip(differences: list[Fraction]) -> float:
    """The two-sided p by enumerating every sign assignment (no shared code)."""
    observed = abs(sum(differences))
    if observed == 0:
        return 1.0
    hits = sum(abs(sum(s * d for s, d in zip(signs, differences))) >= observed
               for signs in itertools.product((1, -1), repeat=len(differences)))
    return hits / 2 ** len(differences)


def test_a_graded_config_is_tested_by_the_exact_sign_flip_test_of_its_credits(tmp_path):
    specs = [ConfigSpec("en", "ruler_vt", 4096), ConfigSpec("en", "ruler_cwe", 4096)]
    rows = write_ruler_export(tmp_path / "export", specs, rows=9)
    plan = {"a": [5, 5, 4, 5, 3, 5, 2, 5, 4], "b": [5, 3, 4, 1, 3, 0, 2, 4, 5]}  # VT hits per index (of 5)
    credits = {}
    for name, hits in plan.items():
        def hit(row, hits=hits):
            return hits[row["index"]] if row["task"] == "ruler_vt" else 10
        credits[name] = {i: credit(r, hit(r)) for i, r in rows.items()}
        preds = write_jsonl(tmp_path / f"{name}.jsonl", [{"id": i, "prediction": answer_with(r, hit(r))}
                                                        for i, r in rows.items()])
        assert run_cli(["score", preds, "--dataset", tmp_path / "export", "--out", tmp_path / name]).exit_code == 0
    result = run_cli(["compare", tmp_path / "a", tmp_path / "b", "--out", tmp_path / "cmp"])
    assert result.exit_code == 0, result.output
    cells = {(r["scope"], r["cell"]): r for r in csv_rows(tmp_path / "cmp" / "paired.csv")}
    vt = cells[("config", "en_ruler_vt_4096")]
    differences = [credits["a"][f"en_ruler_vt_4096/{k}"] - credits["b"][f"en_ruler_vt_4096/{k}"] for k in range(9)]
    assert vt["test"] == "cluster sign-flip" and float(vt["p_value"]) == pytest.approx(exact_sign_flip(differences))
    assert float(vt["diff"]) == pytest.approx(float(sum(differences) / 9), abs=1e-6)  # written to 6 decimals
    assert (int(vt["a_only"]), int(vt["b_only"])) == (4, 1)  # indices where one model scored more credit
    assert cells[("config", "en_ruler_cwe_4096")]["p_value"] == "1.0"  # both full credit everywhere
    assert "graded rows (RULER's tasks: each row's credit, 0–1): a config's p is the exact sign-flip test" \
        in result.output


def test_the_leaderboard_shows_rulers_published_avg_beside_local_reports(reports, tmp_path):
    _, _, folders = reports
    result = run_cli(["leaderboard", folders["model-a"], folders["model-b"], "--out", tmp_path / "lb",
                      "--ruler-published", "LongAlpaca", "--ruler-published", "gpt-4"])
    assert result.exit_code == 0, result.output
    lines = csv_rows(tmp_path / "lb" / "leaderboard.csv")
    published = {r.label: r.avg for r in PUBLISHED_ROWS}
    by_model = {r["model"]: r for r in lines}
    assert float(by_model["GPT-4-1106-preview"]["ruler_value"]) == published["GPT-4-1106-preview"] == 91.6
    assert float(by_model["LongAlpaca (13B)"]["ruler_value"]) == 36.3
    assert by_model["GPT-4-1106-preview"]["origin"] == "RULER's README (published)"
    assert by_model["GPT-4-1106-preview"]["ruler_ci_low"] == "" and by_model["model-a"]["ruler_ci_low"] != ""
    values = [float(r["ruler_value"]) for r in lines]
    assert values == sorted(values, reverse=True)  # best first, published and local alike
    for name in ("model-a", "model-b"):
        (table,) = json.loads((folders[name] / "scores.json").read_text(encoding="utf-8"))["ruler_table"]
        avg = next(c["value"] for c in table["columns"] if c["column"] == "Avg.")
        assert float(by_model[name]["ruler_value"]) == round(100 * avg, 2)
    assert "RULER's README (published)" in (tmp_path / "lb" / "leaderboard.md").read_text(encoding="utf-8")
