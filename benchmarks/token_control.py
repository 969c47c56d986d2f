"""Token-control builds against text-control (cl100k): the same configs, every tokenizer, CPU time.

    python benchmarks/token_control.py [--configs en_s_niah_128k,en_mk_niah_128k,en_cwe_hard_128k]
        [--tokenizer llama3=../shared/tokenizers/hf/llama3 --tokenizer qwen=../shared/tokenizers/hf/qwen]

Each build is one fresh ``oneruler build`` process (start-up, sources, segmentation and
pre-tokenisation included, ``--num-proc 1``), its CPU time read from the kernel; the tokenizers
take turns in each repeat so that they share the machine's load alike. Then every emitted input is
tokenised once (the tokenise-once floor, CPU). Goal (issue 13): llama3 within 1.5x of cl100k.
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import click

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from full_grid import tokenise_once_floor  # noqa: E402

HF = REPO.parent / "shared" / "tokenizers" / "hf"
DEFAULT_TOKENIZERS = (f"llama3={HF / 'llama3'}", f"qwen={HF / 'qwen'}")


def build_cpu(configs: list[str], alias: str, specs: tuple[str, ...], out: Path, samples: int,
              full_count: bool) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one build process."""
    names = configs if alias == "cl100k" else [f"{c}_{alias}" for c in configs]
    cmd = [sys.executable, "-m", "builders.cli", "build", *names, "--out", str(out), "--samples", str(samples),
           "--num-proc", "1", "--quiet", "--force"] + [a for s in specs for a in ("--tokenizer", s)]
    if full_count:
        cmd.append("--full-count")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=dict(os.environ, PYTHONPATH=str(REPO)), cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"build failed: {proc.stderr[-2000:]}")
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


@click.command()
@click.option("--configs", default="en_s_niah_128k,en_mk_niah_128k,en_cwe_hard_128k", show_default=True)
@click.option("--tokenizer", "tokenizers", multiple=True, default=DEFAULT_TOKENIZERS, metavar="ALIAS=SPEC")
@click.option("--samples", default=50, show_default=True)
@click.option("--repeats", default=1, show_default=True)
@click.option("--full-count", is_flag=True, help="Also time the --full-count builds (the old path).")
@click.option("--json", "as_json", is_flag=True)
def main(configs: str, tokenizers: tuple[str, ...], samples: int, repeats: int, full_count: bool, as_json: bool) -> None:
    """Build CONFIGS with cl100k, o200k and each --tokenizer; print CPU times and ratios."""
    from builders.generate.tokenizer import parse_tokenizer_options

    specs = parse_tokenizer_options(tokenizers)
    aliases = ["cl100k", "o200k", *specs]
    modes = [False, True] if full_count else [False]
    work = Path(tempfile.mkdtemp(prefix="oneruler-tokbench-"))
    cpu: dict[tuple[str, bool], list[float]] = {}
    for rep in range(repeats):
        for mode in modes:
            for alias in aliases[rep % len(aliases):] + aliases[: rep % len(aliases)]:
                out = work / f"{alias}-{int(mode)}" / "oneruler"
                cpu.setdefault((alias, mode), []).append(
                    build_cpu(configs.split(","), alias, tokenizers, out, samples, mode)[0])
    rows = {}
    for alias in aliases:
        floor, n, tokens = tokenise_once_floor(work / f"{alias}-0" / "oneruler", specs)
        build = statistics.median(cpu[(alias, False)])
        rows[alias] = {"build_cpu_s": round(build, 2), "floor_cpu_s": round(floor, 2),
                       "build_over_floor": round(build / floor, 2), "examples": n, "tokens": tokens}
        if full_count:
            rows[alias]["full_count_cpu_s"] = round(statistics.median(cpu[(alias, True)]), 2)
    base = rows["cl100k"]["build_cpu_s"]
    for alias in aliases:
        rows[alias]["over_cl100k"] = round(rows[alias]["build_cpu_s"] / base, 2)
    if as_json:
        click.echo(json.dumps({"configs": configs, "samples": samples, "rows": rows}, indent=1))
        return
    click.echo(f"configs: {configs} x {samples}")
    click.echo(f"{'tokenizer':10} {'build CPU s':>11} {'floor CPU s':>11} {'build/floor':>11} {'/cl100k':>8}"
               + (f" {'full-count s':>12}" if full_count else ""))
    for alias, r in rows.items():
        click.echo(f"{alias:10} {r['build_cpu_s']:11.2f} {r['floor_cpu_s']:11.2f} {r['build_over_floor']:11.2f} "
                   f"{r['over_cl100k']:8.2f}" + (f" {r['full_count_cpu_s']:12.2f}" if full_count else ""))


if __name__ == "__main__":
    main()
