"""The run's meta as typed records: read back and written again byte for byte (key order and unknown keys kept),
changed as a dict would be, and a wrong shape named by its field."""

from __future__ import annotations

import json

import pytest

from builders.spec.run_meta import BatchRecord, RunMeta, SelectionRecord, ServerRecord, SessionRecord

SESSION = {"started_at": "2026-01-01T00:00:00+00:00", "ended_at": "2026-01-01T00:01:00+00:00", "rows": 4,
           "to_send": 4, "server_kind": "vLLM", "slots": None, "window": 7990,
           "window_source": "max_model_len from GET /v1/models", "prompt_limit": None,
           "prompt_count": "the server's /tokenize", "prompt_count_exact": True, "warnings": ["w"],
           "concurrency": 8, "max_retries": 5, "timeout_s": 600.0, "order": "longest",
           "selection": {"patterns": ["en_*"], "limit": None, "shard": None}, "packages": {"oneruler": "0.1"},
           "sent": 4, "ok": 3, "failed": 1, "skipped": 0, "stopped": False,
           "servers": [{"base_url": "http://127.0.0.1:8000/v1", "answered": 3, "failed": 1, "taken_out": None}]}
INGESTED = {  # a batch meta ingested, then resumed live by a version that added keys of its own
    "format": "oneruler-run/1", "model": "m", "base_url": None, "base_urls": [], "api": "chat", "preset": None,
    "sampling": {"temperature": 0.0, "stop": []}, "stream": False,
    "dataset": {"name": "/x/export", "revision": None, "manifest_sha256": "ab", "future": 1},
    "selection": {"patterns": [], "limit": 2, "shard": None},
    "runs": [dict(SESSION, ended_at=None, gpu="H100"), {"started_at": "2026-01-02T00:00:00+00:00", "ended_at": None}],
    "batch": {"endpoint": "/v1/chat/completions", "files": [{"file": "req.jsonl", "requests": 3, "bytes": 900}],
              "requests": 3, "limits": {"max_requests": 50000, "max_bytes": 200000000},
              "skipped": {"en_s_niah_8k/1": [8100, "skipped: too long"]}, "batches": ["batch-1"]},
    "ingested": {"at": "2026-01-01T00:02:00+00:00", "results": ["out.jsonl"], "lines": {"ok": 3}, "missing": 0},
    "note": {"written": "by hand"}, "lines": {"ok": 3, "failed": 0, "skipped": 1},
    "ended_at": "2026-01-01T00:02:00+00:00", "started_at": "2026-01-02T00:00:00+00:00",
}


def text(doc: dict) -> str:
    return json.dumps(doc, ensure_ascii=False, indent=2)


def test_a_meta_read_and_written_back_is_the_same_bytes():
    meta = RunMeta.from_json(json.loads(text(INGESTED)))
    assert text(meta.to_json()) == text(INGESTED)
    assert meta.runs[0].servers[0].answered == 3 and meta.batch.files[0].file == "req.jsonl"
    assert meta.runs[0].extra == {"gpu": "H100"} and meta.extra == {"note": {"written": "by hand"}}
    assert meta.batch.skipped == {"en_s_niah_8k/1": (8100, "skipped: too long")} and meta.shard is None
    assert not meta.runs[1].has("rows") and meta.runs[1].to_json() == INGESTED["runs"][1]


def test_records_change_as_a_dict_would():
    doc = dict(INGESTED)
    meta = RunMeta.from_json(doc)
    changed = meta.without("batch").with_(batch=meta.batch, ended_at="later", merged_at="now")
    expected = {k: v for k, v in doc.items() if k != "batch"}
    expected.update(batch=doc["batch"], ended_at="later", merged_at="now")
    assert text(changed.to_json()) == text(expected)
    fresh = RunMeta.of(model="m", api="chat")
    assert text(RunMeta.from_json({"model": "old", "x": 1}).merged(fresh).to_json()) == text(
        dict({"model": "old", "x": 1}, model="m", api="chat"))
    selection = SelectionRecord().with_(shard=None)
    assert selection.to_json() == {"shard": None} and SelectionRecord.of(patterns=("a",)).to_json() == {"patterns": ["a"]}


def test_records_are_built_in_the_order_their_keys_are_given():
    server = ServerRecord.of(base_url="u", answered=1, failed=0, taken_out=None)
    session = SessionRecord.of(started_at="t", ended_at=None).with_(ended_at="e", servers=(server,))
    assert list(session.to_json()) == ["started_at", "ended_at", "servers"]
    assert session.to_json()["servers"] == [{"base_url": "u", "answered": 1, "failed": 0, "taken_out": None}]


@pytest.mark.parametrize("change, said", [
    (dict(runs=5), "field 'runs' must be a list, got int"),
    (dict(runs=[dict(SESSION, servers=[{"answered": "3"}])]), "field 'runs[0].servers[0].answered' must be an integer, got str"),
    (dict(runs=[dict(SESSION, rows=True)]), "field 'runs[0].rows' must be an integer, got bool"),
    (dict(model=7), "field 'model' must be a string, got int"),
    (dict(dataset=[]), "field 'dataset' must be an object, got a list"),
    (dict(batch=dict(INGESTED["batch"], files=[{"requests": 1, "bytes": 2}])), "field 'batch.files[0]' lacks 'file'"),
    (dict(batch=dict(INGESTED["batch"], skipped={"a/0": [1]})), "field 'batch.skipped.a/0' must be a list of 2 items, got 1"),
    (dict(lines={"ok": None}), "field 'lines.ok' must be an integer, got null"),
])
def test_a_wrong_shape_names_the_field(change, said):
    with pytest.raises(ValueError) as info:
        RunMeta.from_json(dict(INGESTED, **change))
    assert str(info.value) == said


def test_numbers_and_nulls_are_kept_as_written():
    meta = RunMeta.from_json({"runs": [{"timeout_s": 600, "slots": None}], "batch": {"skipped": None}})
    assert meta.runs[0].timeout_s == 600 and meta.to_json() == {"runs": [{"timeout_s": 600, "slots": None}],
                                                                 "batch": {"skipped": None}}
    assert isinstance(meta.batch, BatchRecord) and meta.batch.skipped is None
    with pytest.raises(ValueError, match="the meta must be an object, got a list"):
        RunMeta.from_json([])


def test_a_meta_copied_into_a_report_reads_back_leniently():
    from builders.spec.run_meta import copied_meta

    run = copied_meta({"format": "oneruler-run/1", "model": "m", "dataset": {"manifest_sha256": "abc"}, "odd": 1})
    assert run.model == "m" and run.dataset_field("manifest_sha256") == "abc" and run.to_json()["odd"] == 1
    assert copied_meta(None) is None and copied_meta("text") is None
    assert copied_meta({"runs": 5}) is None  # a shape the meta file's own reader refuses: no record, no error
