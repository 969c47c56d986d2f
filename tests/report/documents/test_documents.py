"""scores.json and examples.jsonl have one writer and one reader: what ``score`` writes, ``compare`` reads back
unchanged (a report rebuilt from a folder computes the same numbers), and folders of older reports still read."""

from __future__ import annotations

import json

import pytest
from report_fixtures import make_row, score_folder, write_export

from builders.base.errors import OneRulerError
from builders.report.compare.load import load_report
from builders.report.documents.examples_jsonl import read_examples
from builders.report.documents.scores_json import ScoresDocument, read_scores
from builders.report.views.depth import report_depth_cells
from builders.report.views.document import scores_document

NEW_KEYS = ("intervals", "sample_size", "dataset")


@pytest.fixture(scope="module")
def folders(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("documents")
    configs = {}
    for n in (8, 32):
        name = f"pl_mq_niah_{n}k"
        configs[name] = [make_row(name, i, "mq_niah", "pl", "pl", n * 1000, [f"{5_000_000 + i}", f"{6_000_000 + i}"],
                                  [("a", f"{5_000_000 + i}", 10 * i, None, 10 * i + 3.5),
                                   ("b", f"{6_000_000 + i}", 90 - 10 * i, None, 87 - 10 * i)])
                         for i in range(6)]
    export = write_export(tmp / "export", configs)
    preds = [{"id": r["id"], "prediction": [" ".join(r["answers"]), r["answers"][0], "brak", None][r["index"] % 4],
              "finish_reason": "length" if r["index"] == 5 else "stop"} for rows in configs.values() for r in rows]
    return {mode: score_folder(export, preds, tmp / mode, *extra, model=f"model-{mode}")
            for mode, extra in (("paper", ()), ("strict", ("--strict",)))}


@pytest.mark.parametrize("mode", ["paper", "strict"])
def test_scores_json_reads_back_to_the_same_bytes(folders, mode):
    raw = (folders[mode] / "scores.json").read_bytes()
    document = read_scores(folders[mode])
    assert document.to_bytes() == raw
    assert document.mode == mode and document.model == f"model-{mode}"
    assert all(("paper_accuracy" in g) == (mode == "strict") for g in json.loads(raw)["groups"])


@pytest.mark.parametrize("mode", ["paper", "strict"])
def test_a_report_rebuilt_from_its_folder_computes_the_same_numbers(folders, mode):
    rebuilt = load_report(folders[mode]).report
    original = json.loads((folders[mode] / "scores.json").read_text(encoding="utf-8"))
    again = scores_document(rebuilt).to_dict()
    for key in ("groups", "overall", "by_task", "by_language", "by_length", "errors", "sample_size"):
        assert again[key] == original[key], key
    with (folders[mode] / "depth.csv").open(encoding="utf-8") as handle:
        written = [line.rstrip("\n") for line in handle][1:]
    _, depth = report_depth_cells(rebuilt)
    assert [",".join("" if v is None else str(v) for v in c.csv_row()) for c in depth] == written
    assert {c.depth_unit for c in depth} == {"tokens"}
    hits = [r.needle_hits for r in read_examples(folders[mode])]  # (sentence depth, retrieved, token depth)
    assert hits[0] == ((0.0, True, 3.5), (90.0, True, 87.0)) and hits[1] == ((10.0, True, 13.5), (80.0, False, 77.0))


def test_an_older_scores_json_without_intervals_still_reads(folders):
    data = json.loads((folders["paper"] / "scores.json").read_text(encoding="utf-8"))
    for key in NEW_KEYS:
        del data[key]
    for summary in [data["overall"], *data["by_task"].values(), *data["groups"]]:
        del summary["ci"]
    for group in data["groups"]:
        del group["empty_reason"]
    document = ScoresDocument.from_dict(data)
    assert document.dataset is None and document.manifest_sha256() is None and document.overall.ci is None


def test_a_scores_json_of_0_2_reads_its_counts_by_family(folders):
    data = json.loads((folders["paper"] / "scores.json").read_text(encoding="utf-8"))
    now = ScoresDocument.from_dict(data)
    assert set(data["null_predictions"]["by_family"]) == set(data["finish_reason_length"]["by_family"]) != set()
    # 0.2.0 wrote the two families as keys of their own
    nulls, cut = data["null_predictions"], data["finish_reason_length"]
    data["null_predictions"] = {"niah": nulls["by_family"].get("niah", 0), "cwe": nulls["by_family"].get("cwe", 0),
                                "dropped": nulls["dropped"], "counted_wrong": nulls["counted_wrong"]}
    data["finish_reason_length"] = {"count": cut["count"], "niah": cut["by_family"].get("niah", 0),
                                    "cwe": cut["by_family"].get("cwe", 0), "unknown": cut["unknown"]}
    older = ScoresDocument.from_dict(data)
    assert older.null_predictions.by_family == {"niah": now.null_predictions.by_family.get("niah", 0),
                                                 "cwe": now.null_predictions.by_family.get("cwe", 0)}
    assert (older.null_predictions.dropped, older.finish_reason_length.count) == (
        now.null_predictions.dropped, now.finish_reason_length.count)


def test_a_folder_without_examples_is_named(tmp_path, folders):
    (tmp_path / "scores.json").write_bytes((folders["paper"] / "scores.json").read_bytes())
    with pytest.raises(OneRulerError, match="no examples.jsonl"):
        load_report(tmp_path)
    (tmp_path / "examples.jsonl").write_text('{"id": "x/0"}\n', encoding="utf-8")
    with pytest.raises(OneRulerError, match="line 1 is not an example line"):
        load_report(tmp_path)


def test_a_report_with_nothing_counted_reads_back_to_the_same_bytes(tmp_path):
    name = "pl_s_niah_8k"  # null NIAH answers are dropped (paper policy): no accuracy, nothing to size
    export = write_export(tmp_path / "export", {name: [make_row(name, i, "s_niah", "pl", "pl", 8000, [f"{7_000_000 + i}"])
                                                       for i in range(2)]})
    folder = score_folder(export, [{"id": f"{name}/{i}", "prediction": None, "finish_reason": "stop"} for i in range(2)],
                          tmp_path / "report")
    raw = (folder / "scores.json").read_bytes()
    document = read_scores(folder)
    assert json.loads(raw)["sample_size"] == {} and document.sample_size is None
    assert document.to_bytes() == raw and document.null_predictions.dropped == 2
