"""Benchmark the export: build configs with ``oneruler build`` and report the costs.

Prints wall time, CPU time (build process and its workers), peak RSS of every process, total
output size, and the ratio to the tokenise-once floor: the CPU time of encoding every emitted
``input`` once (``encode_ordinary``) with the tokenizer that measured it.

    python benchmarks/full_grid.py                       # the whole standard grid: 952 configs x 50
    python benchmarks/full_grid.py 'pl_*_8k' --samples 5 # a quick check on a subset
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import click

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def _descendants(pid: int) -> list[int]:
    out, stack = [], [pid]
    while stack:
        p = stack.pop()
        try:
            children = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            continue
        for c in children:
            out.append(int(c))
            stack.append(int(c))
    return out


def _peak_rss_kb(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")[:80]
    except OSError:
        return "?"


def tokenise_once_floor(out_dir: Path, tokenizer_locations: dict[str, str], every: int = 1) -> tuple[float, int, int]:
    """(CPU seconds, examples, tokens) to encode every emitted input once with its measuring tokenizer.

    ``every`` > 1 tokenises every n-th config only and scales CPU and tokens by the characters
    emitted (an estimate, for slow tokenizers over the whole grid).
    """
    import pyarrow.parquet as pq

    from builders.export.manifest import read_manifest
    from builders.generate.tokenizer import TokenizerRegistry

    registry = TokenizerRegistry(tokenizer_locations)
    manifest = read_manifest(out_dir)
    cpu, n, tokens, chars_all, chars_seen = 0.0, 0, 0, 0, 0
    for i, (name, entry) in enumerate(sorted(manifest["configs"].items())):
        inputs = pq.read_table(out_dir / entry["file"], columns=["input"]).column("input").to_pylist()
        n += len(inputs)
        chars = sum(map(len, inputs))
        chars_all += chars
        if i % every:
            continue
        chars_seen += chars
        tok = registry.get(entry["tokenizer"]["alias"])
        tok.count("warm up")
        t0 = time.process_time()
        tokens += sum(tok.count(text) for text in inputs)
        cpu += time.process_time() - t0
    scale = chars_all / chars_seen if chars_seen else 1.0
    return cpu * scale, n, round(tokens * scale)


@click.command()
@click.argument("patterns", nargs=-1)
@click.option("--out", "out_dir", default=None, help="Export folder (default: a fresh temp folder).")
@click.option("--samples", default=50, show_default=True)
@click.option("--num-proc", default=2, show_default=True)
@click.option("--tokenizer", "tokenizers", multiple=True, metavar="ALIAS=SPEC")
@click.option("--floor-every", default=1, show_default=True,
              help="Tokenise every n-th config for the floor and scale by characters (an estimate).")
@click.option("--full-count", is_flag=True, help="Build with --full-count (the old counting path).")
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def main(patterns, out_dir, samples, num_proc, tokenizers, floor_every, full_count, as_json):
    """Build PATTERNS (default: the whole standard grid) and print what it cost."""
    patterns = patterns or ("*",)
    out = Path(out_dir or tempfile.mkdtemp(prefix="oneruler-bench-")) / "oneruler"
    cmd = [sys.executable, "-m", "builders.cli", "build", *patterns, "--out", str(out), "--samples", str(samples),
           "--num-proc", str(num_proc), "--quiet", "--force"]
    for t in tokenizers:
        cmd += ["--tokenizer", t]
    if full_count:
        cmd.append("--full-count")
    env = dict(os.environ, PYTHONPATH=str(REPO))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env=env, cwd=REPO)
    peaks: dict[int, tuple[int, str]] = {}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            for pid in [proc.pid, *_descendants(proc.pid)]:
                rss = _peak_rss_kb(pid)
                if rss is not None and rss > peaks.get(pid, (0, ""))[0]:
                    peaks[pid] = (rss, _cmdline(pid))
            stop.wait(0.2)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    rc = proc.wait()
    wall = time.perf_counter() - t0
    stop.set()
    thread.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if rc != 0:
        sys.exit(f"build failed with exit code {rc}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    from builders.export.manifest import read_manifest
    from builders.generate.tokenizer import parse_tokenizer_options

    manifest = read_manifest(out)
    floor_cpu, n_examples, n_tokens = tokenise_once_floor(out, parse_tokenizer_options(tokenizers), floor_every)
    figures = {
        "configs": len(manifest["configs"]), "examples": n_examples, "tokens": n_tokens, "num_proc": num_proc,
        "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
        "peak_rss_mb": {f"{pid} {cmd}": round(kb / 1024) for pid, (kb, cmd) in sorted(peaks.items())},
        "max_peak_rss_mb": round(max((kb for kb, _ in peaks.values()), default=0) / 1024),
        "output_mb": round(size / 1e6, 1), "parquet_mb": round(sum(e["size"] for e in manifest["configs"].values()) / 1e6, 1),
        "input_text_mb": round(sum(e["stats"].get("arrow_bytes", 0) for e in manifest["configs"].values()) / 1e6, 1),
        "floor_cpu_s": round(floor_cpu, 1), "floor_every": floor_every, "cpu_over_floor": round(cpu / floor_cpu, 2) if floor_cpu else None,
        "wall_over_floor": round(wall / floor_cpu, 2) if floor_cpu else None, "out": str(out),
    }
    if as_json:
        click.echo(json.dumps(figures, indent=1))
        return
    for key, value in figures.items():
        if key == "peak_rss_mb":
            click.echo("peak RSS per process (MB):")
            for proc_name, mb in value.items():
                click.echo(f"  {mb:6d}  {proc_name}")
        else:
            click.echo(f"{key:16s} {value}")


if __name__ == "__main__":
    main()
