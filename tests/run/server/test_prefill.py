"""``oneruler run`` sends a row's answer prefix the way each server takes it, counts it, and records how.

The rows are a toy family's (tests/prefix_family.py) whose rows carry ``answer_prefix``, beside
NIAH rows without one, in one export. The servers are the loopback stand-ins of vLLM
(tests/openai_server.py) and of llama.cpp, TGI, SGLang, Ollama and the hosted API
(tests/run/server/dialect_servers.py), each recording every request body: the test reads there
what was sent (a final assistant message and the fields a prefill needs, or the prefix after the
input), and checks the predictions (the continuation alone: llama.cpp's repeated prefix cut off),
the preflight counts (the prefix included: the server reads what was counted) and the meta.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from dialect_servers import DialectHandler, DialectState
from openai_server import Fault, Reply, ServerState, running_server
from prefix_family import TASK, gold, prefix_row, prefix_rows, registered
from run_fixtures import make_row, write_export

from builders.cli import cli

PREFIXED = f"en_{TASK}_8k"
PLAIN = "en_s_niah_8k"
CHAT = "/v1/chat/completions"
VLLM_FIELDS = {"continue_final_message": True, "add_generation_prompt": False}


@pytest.fixture
def family():
    with registered() as recall:
        yield recall


@pytest.fixture
def export(tmp_path, family):
    rows = {PREFIXED: prefix_rows(PREFIXED, 2), PLAIN: [make_row(PLAIN, i) for i in range(2)]}
    return write_export(tmp_path / "export", rows), {r["id"]: r for config in rows.values() for r in config}


def run(server, folder, out, *extra, env=None):
    args = ["run", str(folder), "--base-url", server.base_url, "--model", server.state.model, "--out", str(out),
            "--retry-wait", "0.01", "--quiet", *extra]
    return CliRunner().invoke(cli, args, catch_exceptions=False, env={"OPENAI_API_KEY": "", **(env or {})})


def answer(state: ServerState, rows: dict) -> None:
    """Each row's reply: its gold number (the continuation of a prefix), for the predictions to show."""
    for ident, row in rows.items():
        state.replies[ident] = Reply(f" {row['answers'][0]}.")


def bodies(state: ServerState, path: str) -> dict[str, dict]:
    """Row id → the last body the server received on ``path`` for it (the row told from its ``row <id>`` mark)."""
    found = {}
    for logged in state.requests(path):
        text = json.dumps(logged.body)
        ident = next((i for i in (f"{c}/{n}" for c in (PREFIXED, PLAIN) for n in range(2)) if f"row {i} " in text), None)
        if ident is not None:
            found[ident] = logged.body
    return found


def counted_total(server, folder, *extra) -> int:
    """The prompt tokens the dry run counts for the selection (its plan's ``all`` line)."""
    done = CliRunner().invoke(cli, ["run", str(folder), "--base-url", server.base_url, "--model", server.state.model,
                                    "--dry-run", "--quiet", *extra], catch_exceptions=False, env={"OPENAI_API_KEY": ""})
    assert done.exit_code == 0, done.output
    return int(next(x for x in done.output.splitlines() if x.startswith("all")).split()[2].replace(",", ""))


def read_total(out) -> int:
    """The prompt tokens the server says it read, over the rows of a predictions file."""
    return sum(line["usage"]["prompt_tokens"] for line in lines(out).values())


def lines(out) -> dict[str, dict]:
    return {json.loads(x)["id"]: json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()}


def meta_prefix(out) -> dict | None:
    meta = json.loads(out.with_name(out.stem + ".meta.json").read_text(encoding="utf-8"))
    return meta["runs"][-1].get("answer_prefix")


def test_vllm_continues_the_prefix_as_a_final_assistant_message(export, tmp_path, stand_in):
    folder, rows = export
    answer(stand_in.state, rows)
    out = tmp_path / "p.jsonl"
    done = run(stand_in, folder, out)
    assert done.exit_code == 0, done.output + done.stderr
    sent = bodies(stand_in.state, CHAT)
    for ident, row in rows.items():
        body = sent[ident]
        if row["task"] == TASK:
            assert body["messages"] == [{"role": "user", "content": row["input"]},
                                        {"role": "assistant", "content": row["answer_prefix"]}]
            assert {k: body[k] for k in VLLM_FIELDS} == VLLM_FIELDS
        else:  # a row without a prefix: one user message, nothing else, as before
            assert body["messages"] == [{"role": "user", "content": row["input"]}]
            assert not set(VLLM_FIELDS) & set(body)
    counted = bodies(stand_in.state, "/tokenize")
    assert counted[f"{PREFIXED}/0"]["messages"][-1]["role"] == "assistant"
    assert {k: counted[f"{PREFIXED}/0"][k] for k in VLLM_FIELDS} == VLLM_FIELDS  # vLLM refuses the default there too
    assert counted[f"{PLAIN}/0"]["add_generation_prompt"] is True and "continue_final_message" not in counted[f"{PLAIN}/0"]
    got = lines(out)
    assert {i: got[i]["prediction"] for i in rows} == {i: f" {r['answers'][0]}." for i, r in rows.items()}
    assert counted_total(stand_in, folder) == read_total(out)  # counted as sent: the prefix included
    recorded = meta_prefix(out)
    assert recorded["sent_as"] == "assistant prefill" and "continue_final_message: true" in recorded["why"]
    assert "answer prefix: assistant prefill (vLLM continues a final assistant message" in done.output + done.stderr


def test_rows_without_a_prefix_record_nothing_about_one(export, tmp_path, stand_in):
    folder, _ = export
    out = tmp_path / "p.jsonl"
    done = run(stand_in, folder, out, PLAIN)
    assert done.exit_code == 0, done.output
    assert meta_prefix(out) is None and "answer prefix" not in done.output + done.stderr
    for body in stand_in.state.requests(CHAT):
        assert len(body.body["messages"]) == 1 and "continue_final_message" not in body.body


def test_completions_append_the_prefix_to_the_prompt(export, tmp_path, stand_in):
    folder, rows = export
    answer(stand_in.state, rows)
    out = tmp_path / "p.jsonl"
    done = run(stand_in, folder, out, "--api", "completions", PREFIXED)
    assert done.exit_code == 0, done.output
    sent = {r.row: r.body for r in stand_in.state.requests("/v1/completions")}
    assert {i: sent[i]["prompt"] for i in sent} == {i: r["input"] + r["answer_prefix"] for i, r in rows.items()
                                                    if r["task"] == TASK}
    assert "continue_final_message" not in json.dumps(sent)
    assert meta_prefix(out) == {"sent_as": "appended to the prompt",
                                "why": "--api completions: the prompt is the input followed by the prefix (RULER's "
                                       "base template)"}


@pytest.mark.parametrize("prefill", [True, False], ids=["jinja", "no-jinja"])
def test_llama_cpp_is_asked_whether_it_continues_the_prefix(export, tmp_path, prefill):
    folder, rows = export
    state = DialectState("llama.cpp", prefill_assistant=prefill)
    answer(state, rows)
    out = tmp_path / "p.jsonl"
    with running_server(state, DialectHandler) as server:
        done = run(server, folder, out, PREFIXED)
    assert done.exit_code == 0, done.output + done.stderr
    sent = bodies(state, CHAT)
    for ident, row in rows.items():
        if row["task"] != TASK:
            continue
        expected = ([{"role": "user", "content": row["input"]}, {"role": "assistant", "content": row["answer_prefix"]}]
                    if prefill else [{"role": "user", "content": row["input"] + row["answer_prefix"]}])
        assert sent[ident]["messages"] == expected and "continue_final_message" not in sent[ident]
        # the prediction is the continuation: the prefix llama.cpp repeats before it is cut off
        assert lines(out)[ident]["prediction"] == f" {gold(PREFIXED, row['index'])}."
    templated = [r.body["messages"] for r in state.requests("/apply-template")]
    assert len(templated) == 2 + 1  # the check on the first row with a prefix, then one count per row
    recorded = meta_prefix(out)
    assert recorded["sent_as"] == ("assistant prefill" if prefill else "appended to the prompt")
    assert ("ends with the prefix" in recorded["why"]) == prefill
    assert ("ends the assistant's turn" in recorded["why"]) == (not prefill)
    with running_server(state, DialectHandler) as server:
        assert counted_total(server, folder, PREFIXED) == read_total(out)  # counted as sent: the prefix included


@pytest.mark.parametrize("trims", [False, True], ids=["verbatim", "trimming-template"])
def test_tgi_prefills_only_where_its_template_keeps_the_prefix(export, tmp_path, trims):
    folder, rows = export
    state = DialectState("tgi", trims=trims)
    out = tmp_path / "p.jsonl"
    with running_server(state, DialectHandler) as server:
        done = run(server, folder, out, PREFIXED)
    assert done.exit_code == 0, done.output + done.stderr
    first = bodies(state, CHAT)[f"{PREFIXED}/0"]
    row = rows[f"{PREFIXED}/0"]
    assert first["messages"][-1] == ({"role": "user", "content": row["input"] + row["answer_prefix"]} if trims else
                                     {"role": "assistant", "content": row["answer_prefix"]})
    assert meta_prefix(out)["sent_as"] == ("appended to the prompt" if trims else "assistant prefill")


@pytest.mark.parametrize("kind, sent_as, fields", [
    ("sglang", "assistant prefill", {"continue_final_message": True}),
    ("ollama", "appended to the prompt", {}),
    ("openai", "appended to the prompt", {}),
])
def test_other_servers_get_what_their_dialect_takes(export, tmp_path, kind, sent_as, fields):
    folder, rows = export
    state = DialectState(kind, model="gpt-4o" if kind == "openai" else "test-model")
    out = tmp_path / "p.jsonl"
    extra = ["--max-model-len", "7990"] if kind == "openai" else []
    with running_server(state, DialectHandler) as server:
        done = run(server, folder, out, PREFIXED, *extra)
    assert done.exit_code == 0, done.output + done.stderr
    body, row = bodies(state, CHAT)[f"{PREFIXED}/1"], rows[f"{PREFIXED}/1"]
    prefilled = sent_as == "assistant prefill"
    assert body["messages"][-1] == ({"role": "assistant", "content": row["answer_prefix"]} if prefilled else
                                    {"role": "user", "content": row["input"] + row["answer_prefix"]})
    assert {k: body[k] for k in body if k in VLLM_FIELDS} == fields
    assert meta_prefix(out)["sent_as"] == sent_as


def test_a_resumed_file_that_changes_the_form_says_so(export, tmp_path):
    folder, rows = export
    out = tmp_path / "p.jsonl"
    first = DialectState("llama.cpp")
    first.faults[f"{PREFIXED}/1"] = [Fault(400, message="bad request")]  # fails at once: resent below
    with running_server(first, DialectHandler) as server:
        assert run(server, folder, out, PREFIXED, "--max-failed", "1").exit_code == 0
    second = DialectState("llama.cpp", prefill_assistant=False)
    with running_server(second, DialectHandler) as server:
        done = run(server, folder, out, PREFIXED, "--retry-failed")
    assert done.exit_code == 0, done.output
    assert ("answer prefix: appended to the prompt in this run, assistant prefill in the earlier runs of this file"
            in done.stderr)
    assert [r.body["messages"][-1]["role"] for r in second.requests(CHAT)] == ["user"]


def test_batch_request_files_carry_the_prefix_as_the_run_would_send_it(export, tmp_path, stand_in):
    folder, rows = export
    requests = tmp_path / "requests.jsonl"
    with_server = CliRunner().invoke(cli, ["run", str(folder), "--base-url", stand_in.base_url, "--model", "test-model",
                                           "--batch-requests", str(requests), "--quiet"],
                                     catch_exceptions=False, env={"OPENAI_API_KEY": ""})
    assert with_server.exit_code == 0, with_server.output
    written = {json.loads(x)["custom_id"]: json.loads(x)["body"] for x in requests.read_text().splitlines()}
    row = rows[f"{PREFIXED}/0"]
    assert written[row["id"]]["messages"][-1] == {"role": "assistant", "content": row["answer_prefix"]}
    assert {k: written[row["id"]][k] for k in VLLM_FIELDS} == VLLM_FIELDS
    assert written[f"{PLAIN}/0"]["messages"] == [{"role": "user", "content": rows[f"{PLAIN}/0"]["input"]}]
    meta = json.loads(requests.with_name("requests.meta.json").read_text())
    assert meta["runs"][0]["answer_prefix"]["sent_as"] == "assistant prefill"

    alone = tmp_path / "alone.jsonl"  # no server to ask: appended, which every server reads
    without = CliRunner().invoke(cli, ["run", str(folder), "--model", "m", "--max-model-len", "7990",
                                       "--batch-requests", str(alone), "--quiet"], catch_exceptions=False,
                                 env={"OPENAI_API_KEY": "", "OPENAI_BASE_URL": ""})
    assert without.exit_code == 0, without.output
    written = {json.loads(x)["custom_id"]: json.loads(x)["body"] for x in alone.read_text().splitlines()}
    assert written[row["id"]]["messages"] == [{"role": "user", "content": row["input"] + row["answer_prefix"]}]
    assert "continue_final_message" not in alone.read_text()


def test_servers_that_take_it_differently_get_it_appended(export, tmp_path, stand_in):
    folder, rows = export
    other = DialectState("llama.cpp", prefill_assistant=False)
    out = tmp_path / "p.jsonl"
    with running_server(other, DialectHandler) as second:
        args = ["run", str(folder), PREFIXED, "--base-url", stand_in.base_url, "--base-url", second.base_url,
                "--model", "test-model", "--out", str(out), "--retry-wait", "0.01", "--quiet"]
        done = CliRunner().invoke(cli, args, catch_exceptions=False, env={"OPENAI_API_KEY": ""})
    assert done.exit_code == 0, done.output + done.stderr
    recorded = meta_prefix(out)
    assert recorded["sent_as"] == "appended to the prompt"
    assert recorded["why"].startswith("the servers take it differently (") and ": assistant prefill; " in recorded["why"]
    sent = [r.body for state in (stand_in.state, other) for r in state.requests(CHAT)]
    assert len(sent) == 2 and all(len(body["messages"]) == 1 and "continue_final_message" not in body for body in sent)



def test_the_form_is_asked_with_a_row_to_send_that_has_a_prefix_whichever_config_holds_it(family, tmp_path, stand_in):
    # the config sent first (the longest) has a prefix only on a row --limit 1 leaves out; the next one has prefixes
    first, second = f"en_{TASK}_16k", f"en_{TASK}_32k"
    rows = {first: [prefix_row(first, 0, words=80, prefix=""), prefix_row(first, 1, words=80)],
            second: prefix_rows(second, 2)}
    folder = write_export(tmp_path / "export", rows)
    out = tmp_path / "p.jsonl"
    done = run(stand_in, folder, out, "--limit", "1")
    assert done.exit_code == 0, done.output + done.stderr
    assert meta_prefix(out)["sent_as"] == "assistant prefill"
    sent = {r.row: r.body["messages"] for r in stand_in.state.requests(CHAT)}
    assert sent == {f"{first}/0": [{"role": "user", "content": rows[first][0]["input"]}],
                    f"{second}/0": [{"role": "user", "content": rows[second][0]["input"]},
                                    {"role": "assistant", "content": rows[second][0]["answer_prefix"]}]}
