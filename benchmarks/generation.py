"""Generation speed on a representative slice; prints the figures recorded in docs/performance.md.

    python benchmarks/generation.py [--langs en,pl,zh,ko,ta] [--lengths 8k,128k] [--samples 50]

For every (language, task, length) it builds all examples in this process and reports wall time,
CPU time, peak RSS, and the ratio of build CPU time to the "tokenise-once floor": the CPU time to
encode every emitted input once with the same tokenizer (what a build that tokenises each emitted
example once to check its budget would at least spend; counting by construction goes below it).
Preparation (segmenting and pre-tokenising a book or word list) is counted in the build time of
the first config that needs it, as a user would pay it. CPU times, measured in the same process,
keep the ratios meaningful on a shared machine.

    python benchmarks/generation.py --langs en,pl,zh --lengths 8k,128k --tokenizer llama3 \
        --spec llama3=../shared/tokenizers/hf/llama3
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from builders.generate.rows import RowGenerator  # noqa: E402
from builders.generate.tokenizer import TokenizerRegistry  # noqa: E402
from builders.sources.store import load_sources  # noqa: E402
from builders.spec.configs import ConfigSpec, parse_length  # noqa: E402
from builders.spec.tasks import MAIN_TASKS  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--langs", default="en,pl,zh,ko,ta")
    ap.add_argument("--lengths", default="8k,128k")
    ap.add_argument("--tasks", default=",".join(MAIN_TASKS))
    ap.add_argument("--samples", type=int, default=50)
    ap.add_argument("--tokenizer", default="cl100k", help="alias; register others with --spec")
    ap.add_argument("--spec", action="append", default=[], help="ALIAS=SPEC for token-control")
    args = ap.parse_args()

    reg = TokenizerRegistry(args.spec)
    tok = reg.get(args.tokenizer)
    t0 = time.perf_counter()
    sources = load_sources()
    generator = RowGenerator(sources, reg)
    print(f"load sources: {time.perf_counter() - t0:.2f}s", flush=True)
    alias = None if args.tokenizer == "cl100k" else args.tokenizer
    tot_build = tot_cpu = tot_floor = 0.0
    per_pair: dict[tuple[str, str], float] = {}
    print(f"{'config':28} {'build s':>8} {'cpu s':>8} {'floor s':>8} {'cpu/floor':>9} {'min..max tokens':>18}")
    for lang in args.langs.split(","):
        for task in args.tasks.split(","):
            for length in map(parse_length, args.lengths.split(",")):
                spec = ConfigSpec(lang, task, length, tokenizer_alias=alias)
                w, c = time.perf_counter(), time.process_time()
                rows = list(generator.rows(spec, samples=args.samples))
                build, cpu = time.perf_counter() - w, time.process_time() - c
                c = time.process_time()
                for r in rows:
                    tok.count(r["input"])
                floor = time.process_time() - c
                toks = [r["num_tokens"] for r in rows]
                print(f"{spec.name:28} {build:8.2f} {cpu:8.2f} {floor:8.2f} {cpu / floor:9.2f} {min(toks):>8}..{max(toks):<8}", flush=True)
                tot_build += build
                tot_cpu += cpu
                tot_floor += floor
                per_pair[(lang, task)] = per_pair.get((lang, task), 0.0) + build
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\ntotal: build {tot_build:.1f}s wall, {tot_cpu:.1f}s CPU; floor {tot_floor:.1f}s CPU; "
          f"cpu/floor {tot_cpu / tot_floor:.2f}; peak RSS {rss_mb:.0f} MB")
    worst = max(per_pair.items(), key=lambda kv: kv[1])
    print(f"slowest (lang, task) over the lengths built: {worst[0]} {worst[1]:.1f}s")


if __name__ == "__main__":
    main()
