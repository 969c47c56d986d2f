"""``oneruler run`` against a hostile server: one switch of the stand-in (``openai_server.py``) per fault, each run
through the CLI with the real ``openai`` client, behind a base URL that carries a password and a query token (the
stand-in routes only requests that carry the query, as a gateway would). For each fault: the exit code, the first
line of stderr after the preflight's ``server:`` line, the predictions file (valid JSONL, each id once, the
statuses), the rerun once the fault is gone, and no credential anywhere (stdout, stderr, meta, predictions,
report)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import pytest
from click.testing import CliRunner
from openai_server import Fault, Reply, ServerState, running_server
from run_fixtures import small_export

from builders.cli import cli
from builders.run.server.secrets import BaseAddress

KEY = "sk-hostile-7d1e9c-never-print"
PASSWORD = "pw-4f2a88-never-print"
TOKEN = "qt-91b3c0-never-print"
ROWS = ["en_s_niah_8k/0", "en_s_niah_8k/1", "en_s_niah_8k/2"]
COMPLETIONS = "/v1/chat/completions"


def url_of(server) -> str:
    """The stand-in's base URL with a user, a password and the gateway's query."""
    return server.base_url.replace("http://", f"http://runner:{PASSWORD}@") + f"?token={TOKEN}&api-version=2024-06-01"


def shown(server) -> str:
    return f"http://***@127.0.0.1:{server.server_address[1]}/v1?token=***&api-version=***"


def invoke(args: list[str], key: str | None = KEY):
    return CliRunner().invoke(cli, args, catch_exceptions=False, env={"OPENAI_API_KEY": key or ""})


UNSENT = "the user name and password in the URL are not sent: OPENAI_API_KEY is, as a Bearer key"


def first_line(stderr: str) -> str:
    """The first line of stderr after the preflight's server line and its warning that the URL's user info is not sent
    (every case has both: the URL carries a password and the key is set)."""
    return next((x for x in stderr.splitlines() if not x.startswith("server: ") and UNSENT not in x), "")


def lines_of(path: Path) -> list[dict]:
    """Every line of a predictions file, parsed (each must be JSON), each id once."""
    lines = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []
    ids = [x["id"] for x in lines]
    assert len(ids) == len(set(ids)), ids
    return lines


def statuses(path: Path) -> dict[str, str]:
    return {x["id"]: x["status"] for x in lines_of(path)}


def assert_no_secret(folder: Path, *texts: str, basic: str = "") -> None:
    """No key, password, query token (or Basic credential) in the texts or any file under ``folder``."""
    secrets = [KEY, PASSWORD, TOKEN] + ([basic] if basic else [])
    for text in texts:
        assert not [s for s in secrets if s in text], text
    for path in folder.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            assert not [s for s in secrets if s.encode() in data], path


@dataclass
class Case:
    """One fault: how the server is set, the options, and what the run and its rerun (fault gone) must do."""

    arm: Callable[[ServerState], None]
    exit: int
    first: str  # a regular expression the first stderr line (after the server line) must match
    statuses: dict[str, str]
    args: list[str] = field(default_factory=list)
    rerun: list[str] = field(default_factory=lambda: ["--retry-failed"])
    check: Callable[[dict, ServerState, str], None] | None = None  # more about the first run (lines by id, stderr)


def row_fault(row: str, fault: Fault, times: int = 2) -> Callable[[ServerState], None]:
    def arm(state: ServerState) -> None:
        state.faults[row] = [fault] * times
    return arm


def server_switch(**values) -> Callable[[ServerState], None]:
    def arm(state: ServerState) -> None:
        for name, value in values.items():
            setattr(state, name, value)
    return arm


def prediction_of(row: str):
    def check(lines: dict, state: ServerState, stderr: str) -> None:
        assert lines[row]["prediction"] == "4817290" and lines[row]["finish_reason"] is None
    return check


def joined(lines: dict, state: ServerState, stderr: str) -> None:
    assert lines["en_s_niah_8k/1"]["prediction"] == "4817290" and lines["en_s_niah_8k/1"]["finish_reason"] == "stop"


def waited_at_most_the_cap(lines: dict, state: ServerState, stderr: str) -> None:
    first, second = [r.time for r in state.requests(COMPLETIONS) if r.row == "en_s_niah_8k/0"]
    assert 0.3 <= second - first < 5


OK3 = dict.fromkeys(ROWS, "ok")
FAILED1 = dict(OK3, **{"en_s_niah_8k/1": "failed"})  # the three rows are in flight together: the others finish
CASES = {
    "stream-role-only": Case(row_fault("en_s_niah_8k/1", Fault(200, shape="role-only")), 1,
                             r"error: 1 row\(s\) failed, .* Last error: en_s_niah_8k/1: the stream closed after 1 chunk\(s\), "
                             r"before the answer ended \(no finish_reason and no \[DONE\]\) \(gave up after 2 tries\)",
                             FAILED1, ["--stream"]),
    "stream-partial": Case(row_fault("en_s_niah_8k/1", Fault(200, shape="partial")), 1,
                           r"error: .* the stream closed after 2 chunk\(s\), before the answer ended",
                           FAILED1, ["--stream"]),
    "stream-error-event": Case(row_fault("en_s_niah_8k/1", Fault(200, shape="error-event")), 1,
                               r"error: .* the server reported an error in the stream after 2 chunk\(s\): the engine "
                               r"died mid-answer", FAILED1, ["--stream"]),
    "stream-done-no-finish": Case(row_fault("en_s_niah_8k/1", Fault(200, shape="done-no-finish"), 1), 0,
                                  r"warning: http://\*\*\*@.* answered without a finish_reason: recorded with "
                                  r"finish_reason null .* \(first: en_s_niah_8k/1;", OK3, ["--stream"], [],
                                  prediction_of("en_s_niah_8k/1")),
    "no-finish": Case(row_fault("en_s_niah_8k/1", Fault(200, shape="no-finish"), 1), 0,
                      r"warning: .* answered without a finish_reason", OK3, [], [], prediction_of("en_s_niah_8k/1")),
    "content-parts": Case(row_fault("en_s_niah_8k/1", Fault(200, shape="parts"), 1), 0,
                          r"warning: .* answered with parts that are not text: left out of the prediction", OK3, [], [],
                          joined),
    "html-200": Case(row_fault("en_s_niah_8k/1", Fault(200, shape="html")), 1,
                     r"error: .* Last error: en_s_niah_8k/1: the server's answer is not JSON \(Content-Type text/html; "
                     r"charset=utf-8; it begins '<!DOCTYPE html>",
                     FAILED1),
    "echoed-credentials": Case(row_fault("en_s_niah_8k/1", Fault(400, shape="echo-auth"), 1), 1,
                               r"error: .* Last error: en_s_niah_8k/1: HTTP 400: rejected credential Bearer \*\*\* for "
                               r"/v1/chat/completions\?token=\*\*\*&api-version=\*\*\*",
                               FAILED1),
    "models-odd-entries": Case(server_switch(models_fault="odd"), 0,
                               r"warning: http://\*\*\*@.*: GET /v1/models lists 2 entries that are not model cards "
                               r"\(entry 1 is a number; entry 3 is null\): left out", OK3, [], []),
    "models-500": Case(server_switch(models_fault="500"), 0,
                       r"warning: .*: the model list failed \(GET /v1/models: HTTP 500: model registry unavailable\); "
                       r"the model name 'test-model' was not checked, nor the window read from it", OK3, [], []),
    "models-not-utf8": Case(server_switch(models_fault="not-utf8"), 0,
                            r"warning: .*: the model list failed \(GET /v1/models: its answer is not UTF-8 \(byte 37 is "
                            r"b'\\xff'\)\)", OK3, [], []),
    "models-hang": Case(server_switch(hang={"/v1/models"}), 2,
                        r"error: http://\*\*\*@127.0.0.1:\d+/v1\?token=\*\*\*&api-version=\*\*\*: GET /v1/models did not "
                        r"answer within 1 s \(--timeout\); the server took the connection but sent nothing back. If it is "
                        r"still loading the model, wait until it answers and rerun; otherwise raise --timeout", {},
                        ["--timeout", "1"], []),
    "tokenize-hang": Case(server_switch(hang={"/tokenize"}), 2,
                          r"error: counting prompt tokens \(row en_s_niah_8k/0\): http://\*\*\*@.*: POST /tokenize did "
                          r"not answer within 1 s \(--timeout\)", {}, ["--timeout", "1"], []),
    "prompt-read-short": Case(server_switch(prompt_read=20), 1,
                              r"warning: en_s_niah_8k/0: prompt cut short: the server read 20 prompt tokens of the \d+ "
                              r"counted; its 7990-token window is not the cause",
                              dict.fromkeys(ROWS, "failed"), ["--max-failed", "5", "--concurrency", "1"]),
    "retry-after-99999": Case(row_fault("en_s_niah_8k/0", Fault(429, {"Retry-After": "99999"}), 1), 0,
                              r"waiting 0.3 s before another try at http://\*\*\*@.* \(the server asked for 99999 s "
                              r"\(Retry-After\) and --max-retry-wait caps a wait at 0.3 s\)", OK3,
                              ["--max-retry-wait", "0.3"], [], waited_at_most_the_cap),
}


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    return small_export(tmp_path_factory.mktemp("hostile") / "export", ["en_s_niah_8k"], 3)


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_fault(name, export, tmp_path):
    folder, rows = export
    case = CASES[name]
    state = ServerState()
    state.query = {"token": TOKEN, "api-version": "2024-06-01"}
    state.default_reply = lambda row: Reply("4817290")
    case.arm(state)
    out, report = tmp_path / "preds" / "p.jsonl", tmp_path / "report"
    with running_server(state) as server:
        args = ["run", str(folder), "--base-url", url_of(server), "--model", "test-model", "--out", str(out), "--quiet",
                "--retry-wait", "0.01", "--max-retries", "1"]
        first = invoke(args + case.args + ["--report", str(report)])
        said = first_line(first.stderr)
        assert first.exit_code == case.exit, first.stderr
        assert re.match(case.first, said), said
        assert "Traceback" not in first.stderr and sum(x.startswith("error: ") for x in first.stderr.splitlines()) <= 1
        assert statuses(out) == case.statuses
        if case.check is not None:
            case.check({x["id"]: x for x in lines_of(out)}, state, first.stderr)
        if case.exit == 0:  # the summary names the meta file with its folder, and the report was written
            assert f"wrote {out} and {out.parent / 'p.meta.json'}" in first.output
            assert (report / "scores.json").is_file()
        assert all(r.query == f"token={TOKEN}&api-version=2024-06-01" for r in state.log), [r.path for r in state.log]
        assert all(r.headers.get("authorization") == f"Bearer {KEY}" for r in state.log if r.path == COMPLETIONS)
        state.faults.clear()
        state.models_fault, state.hang, state.prompt_read = None, set(), None
        kept = [a for n, a in enumerate(case.args) if "--timeout" not in case.args[max(n - 1, 0):n + 1]]
        again = invoke(args + kept + case.rerun)
    assert again.exit_code == 0, again.stderr
    assert statuses(out) == OK3
    assert_no_secret(tmp_path, first.output, first.stderr, again.output, again.stderr)


def test_without_a_key_the_urls_user_info_is_sent_and_an_echo_of_it_is_scrubbed(export, tmp_path):
    folder, _ = export
    state = ServerState()
    state.basic = ("runner", PASSWORD)
    state.default_reply = lambda row: Reply("4817290")
    state.faults["en_s_niah_8k/2"] = [Fault(400, shape="echo-auth")]
    basic = BaseAddress.parse(f"http://runner:{PASSWORD}@h/v1").basic
    out = tmp_path / "p.jsonl"
    with running_server(state) as server:
        url = server.base_url.replace("http://", f"http://runner:{PASSWORD}@")
        result = invoke(["run", str(folder), "--base-url", url, "--model", "test-model", "--out", str(out), "--quiet",
                         "--max-failed", "1"], key=None)
        assert {r.headers.get("authorization") for r in state.log} == {basic}
    assert result.exit_code == 0, result.stderr
    assert lines_of(out)[2]["error"] == "HTTP 400: rejected credential Basic *** for /v1/chat/completions?"
    assert_no_secret(tmp_path, result.output, result.stderr, basic=basic.split()[1])
    with running_server(ServerState(api_key=KEY)) as server:  # with a key: the key is sent, and the warning says why
        url = server.base_url.replace("http://", f"http://runner:{PASSWORD}@")
        result = invoke(["run", str(folder), "--base-url", url, "--model", "test-model", "--out", str(tmp_path / "k.jsonl"),
                         "--quiet"])
    assert result.exit_code == 0, result.stderr
    assert "the user name and password in the URL are not sent: OPENAI_API_KEY is, as a Bearer key" in result.stderr


def test_an_unreachable_url_with_credentials_is_shown_without_them(export, tmp_path):
    folder, _ = export
    result = invoke(["run", str(folder), "--base-url", f"http://runner:{PASSWORD}@127.0.0.1:9/v1?token={TOKEN}",
                     "--model", "m", "--out", str(tmp_path / "p.jsonl"), "--quiet"])
    assert result.exit_code == 2
    assert result.stderr.startswith("error: cannot reach http://***@127.0.0.1:9/v1?token=*** (APIConnectionError")
    dry = invoke(["run", str(folder), "--base-url", f"http://runner:{PASSWORD}@127.0.0.1:9/v1?token={TOKEN}",
                  "--model", "m", "--dry-run", "--max-model-len", "9000"])  # no --out: a dry run needs none
    assert dry.exit_code == 0, dry.stderr
    assert "warning: http://***@127.0.0.1:9/v1?token=*** is unreachable: prompts are estimated" in dry.stderr
    assert "dry run: nothing sent. 3 row(s) selected (no predictions file given)." in dry.output
    assert_no_secret(tmp_path, result.stderr, dry.output, dry.stderr)


def unwritable(path: Path) -> Callable[[], None]:
    """Make ``path`` impossible to write for this process (immutable for root, read-only otherwise); returns undo."""
    if os.geteuid() == 0:
        subprocess.run(["chattr", "+i", str(path)], check=True)
        return lambda: subprocess.run(["chattr", "-i", str(path)], check=True)
    path.chmod(0o444)
    return lambda: path.chmod(0o644)


def test_an_unwritable_predictions_file_is_one_error_before_anything_is_sent(export, tmp_path):
    folder, _ = export
    out = tmp_path / "p.jsonl"
    state = ServerState()
    with running_server(state) as server:
        args = ["run", str(folder), "--base-url", server.base_url, "--model", "test-model", "--out", str(out), "--quiet"]
        assert invoke(args + ["--limit", "1"]).exit_code == 0
        before = len(state.requests(COMPLETIONS))
        undo = unwritable(out)
        try:
            result = invoke(args)
            assert len(state.requests(COMPLETIONS)) == before  # nothing sent
        finally:
            undo()
        assert result.exit_code == 2 and result.stderr.count("\n") == 1, result.stderr
        assert result.stderr.startswith(f"error: {out} cannot be written (") and "nothing was sent" in result.stderr
        again = invoke(args)
    assert again.exit_code == 0 and statuses(out) == OK3


def test_a_meta_of_the_wrong_shape_is_one_error_line(export, tmp_path, stand_in):
    folder, _ = export
    out = tmp_path / "p.jsonl"
    server = stand_in
    args = ["run", str(folder), "--base-url", server.base_url, "--model", "test-model", "--out", str(out), "--quiet"]
    assert invoke(args + ["--limit", "1"]).exit_code == 0
    meta = tmp_path / "p.meta.json"
    meta.write_text(json.dumps(dict(json.loads(meta.read_text()), runs=5)))
    result = invoke(args)
    assert result.exit_code == 2 and result.stderr == \
        f"error: {meta}: not a `oneruler run` meta file: field 'runs' must be a list, got int\n"


def test_the_ollama_load_is_bounded_and_said(tmp_path):
    from dialect_servers import DialectHandler, DialectState

    folder, _ = small_export(tmp_path / "export", ["en_s_niah_8k"], 1)
    state = DialectState("ollama")
    state.hang = {"/api/generate"}
    started = time.monotonic()
    with running_server(state, DialectHandler) as server:
        result = invoke(["run", str(folder), "--base-url", server.base_url, "--model", "test-model", "--out",
                         str(tmp_path / "p.jsonl"), "--quiet", "--load-timeout", "0.5"])
    assert time.monotonic() - started < 20
    assert result.exit_code == 2
    said = result.stderr.splitlines()
    assert said[0] == "waiting for Ollama to load 'test-model' into memory (POST /api/generate; at most 0.5 s, --load-timeout)"
    assert said[1].startswith(f"error: {server.base_url}: POST /api/generate did not answer within 0.5 s (--load-timeout)")
    assert said[1].endswith("A large model may need longer to load: load it before the run; otherwise raise "
                            "--load-timeout or restart the server") and len(said) == 2
