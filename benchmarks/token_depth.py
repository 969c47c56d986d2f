"""Where the needles of the position-controlled configs sit in tokens, before and after issue 27.

    python benchmarks/token_depth.py --before /path/to/old/checkout [--after .] [--lengths 8k,128k]
        [--samples 1] [--grid depth|evidence] [--worst 6]

Builds the configs of a sweep grid (``spec/grids.py``; default the depth grid: s_niah ``_at{D}``, 26
languages, and the CROSS pairs) at the given lengths with the code of each checkout, in a subprocess
each (``PYTHONPATH=CHECKOUT``), in one session. For every needle it measures the token depth from the
row's text alone: the context (``context_span``) with the needle sentences taken out (each with one
joiner) is the haystack; the needle's token depth is 100 × tokens of the haystack before it / tokens of
the whole haystack, with tiktoken's cl100k_base (``encode_ordinary``; the grids' budget tokenizer) —
not with the project's counting. Prints, per length and over all, the mean and the worst
|token depth − named depth| (named: D of ``_at{D}``, ``100 × (j + 0.5) / K`` for value j of
``mv{K}e_niah``) over the needles at interior depths (0 and 100 are exact under both rules), the
worst needles with what explains them (the tokens of the sentences on either side of the needle, and
how many sentences the needle sits from the boundary nearest its named depth: the quotation rule's
move), the largest difference between the measured and the recorded ``token_depth`` (after), and the
CPU time each checkout spent generating the rows (``RowGenerator.rows``, book preparation included,
measuring excluded) with their ratio.

``--before`` is a checkout of the code before issue 27 (``git worktree add /tmp/before 0a2a92c``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENCODING = "cl100k_base"


def haystack_cuts(context: str, needles: list[str], joiner: str) -> tuple[str, list[int]]:
    """(the haystack: ``context`` without the needle sentences, where each needle stood in it).

    Each needle leaves with the joiner after it (the one before it when it ends the context); its place
    is the haystack's length up to it without a trailing joiner, so ``haystack[:place]`` is the text of
    the sentences before the needle."""
    kept, places, cursor = "", [], 0
    for text in needles:
        at = context.index(text, cursor)
        kept += context[cursor:at]
        places.append(len(kept) - len(joiner) if joiner and kept.endswith(joiner) else len(kept))
        cursor = at + len(text)
        if joiner and context.startswith(joiner, cursor):
            cursor += len(joiner)
        elif joiner and kept.endswith(joiner):
            kept = kept[:-len(joiner)]
    return kept + context[cursor:], places


def named_depths(spec, needles: int) -> list[Fraction]:
    """The depth each needle is meant to sit at: D of ``_at{D}``, else value j of K evenly spaced."""
    if spec.depth is not None:
        return [Fraction(spec.depth)] * needles
    return [Fraction(100 * (2 * j + 1), 2 * needles) for j in range(needles)]


def sentence_offsets(sentences: list[str], joiner: str) -> dict[int, int]:
    """Character offset in the joined haystack of the end of the first b sentences → b."""
    offsets, end = {0: 0}, 0
    for b, s in enumerate(sentences, start=1):
        end += len(s) + (len(joiner) if b > 1 else 0)
        offsets[end] = b
    return offsets


def explain(sentences: list[str], b: int, target: float, before: int, count) -> dict:
    """The tokens of the sentences either side of boundary b (``before`` tokens precede it) and how many
    sentences b lies after (+) or before (-) the boundary nearest ``target`` tokens, walking toward it."""
    here, tokens, step = b, before, 1 if before < target else -1
    while 0 <= here + step <= len(sentences):
        moved = tokens + step * count(sentences[here if step > 0 else here - 1])
        if abs(moved - target) >= abs(tokens - target):
            break
        here, tokens = here + step, moved
    return {"width_before": count(sentences[b - 1]) if b else 0,
            "width_after": count(sentences[b]) if b < len(sentences) else 0, "from_nearest": b - here}


def worker(args) -> None:
    """Build and measure with the code on ``sys.path`` (one checkout); one JSON line per needle, then totals."""
    import tiktoken

    from builders.generate.rows import RowGenerator
    from builders.sources.store import load_sources
    from builders.spec.grids import grid_configs
    from builders.spec.configs import render_length
    from builders.spec.languages import get_language

    enc = tiktoken.get_encoding(ENCODING)

    def count(text: str) -> int:
        return len(enc.encode_ordinary(text))

    lengths = set(args.lengths.split(","))
    specs = [s for s in grid_configs(args.grid) if render_length(s.length) in lengths]
    generator, build_cpu, out = RowGenerator(load_sources()), 0.0, open(args.jsonl, "w", encoding="utf-8")
    for spec in specs:
        started = time.process_time()
        rows = list(generator.rows(spec, samples=args.samples))
        build_cpu += time.process_time() - started
        lang = get_language(spec.context_language)
        template = generator.sources.niah_template(lang.code)["needle_numbers"]
        book = generator.prepared.book(lang.code, generator.tokenizer_for(spec))
        for row in rows:
            texts = [template.replace("{key}", n["key"]).replace("{value}", n["value"]).rstrip() + lang.full_stop
                     for n in row["needles"]]
            haystack, places = haystack_cuts(row["input"][slice(*row["context_span"])], texts, lang.joiner)
            sentences = book.take(row["num_units"])
            assert haystack == lang.joiner.join(sentences), row["id"]  # the haystack is the book's first sentences
            offsets, total = sentence_offsets(sentences, lang.joiner), count(haystack)
            measured = {c: count(haystack[:c]) for c in set(places)}
            for needle, place, named in zip(row["needles"], places, named_depths(spec, len(texts))):
                depth = 100 * measured[place] / total
                line = {"config": spec.name, "index": row["index"], "length": render_length(spec.length),
                        "named": float(named), "token_depth": depth, "recorded": needle.get("token_depth"),
                        "actual_depth": needle["actual_depth"]}
                if 0 < named < 100:
                    line.update(explain(sentences, offsets[place], float(named) * total / 100, measured[place], count))
                out.write(json.dumps(line) + "\n")
    out.close()
    print(json.dumps({"configs": len(specs), "build_cpu": build_cpu}))


def error(x: dict) -> float:
    """|token depth − named depth| of a measured needle, in points."""
    return abs(x["token_depth"] - x["named"])


def summary(lines: list[dict], length: str | None) -> tuple[float, dict]:
    """Mean |token depth − named| over interior needles (of one length, or all) and the worst needle."""
    chosen = [x for x in lines if 0 < x["named"] < 100 and (length is None or x["length"] == length)]
    return statistics.fmean(map(error, chosen)), max(chosen, key=error)


def describe(x: dict) -> str:
    """One worst needle and what explains it: a move past unsafe boundaries, or the sentences around it."""
    moved = x["from_nearest"]
    why = (f"{abs(moved)} sentence(s) {'after' if moved > 0 else 'before'} the boundary nearest the named depth"
           if moved else "at the boundary nearest the named depth")
    return (f"{x['config']}/{x['index']}: named {x['named']:g}, token depth {x['token_depth']:.1f} "
            f"({x['token_depth'] - x['named']:+.1f}); {why}; sentences either side {x['width_before']} and "
            f"{x['width_after']} tokens")


def run(code: Path, args, jsonl: Path) -> dict:
    """The worker under ``code``'s builders package; its totals."""
    cmd = [sys.executable, __file__, "--worker", "--jsonl", str(jsonl), "--grid", args.grid,
           "--lengths", args.lengths, "--samples", str(args.samples)]
    env = dict(os.environ, PYTHONPATH=str(code.resolve()))
    result = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if result.returncode:
        sys.exit(f"error: the worker under {code} failed:\n{result.stderr}")
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", type=Path, help="checkout of the code before issue 27")
    ap.add_argument("--after", type=Path, default=REPO)
    ap.add_argument("--lengths", default="8k,128k")
    ap.add_argument("--samples", type=int, default=1)
    ap.add_argument("--grid", default="depth", choices=("depth", "evidence"))
    ap.add_argument("--worst", type=int, default=6, help="worst needles listed per rule")
    ap.add_argument("--out", type=Path, default=Path("/tmp/token-depth"), help="folder of the per-needle JSONL")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--jsonl", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        return worker(args)
    if args.before is None:
        ap.error("--before CHECKOUT is required")
    args.out.mkdir(parents=True, exist_ok=True)
    totals, lines = {}, {}
    for name, code in (("before", args.before), ("after", args.after)):
        totals[name] = run(code, args, args.out / f"{name}.jsonl")
        lines[name] = [json.loads(x) for x in (args.out / f"{name}.jsonl").open(encoding="utf-8")]
    print(f"{args.grid} grid at {args.lengths}, {args.samples} sample(s) per config, {totals['after']['configs']} configs; "
          f"|token depth - named depth| in points over interior depths")
    print("| length | before: mean | before: worst | after: mean | after: worst |\n|---|---:|---|---:|---|")
    for length in [*args.lengths.split(","), None]:
        cells = []
        for name in ("before", "after"):
            mean, worst = summary(lines[name], length)
            cells += [f"{mean:.2f}", f"{worst['token_depth'] - worst['named']:+.1f} (`{worst['config']}`)"]
        print(f"| {length or 'all'} | " + " | ".join(cells) + " |")
    for name in ("before", "after"):
        worst: dict[str, dict] = {}  # the worst needle of each config
        for x in lines[name]:
            if 0 < x["named"] < 100 and (x["config"] not in worst or error(x) > error(worst[x["config"]])):
                worst[x["config"]] = x
        print(f"\nworst configs {name}:")
        for x in sorted(worst.values(), key=error, reverse=True)[:args.worst]:
            print("  " + describe(x))
    recorded = [abs(x["token_depth"] - x["recorded"]) for x in lines["after"] if x["recorded"] is not None]
    if recorded:
        print(f"\nrecorded token_depth against the measured one (after): {len(recorded)} needles, "
              f"largest difference {max(recorded):.2e} points")
    b, a = totals["before"]["build_cpu"], totals["after"]["build_cpu"]
    print(f"generation CPU: before {b:.1f} s, after {a:.1f} s, after / before {a / b:.2f}")


if __name__ == "__main__":
    main()
