"""``oneruler run`` at scale against the lean loopback server (benchmarks/loopback_server.py).

    python benchmarks/run_scale.py memory EXPORT [GLOB ...]          # peak RSS: --dry-run and a real run
    python benchmarks/run_scale.py throughput EXPORT --delay 0.5     # requests/s vs concurrency / delay
    python benchmarks/run_scale.py order EXPORT --slots 4            # makespan: longest first vs dataset order

Every command is a fresh ``python -m builders.cli run`` under ``/usr/bin/time -v`` (peak resident
set size, CPU). ``--code DIR`` runs another checkout's code (e.g. a worktree of an older commit) for a
before/after figure. Figures are printed as one JSON object per measurement.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

REPO = Path(__file__).resolve().parents[1]
SERVER = Path(__file__).with_name("loopback_server.py")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def serving(log: Path, **options):
    """The loopback server in its own process (its CPU and memory are not the client's)."""
    port = free_port()
    args = [sys.executable, str(SERVER), "--port", str(port), "--log", str(log)]
    for key, value in options.items():
        args += [f"--{key.replace('_', '-')}", str(value)]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            time.sleep(0.1)
        else:
            raise SystemExit(f"the loopback server did not start: {proc.stderr.read()[-2000:] if proc.stderr else ''}")
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def timed_run(code: Path, args: list[str]) -> dict:
    """Run ``python -m builders.cli ARGS`` from ``code`` under /usr/bin/time -v: exit code, wall, CPU, peak RSS."""
    env = dict(os.environ, PYTHONPATH=str(code), OPENAI_API_KEY="")
    started = time.monotonic()
    proc = subprocess.run(["/usr/bin/time", "-v", sys.executable, "-m", "builders.cli", *args], cwd=code, env=env,
                          capture_output=True, text=True)
    wall = time.monotonic() - started
    stats = dict(re.findall(r"^\s*([^:\n]+):\s*(.+)$", proc.stderr, re.M))
    total = [line for line in proc.stdout.splitlines() if line.startswith("all ")]
    return {"exit": proc.returncode, "wall_s": round(wall, 1), "plan_total": " ".join(total[-1].split()) if total else None,
            "cpu_s": round(float(stats.get("User time (seconds)", 0)) + float(stats.get("System time (seconds)", 0)), 1),
            "peak_rss_mb": round(int(stats.get("Maximum resident set size (kbytes)", 0)) / 1024),
            "tail": "\n".join(line for line in proc.stderr.splitlines() if not line.startswith("\t"))[-600:]}


def served(log: Path) -> dict:
    """Completions, their span (first start to last end) and tokens, from the server's log."""
    spans = [tuple(map(float, line.split())) for line in log.read_text().splitlines() if line.strip()]
    if not spans:
        return {"completions": 0}
    first, last = min(s for s, _, _ in spans), max(e for _, e, _ in spans)
    return {"completions": len(spans), "span_s": round(last - first, 2), "prompt_tokens": int(sum(n for _, _, n in spans))}


@click.group()
def cli() -> None:
    """Run-at-scale benchmarks."""


@cli.command()
@click.argument("export", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("patterns", nargs=-1)
@click.option("--concurrency", default=64, show_default=True)
@click.option("--code", type=click.Path(exists=True, file_okay=False, path_type=Path), default=REPO,
              help="The checkout whose code runs.")
@click.option("--dry-only", is_flag=True, help="Measure the dry run only.")
@click.option("--reasoning-bytes", default=0, show_default=True, help="Reasoning the server returns with every answer.")
def memory(export: Path, patterns: tuple[str, ...], concurrency: int, code: Path, dry_only: bool,
           reasoning_bytes: int) -> None:
    """Peak RSS of `run --dry-run` and of a real run (prompts counted by the server's /tokenize)."""
    work = Path(tempfile.mkdtemp(prefix="oneruler-runscale-"))
    with serving(work / "served.log", reasoning_bytes=reasoning_bytes) as url:
        base = ["run", str(export.resolve()), *patterns, "--base-url", url, "--model", "bench-model", "--quiet",
                "--concurrency", str(concurrency), "--out", str(work / "preds.jsonl")]
        dry = timed_run(code, base + ["--dry-run"])
        print(json.dumps({"what": "dry-run", "code": str(code), **dry}), flush=True)
        if not dry_only:
            real = timed_run(code, base)
            lines = sum(1 for _ in open(work / "preds.jsonl", "rb")) if (work / "preds.jsonl").exists() else 0
            print(json.dumps({"what": "run", "code": str(code), "lines": lines, **real, **served(work / "served.log"),
                              "predictions_mb": round((work / "preds.jsonl").stat().st_size / 2**20, 1) if lines else 0}),
                  flush=True)


@cli.command()
@click.argument("export", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("patterns", nargs=-1)
@click.option("--delay", default=0.5, show_default=True, help="Seconds each completion takes at the server.")
@click.option("--concurrency", "levels", multiple=True, type=int, default=(64, 256), show_default=True)
@click.option("--limit", type=int, default=None, help="Rows per config.")
def throughput(export: Path, patterns: tuple[str, ...], delay: float, levels: tuple[int, ...], limit: int | None) -> None:
    """Achieved completions/s against concurrency / delay, and the client's CPU per request."""
    for level in levels:
        work = Path(tempfile.mkdtemp(prefix="oneruler-throughput-"))
        with serving(work / "served.log", delay=delay) as url:
            stats = timed_run(REPO, ["run", str(export.resolve()), *patterns, "--base-url", url, "--model", "bench-model",
                                     "--quiet", "--concurrency", str(level), "--out", str(work / "p.jsonl"),
                                     *(["--limit", str(limit)] if limit else [])])
        log = served(work / "served.log")
        n = log["completions"]
        achieved = (n - level) / max(log["span_s"] - delay, 1e-9)  # steady state: the last wave's drain left out
        print(json.dumps({"concurrency": level, "delay_s": delay, "requests": n, "span_s": log["span_s"],
                          "achieved_rps": round(achieved, 1), "ideal_rps": round(level / delay, 1),
                          "ratio": round(achieved / (level / delay), 3),
                          "client_cpu_ms_per_request": round(1000 * stats["cpu_s"] / max(n, 1), 2),
                          "client_peak_rss_mb": stats["peak_rss_mb"], "exit": stats["exit"]}), flush=True)


@cli.command()
@click.argument("export", type=click.Path(exists=True, file_okay=False, path_type=Path))
@click.argument("patterns", nargs=-1)
@click.option("--slots", default=4, show_default=True, help="Completions the server runs at once.")
@click.option("--ms-per-ktoken", default=20.0, show_default=True, help="Server time per 1,000 prompt tokens.")
@click.option("--concurrency", default=8, show_default=True)
def order(export: Path, patterns: tuple[str, ...], slots: int, ms_per_ktoken: float, concurrency: int) -> None:
    """Makespan of the same rows sent longest-config-first and in dataset order (a server whose time grows with length)."""
    spans = {}
    for name in ("longest", "dataset"):
        work = Path(tempfile.mkdtemp(prefix="oneruler-order-"))
        with serving(work / "served.log", slots=slots, ms_per_ktoken=ms_per_ktoken) as url:
            stats = timed_run(REPO, ["run", str(export.resolve()), *patterns, "--base-url", url, "--model", "bench-model",
                                     "--quiet", "--concurrency", str(concurrency), "--out", str(work / "p.jsonl"),
                                     "--order", name])
        spans[name] = served(work / "served.log")
        print(json.dumps({"order": name, **spans[name], "exit": stats["exit"]}), flush=True)
    print(json.dumps({"longest / dataset makespan": round(spans["longest"]["span_s"] / spans["dataset"]["span_s"], 3)}))


if __name__ == "__main__":
    cli()
