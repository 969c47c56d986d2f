"""Resuming after ``kill -9``: every id exactly once, and no row that had finished is sent again."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from openai_server import Reply, ServerState, running_server
from run_fixtures import small_export

REPO = Path(__file__).resolve().parents[2]
COMPLETIONS = "/v1/chat/completions"


def start_run(server, export: Path, out: Path) -> subprocess.Popen:
    args = [sys.executable, "-m", "builders.cli", "run", str(export), "--base-url", server.base_url, "--model",
            server.state.model, "--out", str(out), "--concurrency", "2"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "OPENAI_API_KEY": ""}
    return subprocess.Popen(args, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def complete_lines(path: Path) -> list[dict]:
    data = path.read_bytes() if path.exists() else b""
    return [json.loads(x) for x in data[: data.rfind(b"\n") + 1].splitlines()]


def answering(rows: dict, delay_s: float) -> ServerState:
    """The stand-in answering every row right after ``delay_s``."""
    state = ServerState()
    state.delay_s = delay_s
    state.default_reply = lambda row: Reply(rows[row]["answers"][0])
    return state


def test_kill_minus_9_then_resume(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k", "sw_s_niah_8k"], 15)
    out = tmp_path / "preds.jsonl"
    state = answering(rows, 0.15)
    with running_server(state) as server:
        proc = start_run(server, export, out)
        deadline = time.monotonic() + 90
        while len(complete_lines(out)) < 8:
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "the run wrote too few lines in time"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=30)
        mark = len(state.requests(COMPLETIONS))
        finished = {x["id"] for x in complete_lines(out)}
        assert 8 <= len(finished) < len(rows)
        with out.open("ab") as handle:  # what a kill in the middle of a write leaves behind
            handle.write(b'{"id": "sw_s_niah_8k/14", "prediction": "12')

        proc = start_run(server, export, out)
        stdout, stderr = proc.communicate(timeout=120)
        assert proc.returncode == 0, stderr
        assert "ignored a torn last line (43 bytes)" in stderr
        resent = [r.row for r in state.requests(COMPLETIONS)[mark:]]

    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    ids = [x["id"] for x in lines]
    assert sorted(ids) == sorted(rows) and len(ids) == len(set(ids))  # every id exactly once
    assert not finished & set(resent)  # nothing finished was sent twice
    assert sorted(resent) == sorted(set(rows) - finished)  # everything else exactly once
    assert all(x["status"] == "ok" and x["prediction"] == rows[x["id"]]["answers"][0] for x in lines)
    meta = json.loads((tmp_path / "preds.meta.json").read_text())
    assert len(meta["runs"]) == 2 and meta["runs"][0]["ended_at"] is None and meta["runs"][1]["sent"] == len(resent)
    assert f"{len(resent)} row(s) sent: {len(resent)} answered" in stdout


def temps(folder: Path) -> list[Path]:
    return sorted(folder.glob(".*.tmp-*"))


def test_a_kill_during_the_final_rewrite_leaves_a_temp_file_the_next_run_removes(tmp_path):
    """The final rewrite in id order goes through ``.p.jsonl.tmp-*``: killed while it is there, the file is left;
    the next run (holding the lock) removes it, and only it: other writers' temp files stay."""
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 12)
    out = tmp_path / "preds.jsonl"
    state = ServerState()
    state.default_reply = lambda row: Reply(rows[row]["answers"][0], reasoning_content="x" * 400_000)
    caught = None
    with running_server(state) as server:
        for _ in range(5):  # the rewrite takes milliseconds: try again if the kill came after it
            out.unlink(missing_ok=True)
            out.with_name("preds.meta.json").unlink(missing_ok=True)
            proc = start_run(server, export, out)
            deadline = time.monotonic() + 90
            while proc.poll() is None and not list(tmp_path.glob(".preds.jsonl.tmp-*")) and time.monotonic() < deadline:
                time.sleep(0.0005)
            os.kill(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)
            caught = list(tmp_path.glob(".preds.jsonl.tmp-*"))
            if caught:
                break
        assert caught, "the kill never came during the rewrite"
        foreign = [tmp_path / ".tmp-abc123", tmp_path / ".other.jsonl.tmp-xyz"]  # another file's, another tool's
        for path in foreign:
            path.write_bytes(b"in flight")
        proc = start_run(server, export, out)
        stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert f"removed {caught[0].name} (" in stderr and "a temporary file left by an interrupted write" in stderr
    assert [p for p in temps(tmp_path) if p.name.startswith(".preds")] == [] and all(p.exists() for p in foreign)
    ids = [json.loads(x)["id"] for x in out.read_text(encoding="utf-8").splitlines()]
    assert ids == sorted(rows, key=lambda i: int(i.rsplit("/", 1)[1]))  # every id once, in id order


def test_kills_at_random_moments_then_resume(tmp_path):
    import random

    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k", "sw_s_niah_8k"], 8)
    out = tmp_path / "preds.jsonl"
    state = answering(rows, 0.05)
    moments = random.Random(30).sample(range(0, 2500, 100), 3)  # ms after the start, the same every run
    with running_server(state) as server:
        for ms in moments:
            proc = start_run(server, export, out)
            time.sleep(ms / 1000)
            os.kill(proc.pid, signal.SIGKILL)
            proc.communicate(timeout=30)
            complete_lines(out)  # every complete line is a valid line
        proc = start_run(server, export, out)
        stdout, stderr = proc.communicate(timeout=120)
        sent = [r.row for r in state.requests(COMPLETIONS)]
    assert proc.returncode == 0, stderr
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert sorted(x["id"] for x in lines) == sorted(rows) and all(x["status"] == "ok" for x in lines)
    assert set(sent) == set(rows) and temps(tmp_path) == []


def test_an_interrupt_before_any_row_finished_claims_no_file(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k"], 2)
    out = tmp_path / "preds.jsonl"
    state = ServerState()
    state.delay_s = 20  # no row finishes before the interrupt
    with running_server(state) as server:
        proc = start_run(server, export, out)
        deadline = time.monotonic() + 60
        while not state.requests(COMPLETIONS):
            assert proc.poll() is None and time.monotonic() < deadline, proc.communicate()
            time.sleep(0.02)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert stderr.splitlines()[-1] == (f"error: interrupted before any row finished; {out} was not written: rerun the "
                                       f"same command to start")
    assert not out.exists() and temps(tmp_path) == []
