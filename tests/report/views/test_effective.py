"""Effective context length (effective_length.csv; RULER §3 and NoLiMa's relative rule) from hand-written predictions."""

from __future__ import annotations

import csv

import pytest
from report_fixtures import make_row, run_cli, score_folder, write_export

from builders.report.views.effective import reach

LENGTHS = (8, 32, 64, 128)
# language -> passes out of 50 at 8k, 32k, 64k, 128k
PASSES = {"en": (50, 45, 40, 25),  # 100 %, 90 %, 80 %, 50 %: below 85.6 % from 64k
          "pl": (50, 50, 50, 50),  # every length reached
          "de": (40, 40, 40, 40)}  # 80 % everywhere: not even 8k reaches 85.6 %


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("effective")
    configs, preds = {}, []
    for lang, passes in PASSES.items():
        for n, k in zip(LENGTHS, passes):
            name = f"{lang}_s_niah_{n}k"
            rows = [make_row(name, i, "s_niah", lang, lang, n * 1000, [str(3_000_000 + 1000 * n + i)],
                             [("k", str(3_000_000 + 1000 * n + i), 50)]) for i in range(50)]
            configs[name] = rows
            preds += [{"id": r["id"], "prediction": r["answers"][0] if r["index"] < k else "1234567"} for r in rows]
    export = write_export(tmp / "export", configs)
    return tmp, export, preds, score_folder(export, preds, tmp / "report")


def lines(folder) -> dict[tuple[str, str, str], dict]:
    with (folder / "effective_length.csv").open(encoding="utf-8") as handle:
        return {(r["scope"], r["tasks"], r["definition"]): r for r in csv.DictReader(handle)}


def test_accuracy_below_threshold_from_64k_gives_32k(report):
    table = lines(report[3])
    en = table[("en", "all tasks", "absolute")]
    assert (en["threshold"], en["effective_length"]) == ("85.6", "32k")
    # conservative: Wilson's lower bound of 45/50 is 78.6 % < 85.6 %, of 50/50 92.9 %: only 8k is sure
    assert en["effective_length_conservative"] == "8k"
    relative = table[("en", "all tasks", "relative")]  # 85 % of 100 % at 8k: 90 % passes, 80 % does not
    assert (relative["threshold"], relative["effective_length"], relative["effective_length_conservative"]) == (
        "85.0", "32k", "8k")
    assert table[("en", "NIAH tasks", "absolute")]["effective_length"] == "32k"  # s_niah only: the same rows


def test_none_reached_and_all_reached_are_told_apart(report):
    table = lines(report[3])
    assert table[("pl", "all tasks", "absolute")]["effective_length"] == "≥128k"
    assert table[("pl", "all tasks", "absolute")]["effective_length_conservative"] == "≥128k"
    assert table[("de", "all tasks", "absolute")]["effective_length"] == "<8k"
    # relative to its own 80 % (threshold 68 %), de holds every length
    de = table[("de", "all tasks", "relative")]
    assert (de["threshold"], de["effective_length"]) == ("68.0", "≥128k")
    # all languages pooled: 140/150 (93.3 %), 135/150 (90 %), 130/150 (86.7 %), 115/150 (76.7 %)
    pooled = table[("all languages", "all tasks", "absolute")]
    assert pooled["effective_length"] == "64k"
    assert pooled["accuracy_by_length"].startswith("8k 93.3 [") and "; 64k 86.7 [" in pooled["accuracy_by_length"]


def test_threshold_option_and_printed_table(report):
    tmp, export, preds, _ = report
    folder = score_folder(export, preds, tmp / "t70", "--threshold", "70")
    assert lines(folder)[("en", "all tasks", "absolute")]["effective_length"] == "64k"  # 80 % >= 70 %, 50 % < 70 %
    result = run_cli(["score", tmp / "report.jsonl", "--dataset", export, "--out", tmp / "again"])
    printed = result.output[result.output.index("effective context length"):]
    assert "all tasks   absolute    85.6         64k" in printed


@pytest.mark.parametrize("values, expected", [
    ([0.9, 0.9, 0.8, 0.9], "32k"),  # a later recovery does not count: every shorter length must hold
    ([0.8, 0.9, 0.9, 0.9], "<8k"), ([0.9] * 4, "≥128k"), ([0.9, 0.5, None, 0.9], "8k"),
    ([0.856, 0.86, None, 0.9], "not determined (no counted row at 64k)"),  # issue 36: no conclusion without rows
    ([None, None, None, None], "not determined (no counted row)"), ([None, 0.9, 0.9, 0.9], "not determined (no counted row)"),
])
def test_reach(values, expected):
    assert reach([8000, 32000, 64000, 128000], values, 0.856) == expected


def one_language(tmp, name: str, passes: dict[int, int]) -> tuple:
    """An export of en s_niah at the given lengths (tokens) with ``passes`` of 50 rows passing at each, scored."""
    configs, preds = {}, []
    for length, k in passes.items():
        config = f"en_s_niah_{length // 1000}k"
        rows = [make_row(config, i, "s_niah", "en", "en", length, [str(4_000_000 + length + i)],
                         [("k", str(4_000_000 + length + i), 50)]) for i in range(50)]
        configs[config] = rows
        preds += [{"id": r["id"], "prediction": r["answers"][0] if r["index"] < k else "1234567"} for r in rows]
    export = write_export(tmp / f"{name}-export", configs)
    return export, preds, score_folder(export, preds, tmp / name, model=name)


def test_one_length_leaves_the_relative_rule_undetermined(tmp_path):
    _, _, folder = one_language(tmp_path, "one", {8000: 25})  # 50 %: the relative rule would call it "≥8k"
    table = lines(folder)
    relative = table[("all languages", "all tasks", "relative")]
    assert (relative["threshold"], relative["effective_length"], relative["effective_length_conservative"]) == (
        "", "not determined (one length)", "not determined (one length)")
    assert table[("all languages", "all tasks", "absolute")]["effective_length"] == "<8k"  # 50 % < 85.6 %: determined
    result = run_cli(["compare", folder, "--out", tmp_path / "cmp"])
    assert "all tasks   relative    not determined (one length)\n" in result.output


def test_a_2k_run_uses_its_2k_rows_and_every_length_in_order(tmp_path):
    _, _, short = one_language(tmp_path, "short", {2000: 50})
    table = lines(short)
    assert table[("en", "all tasks", "absolute")]["effective_length"] == "≥2k"
    assert table[("en", "all tasks", "absolute")]["accuracy_by_length"].startswith("2k 100.0 [")
    _, _, mixed = one_language(tmp_path, "mixed", {16000: 30, 2000: 50, 8000: 45})  # 100 %, 90 %, 60 %
    table = lines(mixed)
    absolute, relative = table[("en", "all tasks", "absolute")], table[("en", "all tasks", "relative")]
    assert absolute["accuracy_by_length"].split("; ")[0].startswith("2k 100.0")
    assert [part.split()[0] for part in absolute["accuracy_by_length"].split("; ")] == ["2k", "8k", "16k"]
    assert (absolute["effective_length"], relative["effective_length"]) == ("8k", "8k")  # 90 % holds, 60 % does not


def test_no_counted_row_is_no_conclusion(tmp_path):  # issue 36: every NIAH answer cut at the limit and dropped
    configs, preds = {}, []
    for length in (4000, 8000):
        config = f"en_s_niah_{length // 1000}k"
        configs[config] = [make_row(config, i, "s_niah", "en", "en", length, ["4817290"], [("k", "4817290", 50)])
                           for i in range(5)]
        preds += [{"id": r["id"], "prediction": "48172", "finish_reason": "length"} for r in configs[config]]
    folder = score_folder(write_export(tmp_path / "export", configs), preds, tmp_path / "cut", model="cut")
    table = lines(folder)
    for scope in ("all tasks", "NIAH tasks"):
        for rule in ("absolute", "relative"):
            row = table[("all languages", scope, rule)]
            assert row["effective_length"] == row["effective_length_conservative"] == "not determined (no counted row)"
    result = run_cli(["compare", folder, "--out", tmp_path / "cmp"])
    assert "NIAH tasks  absolute    not determined (no counted row)\n" in result.output
