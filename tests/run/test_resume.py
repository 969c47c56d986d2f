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


def test_kill_minus_9_then_resume(tmp_path):
    export, rows = small_export(tmp_path / "export", ["en_s_niah_8k", "sw_s_niah_8k"], 15)
    out = tmp_path / "preds.jsonl"
    state = ServerState()
    state.delay_s = 0.15
    state.default_reply = lambda row: Reply(rows[row]["answers"][0])
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
