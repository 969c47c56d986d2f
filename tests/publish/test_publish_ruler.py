"""``oneruler publish`` of a report holding RULER's rows, against the loopback Hub stand-in (tests/hub_server.py;
huggingface.co cannot be reached here): the ``ruler`` leaderboard's value, its absence from a report missing part of
its pool, the per-row details with each row's credit, and the re-scoring that refuses RULER numbers edited by hand.

The export is hand-written (tests/grid_export.py, tests/ruler_export.py) and serves two leaderboards: the 182 main
configs at 8k (``oneruler_8k``) and RULER's 78 configs (``ruler``), two rows each, put on the stand-in as the dataset
``my-org/rulerboard``. The predictions find every reference at index 0 and part of them at index 1 (two of four
values for ``ruler_niah_multivalue``, one reference elsewhere), so every row's credit is known from RULER's rule
(``ruler_export.credit``) and RULER's Avg. is computed here from those credits, not read from the report.
"""

from __future__ import annotations

import io
import json
import secrets
import shutil
from fractions import Fraction

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml
from grid_export import answer, grid_row, main_grid_specs, write_grid_export
from hub_client import client_env, oneruler
from hub_server import running_hub
from huggingface_hub import parse_eval_result_entries
from report_fixtures import run_cli, write_jsonl
from ruler_export import credit, references, ruler_row, ruler_specs

from builders.spec.grids import RULER_LENGTHS, RULER_TASKS

DATASET, MODEL, DETAILS = "my-org/rulerboard", "my-org/ruler-model", "my-org/ruler-model-details"
RESULTS = ".eval_results/oneruler.yaml"
NULL_NIAH = "en_s_niah_8k/1"  # no response: left out of ONERULER's accuracy (its details score is null)
MISSING_RULER = "en_ruler_qa_2_131072"  # the RULER config a partial run lacks


def hits_of(row: dict) -> int:
    """References a prediction holds: all at index 0; at index 1 two of multivalue's four, one elsewhere."""
    if row["index"] == 0:
        return len(row["answers"])
    return 2 if row["task"] == "ruler_niah_multivalue" else 1


def prediction(row: dict) -> str | None:
    if row["id"] == NULL_NIAH:
        return None
    if row["task"].startswith("ruler_"):
        return " ".join(row["answers"][:hits_of(row)])
    return answer(row, row["index"] == 0)


def expected_avg() -> Fraction:
    """RULER's Avg. of the design: per length the mean over the 13 tasks of their two rows' mean credit; every length
    is alike, so the mean over the six lengths is that too."""
    by_task = []
    for task in RULER_TASKS:
        rows = [{"task": task, "index": i, "answers": references(ruler_specs((4096,), (task,))[0], i)} for i in (0, 1)]
        by_task.append(sum(credit(r, hits_of(r)) for r in rows) / 2)
    return sum(by_task) / len(by_task)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    """The export on the stand-in as DATASET, a model repo, and the report of every row scored against the Hub copy."""
    root = tmp_path_factory.mktemp("ruler-publish")
    row_of = lambda spec, i: ruler_row(spec, i) if spec.task.startswith("ruler_") else grid_row(spec, i)  # noqa: E731
    rows = write_grid_export(root / "export", main_grid_specs() + ruler_specs(), rows=2, manifest="rulerboard-v1",
                             row_of=row_of)
    token = "hf_" + secrets.token_hex(16)
    with running_hub(token) as (endpoint, state):
        files = {p.relative_to(root / "export").as_posix(): p.read_bytes()
                 for p in sorted((root / "export").rglob("*")) if p.is_file()}
        state.add_repo("dataset", DATASET, files)
        state.add_repo("model", MODEL, {"README.md": b"# ruler-model\n"})
        world = {"root": root, "rows": rows, "state": state, "endpoint": endpoint, "token": token,
                 "env": client_env(endpoint, root, token, ONERULER_HUB_TIMEOUT="3", HF_HUB_ETAG_TIMEOUT="3",
                                   HF_HUB_DOWNLOAD_TIMEOUT="3"),
                 "identity": f"{DATASET}@{state.head('dataset', DATASET)}"}
        world["report"], world["score_output"] = score(world, "report")
        yield world


def score(world, out: str, *extra: str, skip=lambda row: False):
    """``oneruler score`` of the predictions (rows for which ``skip`` holds left out) as the Hub copy's rows."""
    root = world["root"]
    preds = [{"id": i, "prediction": prediction(r)} for i, r in sorted(world["rows"].items()) if not skip(r)]
    path = write_jsonl(root / f"{out}.jsonl", preds)
    result = run_cli(["score", path, "--dataset", root / "export", "--out", root / out, "--dataset-id",
                      world["identity"], *extra])
    assert result.exit_code == 0, result.output
    return root / out, result.output


def publish(world, *args):
    result = oneruler(["publish", *map(str, args)], world["env"], world["root"])
    assert world["token"] not in result.stdout + result.stderr
    return result


def error_line(output: str) -> str:
    """The one line of a refused command's output; it starts ``error:``."""
    lines = output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:") and "Traceback" not in output, output
    return lines[0]


def test_the_ruler_board_is_published_with_rulers_average_and_its_rows_with_their_credit(hub):
    report, state = hub["report"], hub["state"]
    scores = json.loads((report / "scores.json").read_text("utf-8"))
    (table,) = scores["ruler_table"]
    avg = next(c for c in table["columns"] if c["column"] == "Avg.")
    assert avg["value"] == pytest.approx(float(expected_avg()), abs=1e-6)
    assert "  ruler: " + f"{100 * avg['value']:.2f} % [{100 * avg['ci'][0]:.2f}, {100 * avg['ci'][1]:.2f}]" \
        in hub["score_output"]

    published = publish(hub, report, "--model", MODEL, "--details", DETAILS)
    assert published.returncode == 0, published.stderr
    assert "opened a pull request on " + MODEL in published.stdout
    (pr,) = state.pull_requests("model", MODEL).values()
    entries = {e.task_id: e for e in parse_eval_result_entries(yaml.safe_load(pr[RESULTS]))}
    assert sorted(entries) == ["oneruler_8k", "ruler"]
    ruler = entries["ruler"]
    assert ruler.value == round(100 * float(expected_avg()), 2) and ruler.dataset_id == DATASET
    assert ruler.dataset_revision == state.head("dataset", DATASET)
    assert f"95 % CI {100 * avg['ci'][0]:.2f}–{100 * avg['ci'][1]:.2f} (cluster bootstrap" in ruler.notes
    assert "RULER's Avg." in ruler.notes and "2 examples per config (RULER's paper: 500)" in ruler.notes
    assert ruler.source_url == f"{hub['endpoint']}/datasets/{DETAILS}"

    details = state.files("dataset", DETAILS)
    lengths = {f"data/{n}/test.parquet" for n in RULER_LENGTHS}
    assert lengths | {"data/8k/test.parquet", "README.md"} <= set(details)
    rows = [r for path in sorted(lengths) for r in pq.read_table(io.BytesIO(details[path])).to_pylist()]
    assert len(rows) == 2 * len(ruler_specs()) and {r["task"] for r in rows} == set(RULER_TASKS)
    for r in rows:
        row = hub["rows"][r["id"]]
        want = credit(row, hits_of(row))
        assert (r["score"], r["correct"], r["counted"]) == (float(want), want == 1, True), r["id"]
    half = [r for r in rows if r["task"] == "ruler_niah_multivalue" and r["id"].endswith("/1")]
    assert [(r["score"], r["correct"], r["error_category"]) for r in half] == [(0.5, False, "partial")] * 6
    card = details["README.md"].decode("utf-8")
    assert "`score`:" in card and "`ruler`" in card


def test_the_details_score_is_each_rows_credit_in_its_familys_rule(hub):
    table = pq.read_table(hub["report"] / "details.parquet")
    assert table.schema.field("score").type == "double"
    got = {r["id"]: (r["score"], r["correct"], r["counted"]) for r in table.to_pylist()}
    for ident, row in hub["rows"].items():
        if row["task"].startswith("ruler_"):
            want = credit(row, hits_of(row))
            assert got[ident] == (float(want), want == 1, True), ident
        elif ident == NULL_NIAH:
            assert got[ident] == (None, False, False)  # not counted: no credit, as lm-eval's and Inspect's values
        else:
            right = row["index"] == 0
            assert got[ident] == (float(right), right, True), ident


def test_a_report_missing_part_of_rulers_pool_says_why_ruler_has_no_value(hub):
    report, said = score(hub, "partial", skip=lambda row: row["config"] == MISSING_RULER)
    assert "  ruler: incomplete, 77 of 78 configs of its pool complete" in said
    header = (report / RESULTS).read_text("utf-8").splitlines()
    assert "# not covered in full, so not here: ruler (77 of 78 configs of its pool complete)" in header
    (entry,) = parse_eval_result_entries(yaml.safe_load((report / RESULTS).read_text("utf-8")))
    assert entry.task_id == "oneruler_8k"
    dry = run_cli(["publish", report, "--model", MODEL, "--dry-run"])
    assert dry.exit_code == 0 and "1 result(s):" in dry.output and "task_id: ruler" not in dry.output, dry.output

    neither, said = score(hub, "neither", "--allow-partial", skip=lambda row: row["config"] == MISSING_RULER or row["id"] == NULL_NIAH)
    assert "  oneruler_8k: incomplete, 181 of 182 configs of its pool complete" in said
    assert "no leaderboard of my-org/rulerboard is covered in full; no .eval_results file" in said
    refused = publish(hub, neither, "--model", MODEL)
    assert refused.returncode == 2 and refused.stderr.strip().splitlines() == [
        f"error: {neither}: covers no leaderboard in full (oneruler: 181 of 728 configs of its pool complete; "
        f"oneruler_8k: 181 of 182 configs of its pool complete; "
        f"ruler: 77 of 78 configs of its pool complete), so it has no results to publish: finish the run (every row of "
        f"a leaderboard's pool) and rescore"], refused.stderr


def edited_scores(scores: dict) -> None:
    avg = next(c for c in scores["ruler_table"][0]["columns"] if c["column"] == "Avg.")
    avg["value"] = round(avg["value"] + 0.1, 6)


def edited_effective_length(scores: dict) -> None:
    scores["ruler_table"][0]["effective_length"] = "<4K"  # every length scores 86.1 %: >128K


def edited_group(scores: dict) -> None:
    group = next(g for g in scores["groups"] if g["config"] == "en_ruler_niah_multivalue_4096")
    group["accuracy"] = 0.875  # the two rows' credits are 1 and 0.5: 0.75


def dropped_table(scores: dict) -> None:
    del scores["ruler_table"]


EDITS = {"Avg.": (edited_scores, "cl100k_base Avg.: {'column': 'Avg.', 'value': "),
         "effective": (edited_effective_length, "cl100k_base effective_length: '<4K' written, '>128K' given"),
         "group": (edited_group, "disagree on en_ruler_niah_multivalue_4096 (accuracy 0.875 in one, 0.75 in the other)"),
         "dropped": (dropped_table, "(rows for [], examples.jsonl gives ['cl100k_base'])")}


@pytest.mark.parametrize("edit", sorted(EDITS))
def test_the_rescoring_refuses_rulers_numbers_edited_in_scores_json(hub, tmp_path, edit):
    change, said = EDITS[edit]
    copy = shutil.copytree(hub["report"], tmp_path / "report")
    scores = json.loads((copy / "scores.json").read_text("utf-8"))
    change(scores)
    (copy / "scores.json").write_text(json.dumps(scores), "utf-8")
    result = run_cli(["publish", copy, "--model", MODEL, "--dry-run"])
    line = error_line(result.output)
    assert result.exit_code == 2 and said in line and "edited after scoring; rescore the predictions" in line, line


def test_the_rescoring_accepts_the_genuine_report_and_refuses_an_edited_credit(hub, tmp_path):
    genuine = run_cli(["publish", hub["report"], "--model", MODEL, "--details", DETAILS, "--dry-run"])
    assert genuine.exit_code == 0 and "task_id: ruler" in genuine.output, genuine.output
    strict, _ = score(hub, "strict", "--strict")  # its RULER table is strict mode's, made again as such
    genuine = run_cli(["publish", strict, "--model", MODEL, "--details", DETAILS, "--dry-run"])
    assert genuine.exit_code == 0 and "task_id: ruler" in genuine.output, genuine.output
    copy = shutil.copytree(hub["report"], tmp_path / "report")
    table = pq.read_table(copy / "details.parquet")
    scores = table.column("score").to_pylist()
    half = table.column("id").to_pylist().index("en_ruler_niah_multivalue_4096/1")
    scores[half] = 1.0
    pq.write_table(table.set_column(table.schema.get_field_index("score"), "score", pa.array(scores, pa.float64())),
                   copy / "details.parquet")
    line = error_line(run_cli(["publish", copy, "--model", MODEL, "--details", DETAILS, "--dry-run"]).output)
    assert line == (f"error: {copy / 'details.parquet'}: does not hold the verdicts of examples.jsonl (first at "
                    f"en_ruler_niah_multivalue_4096/1): the files come from different scorings or were edited; rescore "
                    f"the predictions")
