"""RULER's table row (``views/ruler_table.py``) checked against hand computations: per length the mean of the 13
tasks' mean credit, Avg., wAvg. (inc/dec) with weights 1..6 and 6..1, the effective length against 85.6, and the
intervals against a plain re-computation over the report's own resamples; GPT-4's published row as RULER's check of
the averages; a report missing tasks at a length says so."""

from __future__ import annotations

import json
from fractions import Fraction

import numpy as np
import pytest

from builders.report.views.ruler_table import effective_label, effective_positions, ruler_label, weighted_averages
from builders.spec.grids import RULER_LENGTHS, RULER_TASKS
from report_fixtures import run_cli, write_jsonl
from ruler_export import answer_with, credit, ruler_specs, write_ruler_export

LABELS = ["4K", "8K", "16K", "32K", "64K", "128K"]


def hits_of(row: dict) -> int:
    """How many references the made-up model returns: all at the short lengths, fewer as the length grows."""
    t, p, i = RULER_TASKS.index(row["task"]), RULER_LENGTHS.index(row["length"]), row["index"]
    n = len(row["answers"])
    return n if p < 2 or (t + i) % 5 else max(0, n - p + 1)


def expected_table(rows: dict[str, dict]) -> dict[str, Fraction]:
    """The table computed by hand from each row's credit (Fractions: no rounding until the end)."""
    credits: dict[tuple[str, int], list[Fraction]] = {}
    for row in rows.values():
        credits.setdefault((row["task"], row["length"]), []).append(credit(row, hits_of(row)))
    by_length = [sum(sum(credits[(t, n)]) / len(credits[(t, n)]) for t in RULER_TASKS) / 13 for n in RULER_LENGTHS]
    table = dict(zip(LABELS, by_length))
    table["Avg."] = sum(by_length) / 6
    table["wAvg. (inc)"] = sum((k + 1) * v for k, v in enumerate(by_length)) / 21
    table["wAvg. (dec)"] = sum((6 - k) * v for k, v in enumerate(by_length)) / 21
    return table


@pytest.fixture(scope="module")
def ruler_report(tmp_path_factory):
    root = tmp_path_factory.mktemp("ruler")
    rows = write_ruler_export(root / "export", ruler_specs(), rows=3)
    preds = write_jsonl(root / "preds.jsonl", [{"id": i, "prediction": answer_with(r, hits_of(r))}
                                               for i, r in rows.items()])
    result = run_cli(["score", preds, "--dataset", root / "export", "--out", root / "report"])
    assert result.exit_code == 0, result.output
    return rows, root / "report", result.output


def test_the_table_is_the_hand_computed_one(ruler_report):
    rows, report, output = ruler_report
    expected = expected_table(rows)
    (table,) = json.loads((report / "scores.json").read_text())["ruler_table"]
    got = {c["column"]: c["value"] for c in table["columns"]}
    assert got == pytest.approx({k: float(v) for k, v in expected.items()}, abs=1e-6)
    # RULER's rule: the longest length at or above 85.6
    passing = [k for k, label in enumerate(LABELS) if expected[label] >= Fraction(856, 1000)]
    assert 0 < len(passing) < 6, "the made-up model passes some lengths and not others"
    want = LABELS[max(passing)]
    assert table["effective_length"] == want
    assert table["rows"] == 13 * 6 * 3 and table["indices"] == 3 and table["threshold"] == 85.6
    # printed: RULER's table with each length's score in percent and the effective length
    line = next(x for x in output.splitlines() if x.startswith("cl100k_base"))
    assert f"{100 * float(expected['4K']):.1f} [" in line and f"{100 * float(expected['Avg.']):.1f} [" in line
    assert line.split()[-2 if "[" in line.split()[-1] else -1].startswith(want)


def test_the_intervals_are_percentiles_of_the_same_resamples_recomputed_plainly(ruler_report):
    """Each resample of example indices weighs every row by its index's multiplicity; the table recomputed from those
    weights row by row (plain Python, no shared code but the resamples) gives the intervals written."""
    from builders.report.compare.load import load_report

    rows, report, _ = ruler_report
    loaded = load_report(report).report
    boot = loaded.columns.bootstrap
    position = {int(label): k for k, label in enumerate(boot.labels)}
    values = {label: [] for label in [*LABELS, "Avg."]}
    for weights in boot.weights:
        sums: dict[tuple[str, int], list[float]] = {}
        for row in rows.values():
            w = weights[position[row["index"]]]
            cell = sums.setdefault((row["task"], row["length"]), [0.0, 0.0])
            cell[0] += w * float(credit(row, hits_of(row)))
            cell[1] += w
        per_length = [sum(sums[(t, n)][0] / sums[(t, n)][1] for t in RULER_TASKS) / 13 for n in RULER_LENGTHS]
        for label, value in zip(LABELS, per_length):
            values[label].append(value)
        values["Avg."].append(sum(per_length) / 6)
    (table,) = json.loads((report / "scores.json").read_text())["ruler_table"]
    for column in table["columns"]:
        if column["column"] in values:
            low, high = np.quantile(values[column["column"]], [0.025, 0.975])
            if high > low:
                assert column["ci"] == pytest.approx([low, high], abs=1e-6), column["column"]
            assert column["ci"][0] <= column["value"] <= column["ci"][1]


def test_gpt4s_published_row_gives_rulers_averages():
    """RULER's README: GPT-4-1106-preview 96.6 96.3 95.2 93.2 87.0 81.2 → Avg. 91.6, wAvg. (inc) 89.0, (dec) 94.1,
    effective length 64K."""
    scores = np.array([96.6, 96.3, 95.2, 93.2, 87.0, 81.2])
    avg, inc, dec = weighted_averages(scores)
    assert (round(float(avg), 1), round(float(inc), 1), round(float(dec), 1)) == (91.6, 89.0, 94.1)
    assert effective_label(int(effective_positions(scores, 85.6)), RULER_LENGTHS) == "64K"
    assert effective_label(int(effective_positions(np.array([82.3, 78.4, 73.7, 69.1, 68.1, 65.0]), 85.6)),
                           RULER_LENGTHS) == "<4K"  # LWM
    assert effective_label(int(effective_positions(np.array([98.4, 96.0, 96.2, 94.4, 91.8, 85.6]), 85.6)),
                           RULER_LENGTHS) == ">128K"  # Qwen3-32B: 85.6 is at the threshold, which passes
    assert [ruler_label(n) for n in RULER_LENGTHS] == LABELS


def test_a_length_missing_tasks_is_not_determined_and_says_which(tmp_path):
    specs = [s for s in ruler_specs() if not (s.length == 65536 and s.task in ("ruler_vt", "ruler_cwe"))]
    rows = write_ruler_export(tmp_path / "export", specs, rows=2)
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"id": i, "prediction": answer_with(r, 99)} for i, r in rows.items()])
    result = run_cli(["score", preds, "--dataset", tmp_path / "export", "--out", tmp_path / "report"])
    assert result.exit_code == 0, result.output
    (table,) = json.loads((tmp_path / "report" / "scores.json").read_text())["ruler_table"]
    columns = {c["column"]: c for c in table["columns"]}
    assert columns["64K"]["value"] is None and columns["64K"]["missing"] == ["ruler_vt", "ruler_cwe"]
    assert columns["Avg."]["value"] is None and columns["Avg."]["missing"] == ["64K"]
    assert columns["128K"]["value"] == 1.0 and table["effective_length"].startswith("not determined (64K")
    assert "64K not determined (missing ruler_vt, ruler_cwe)" in result.output
    assert "Avg. not determined (missing 64K)" in result.output
    csv_text = (tmp_path / "report" / "ruler_table.csv").read_text()
    assert "64K: missing ruler_vt, ruler_cwe" in csv_text


def test_no_length_determined_writes_the_table_and_no_empty_figure(tmp_path):
    specs = [s for s in ruler_specs() if s.task != "ruler_qa_2"]  # a task missing at every length
    rows = write_ruler_export(tmp_path / "export", specs, rows=1)
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"id": i, "prediction": answer_with(r, 1)} for i, r in rows.items()])
    result = run_cli(["score", preds, "--dataset", tmp_path / "export", "--out", tmp_path / "report"])
    assert result.exit_code == 0, result.output
    assert "4K not determined (missing ruler_qa_2)" in result.output
    assert (tmp_path / "report" / "ruler_table.csv").is_file() and not (tmp_path / "report" / "ruler.png").exists()
    assert "ruler.png" not in result.output.splitlines()[-1]


def test_other_ruler_configs_are_per_config_not_in_rulers_table(tmp_path):
    from builders.spec.configs import ConfigSpec

    specs = ruler_specs(lengths=(4096,)) + [ConfigSpec("pl", "ruler_vt", 4096, "en"),
                                             ConfigSpec("de", "ruler_qa_xquad", 4096, "en")]
    rows = write_ruler_export(tmp_path / "export", specs, rows=2)
    preds = write_jsonl(tmp_path / "preds.jsonl", [{"id": i, "prediction": answer_with(r, 1)} for i, r in rows.items()])
    result = run_cli(["score", preds, "--dataset", tmp_path / "export", "--out", tmp_path / "report", "--allow-partial"])
    assert result.exit_code == 0, result.output
    scores = json.loads((tmp_path / "report" / "scores.json").read_text())
    (table,) = scores["ruler_table"]
    assert table["rows"] == 13 * 2  # the English tasks only
    groups = {g["config"]: g for g in scores["groups"]}
    vt = groups["pl-en_ruler_vt_4096"]
    assert vt["graded"] is True and vt["accuracy"] == pytest.approx(1 / 5)  # 1 of 5 variables: credit 0.2
    assert groups["de-en_ruler_qa_xquad_4096"]["accuracy"] == 1.0  # any one answer: full credit
    assert "pl-en" in scores["by_language"] and scores["by_language"]["pl-en"]["graded"] is True
