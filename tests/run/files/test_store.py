"""The predictions file and its meta: torn lines, one writer at a time, id order, resumable settings."""

from __future__ import annotations

import json

import pytest

from builders.base.errors import OneRulerError
from builders.report.score.predictions import read_predictions, unscored
from builders.run.files.meta import check_resumable, meta_path
from builders.run.files.store import PredictionStore
from builders.run.server.secrets import public_url
from builders.spec.prediction_line import PredictionLine
from builders.spec.run_meta import RunMeta


def line(ident: str, status: str = "ok", prediction: str | None = "1234567") -> PredictionLine:
    return PredictionLine(ident, prediction, "stop", None, None, 0.1, None if status == "ok" else "boom", status)


def test_a_torn_last_line_is_cut_off_and_appending_continues(tmp_path):
    path = tmp_path / "p.jsonl"
    good = json.dumps(line("a_s_niah_8k/0").to_json()) + "\n"
    path.write_bytes(good.encode() + b'{"id": "a_s_niah_8k/1", "predic')
    store = PredictionStore(path).open()
    try:
        assert store.torn_bytes == len(b'{"id": "a_s_niah_8k/1", "predic')
        assert set(store.index) == {"a_s_niah_8k/0"}
        store.append(line("a_s_niah_8k/1"))
    finally:
        store.close()
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["a_s_niah_8k/0", "a_s_niah_8k/1"]


def test_bad_or_duplicate_complete_lines_are_refused(tmp_path):
    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(line("a/0").to_json()) + "\nnot json\n")
    with pytest.raises(OneRulerError, match="line 2 is not a `oneruler run` prediction line"):
        PredictionStore(path).open()
    path.write_text(json.dumps(line("a/0").to_json()) + "\n" + json.dumps(line("a/0").to_json()) + "\n")
    with pytest.raises(OneRulerError, match="line 2 repeats id 'a/0'"):
        PredictionStore(path).open()


def test_one_writer_at_a_time(tmp_path):
    path = tmp_path / "p.jsonl"
    first = PredictionStore(path).open()
    try:
        with pytest.raises(OneRulerError, match="another `oneruler` process is writing this file"):
            PredictionStore(path).open()
    finally:
        first.close()
    PredictionStore(path).open().close()  # free again


def test_rewrite_sorts_by_config_then_numeric_index_and_drops(tmp_path):
    path = tmp_path / "p.jsonl"
    store = PredictionStore(path).open()
    for ident in ("b/10", "b/2", "a/1", "b/0"):
        store.append(line(ident, "failed" if ident == "a/1" else "ok"))
    store.rewrite(drop=["a/1"])
    store.append(line("a/1"))
    store.rewrite()
    store.close()
    assert [json.loads(x)["id"] for x in path.read_text().splitlines()] == ["a/1", "b/0", "b/2", "b/10"]
    assert not list(tmp_path.glob(".*"))  # no temp or lock file left


def test_unscored_lines_are_failed_and_skipped(tmp_path):
    """The lines run writes without a model output, as score reads them (status travels on each Prediction)."""
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(x.to_json()) + "\n" for x in
                            [line("a/0"), line("a/1", "failed", None), line("a/2", "skipped", None)]))
    assert unscored(read_predictions(path)) == {"a/1": "failed", "a/2": "skipped"}


def test_names_and_urls():
    assert meta_path(__import__("pathlib").Path("/x/preds.jsonl")).name == "preds.meta.json"
    assert meta_path(__import__("pathlib").Path("/x/preds")).name == "preds.meta.json"
    assert public_url("https://user:sk-secret@api.example.com:8443/v1?api-key=sk-2&v=1#x") == \
        "https://***@api.example.com:8443/v1?api-key=***&v=***"
    assert public_url("http://[::1]:8000/v1") == "http://[::1]:8000/v1"
    assert public_url("http://[::1/v1") == "(a URL that cannot be read)"


def test_resuming_with_other_settings_is_refused(tmp_path):
    def meta(doc: dict) -> RunMeta:
        return RunMeta.from_json(doc)

    old = {"model": "m", "api": "chat", "sampling": {"temperature": 0.0}, "dataset": {"manifest_sha256": "a", "revision": None}}
    check_resumable(meta(old), meta(dict(old, base_url="http://elsewhere/v1")), tmp_path / "p.jsonl")
    with pytest.raises(OneRulerError, match='written with sampling {"temperature": 0.0}, this run has {"temperature": 0.6}'):
        check_resumable(meta(old), meta(dict(old, sampling={"temperature": 0.6})), tmp_path / "p.jsonl")
    with pytest.raises(OneRulerError, match="from another dataset"):
        check_resumable(meta(old), meta(dict(old, dataset={"manifest_sha256": "b", "revision": None})), tmp_path / "p.jsonl")


def test_a_meta_of_the_wrong_shape_is_one_error_naming_the_file_and_the_field(tmp_path):
    from click.testing import CliRunner

    from builders.cli import cli
    from builders.run.files.meta import read_meta

    path = tmp_path / "p.jsonl"
    path.write_text(json.dumps(line("a/0").to_json()) + "\n")
    meta_path(path).write_text(json.dumps({"format": "oneruler-run/1", "model": "m", "runs": 5}))
    with pytest.raises(OneRulerError, match=r"p\.meta\.json: not a `oneruler run` meta file: field 'runs' must be a list"):
        read_meta(path)
    result = CliRunner().invoke(cli, ["score", str(path), "--dataset", str(tmp_path / "none")])
    assert result.exit_code == 2
    assert result.stderr == f"error: {meta_path(path)}: not a `oneruler run` meta file: field 'runs' must be a list, got int\n"
