"""RULER's English tasks: our rows beside RULER's own generator's, read back by RULER's rules, and the speed of both.

    ONERULER_MIRROR=... TIKTOKEN_CACHE_DIR=... python benchmarks/ruler_fidelity.py --lengths 8192 \\
        --also 32768:niah_single_1,niah_single_2,niah_multikey_3,vt,cwe,fwe,qa_1 --samples 3 --grid-samples 50 \\
        --ruler-extrapolate --redraws --out /tmp/ruler-fidelity

1. RULER's generator (``benchmarks/ruler_reference.py``: its ``prepare.py`` from the pinned mirror, tiktoken cl100k,
   its ``base`` template, seed 42), one process per (task, length) as RULER runs it. SQuAD and HotpotQA are not on
   this machine: RULER's ``qa.py`` gets XQuAD's English file as SQuAD (``--squad-from-xquad``) and ours reads the
   same bytes (a temporary manifest pins them); ``qa_2`` (HotpotQA) runs on neither side. Without
   ``english_words.json`` RULER's CWE runs up to 65536 tokens (at 131072 its size search samples past wonderwords'
   8,166 words and fails: ``ValueError: Sample larger than population``).
2. Ours for the same configs in this process (``RowGenerator.rows``; sources and tokenizer loaded once, timed apart).
3. Every row of both sides read back from its text alone, by the same parser (``ruler_readback.py``), recounted
   with cl100k:
   NIAH: the prompt frame, needle formats and kinds, answers = the queried keys' values, the haystack (noise lines;
   distractor needles and whether one has a real key; essay: the words used, whether the text outside the needles
   is the pinned essays' first N words as RULER splits them, each needle before sentence int(sentences * depth/100));
   VT: statements, the in-context example, answers; CWE: the example's and the task's counts (30/3 against 10/3),
   whether the answer is the 10 words listed most; FWE: the coded words' counts against RULER's Zeta counts
   int(n k^-2 / zeta(2)), the answer = ranks 2-4; QA: the documents, numbered, where the gold one sits; and the
   fill (tokens of input + answer prefix + tokens to generate) / length.
4. ``--grid-samples``: ours for the whole English ``ruler`` grid (the 12 tasks that run here x 6 lengths) in one
   process. ``--ruler-extrapolate``: RULER's generator on the compared configs again at 1 sample, its time at
   ``--grid-samples`` extrapolated per config as t(1) + (n - 1) (t(s) - t(1)) / (s - 1) (its size search is per
   config, each sample then costs about the same), against ours on the same configs at n samples, setup
   included. Superseded by 5: RULER's cost is mostly per process, its slope from 1 and 3 rows on a loaded machine
   is mostly noise: it put 19 configs at 5,601 s where 5 measured 293 s (docs/performance.md).
   ``--redraws``: how often our rules redrew what RULER's draws would repeat (a key, a value, a distractor's key,
   a VT name) in that grid.
5. ``--ruler-measure LENGTHS`` (instead of 1-4): RULER's generator and ours at ``--ruler-samples`` (50) rows on every
   config of ``--tasks`` at these lengths, measured, not extrapolated: per config RULER's process (wall and CPU
   seconds, its children included) and then ours in this process (wall and CPU seconds, setup timed apart), and
   both sides' fill recounted the same way (cl100k, as in 3). Tasks whose source is missing are skipped and said
   so (CWE past 16384 without ``english_words.json``). Run it under ``nice`` on a shared machine, one length per
   run if time is short (each config's line goes to stderr as it finishes); the whole grid took 24-31 min here:

    nice -n 10 python benchmarks/ruler_fidelity.py --ruler-measure 4096,8192,16384,32768,65536,131072 \\
        --ruler-samples 50 --out /tmp/ruler-speed

Prints Markdown tables (docs/generation.md and docs/performance.md quote them), writes ``--out/fidelity.json``
(``--out/measure.json`` with ``--ruler-measure``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

from ruler_readback import ENC, HERE, NIAH, RESERVE, Reader, facts_of  # noqa: E402
from ruler_reference import RULER_LENGTHS, run_config, write_workspace  # noqa: E402

from builders.base.files import sha256_bytes  # noqa: E402
from builders.generate.rows import RowGenerator  # noqa: E402
from builders.sources.manifest import SourceFile  # noqa: E402
from builders.sources.ruler.pins import ruler_manifest  # noqa: E402
from builders.sources.ruler.store import RulerSources  # noqa: E402
from builders.sources.store import load_sources  # noqa: E402
from builders.spec.configs import ConfigSpec  # noqa: E402


def our_sources(work: Path):
    """ONERULER's sources with RULER's inputs; SQuAD = the bytes RULER's workspace got (XQuAD-en as SQuAD v2.0)."""
    data = (work / "scripts/data/synthetic/json/squad.json").read_bytes()
    mirror = work / "squad-mirror"
    (mirror / "dataset").mkdir(parents=True, exist_ok=True)
    (mirror / "dataset/dev-v2.0.json").write_bytes(data)
    entries = [e for e in ruler_manifest() if e.role != "squad"]
    entries.append(SourceFile("dataset/dev-v2.0.json", sha256_bytes(data), len(data), "squad", "en", "benchmark",
                              urls=("https://example.invalid/dev-v2.0.json",)))
    sources = load_sources()
    sources.ruler = RulerSources(os.pathsep.join([str(mirror), os.environ.get("ONERULER_MIRROR", "")]),
                                 work / "cache", False, entries)
    return sources


def ours(generator: RowGenerator, task: str, length: int, samples: int) -> tuple[list[dict], float]:
    started = time.perf_counter()
    rows = list(generator.rows(ConfigSpec("en", f"ruler_{task}", length), samples))
    seconds = time.perf_counter() - started
    return [{"input": r["input"], "outputs": r["answers"], "answer_prefix": r["answer_prefix"], "length": length}
            for r in rows], seconds


def theirs(work: Path, out: Path, task: str, length: int, samples: int) -> tuple[list[dict] | None, dict]:
    done = run_config(work, out, task, length, samples)
    print(json.dumps(done), file=sys.stderr, flush=True)
    if "error" in done:
        return None, done
    rows = [json.loads(line) for line in Path(done["file"]).read_text(encoding="utf-8").splitlines()]
    return [{**r, "length": length} for r in rows], done


def summary(facts: list[dict]) -> dict:
    """A config's facts: checks as passed/rows, units and fill as min/mean/max, depths as a sorted set."""
    out = {"rows": len(facts)}
    for key in facts[0]:
        values = [f[key] for f in facts]
        if isinstance(values[0], bool):
            out[key] = f"{sum(values)}/{len(values)}"
        elif key == "gold_depth":
            out[key] = sorted({v for v in values if v is not None})
        else:
            known = [v for v in values if v is not None]
            out[key] = [round(min(known), 4), round(statistics.mean(known), 4), round(max(known), 4)] if known else None
    return out


def table(header: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    return "\n".join(out + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])


def pct(span: list[float] | None) -> str:
    return "—" if span is None else f"{100 * span[0]:.1f} / {100 * span[1]:.1f}"


def fidelity_rows(results: list[dict]) -> list[list]:
    rows = []
    for r in results:
        rf, of = r.get("ruler"), r["ours"]
        checks = [k for k in of if k not in ("rows", "fill", "units", "gold_depth")]
        rows.append([f"`{r['task']}`", r["length"], pct(rf["fill"]) if rf else "RULER failed", pct(of["fill"]),
                     f"{rf['units'][1]:,.0f}" if rf and rf.get("units") else "—", f"{of['units'][1]:,.0f}",
                     "; ".join(f"{k} {rf.get(k, '—') if rf else '—'} / {of[k]}" for k in checks)
                     + (f"; gold depths {rf['gold_depth'] if rf else '—'} / {of['gold_depth']}" if "gold_depth" in of
                        else "")])
    return rows


def redraws(generator: RowGenerator, tasks: tuple[str, ...], samples: int) -> dict:
    """How often our rules redrew what RULER's draws would repeat, over the grid of ``tasks`` at ``samples`` rows."""
    from builders.generate.material import RowMaterial
    from builders.generate.rng import StableRng
    from builders.generate.ruler.haystacks import DistractorHaystack
    from builders.generate.ruler.niah import draw_niah, frame_of
    from builders.generate.ruler.vt import LETTERS, draw_chains, in_context_example, renamed
    from builders.spec.tasks import get_task

    counts = {"rows": 0, "key_or_value": 0, "distractor_key": 0, "vt_names": 0, "vt_example_renames": 0}
    ruler = generator.sources.ruler
    for task in (t for t in tasks if t in (*NIAH, "vt")):
        args, record = dict(ruler.tasks.setting(task).args), get_task(f"ruler_{task}")
        for length in RULER_LENGTHS:
            spec = ConfigSpec("en", record.name, length)
            material = RowMaterial(generator.sources, generator.tokenizer_for(spec), generator.prepared)
            for row in generator.rows(spec, samples):
                counts["rows"] += 1
                if task == "vt":
                    rng = StableRng("ruler-vt", 42, record.name, length, row["index"])
                    counts["vt_names"] += draw_chains(rng, args, LETTERS, None).rejected
                    counts["vt_example_renames"] += renamed(in_context_example(spec, record, args, 42, material), rng)[1]
                    continue
                draw = draw_niah(record, args, material, length, row["index"], 42)
                counts["key_or_value"] += draw.rejected
                if args["type_haystack"] == "needle":
                    hay = DistractorHaystack(args, spec, record, row["index"], 42, draw,
                                             frame_of(record, args, material, draw), material)
                    hay.units_before(row["num_units"] + 1)
                    counts["distractor_key"] += hay.redrawn[row["num_units"]]
    return counts


def grid_speed(args, work: Path, generator: RowGenerator, setup: float, results: list[dict]) -> dict:
    """Ours over the English grid in one process; on the configs compared, RULER's generator at 50 samples
    extrapolated from its runs at 1 and ``--samples`` samples, against ours at 50 (setup included)."""
    per: dict[str, float] = {}
    started = time.perf_counter()
    for task in HERE:
        for length in RULER_LENGTHS:
            per[f"{task}_{length}"] = ours(generator, task, length, args.grid_samples)[1]
    doc = {"configs": len(per), "samples": args.grid_samples,
           "ours_seconds": round(time.perf_counter() - started + setup, 1)}
    if args.ruler_extrapolate and args.samples > 1:
        theirs_50, ours_50 = {}, {}
        for r in (r for r in results if r["ruler_seconds"] is not None):
            name = f"{r['task']}_{r['length']}"
            one = run_config(work, args.out / "ruler1", r["task"], r["length"], 1)
            if "error" in one or name not in per:
                continue
            slope = max(0.0, (r["ruler_seconds"] - one["seconds"]) / (args.samples - 1))
            theirs_50[name] = one["seconds"] + (args.grid_samples - 1) * slope
            ours_50[name] = per[name]
            print(json.dumps({"config": name, "ruler_1": one["seconds"], f"ruler_{args.samples}": r["ruler_seconds"],
                              "ruler_extrapolated": round(theirs_50[name], 1), "ours": round(per[name], 3)}),
                  file=sys.stderr, flush=True)
        doc["extrapolated"] = {"configs": len(theirs_50), "ruler_seconds": round(sum(theirs_50.values()), 1),
                               "ours_seconds": round(sum(ours_50.values()) + setup, 1),
                               "per_config": {k: [round(theirs_50[k], 1), round(ours_50[k], 3)] for k in theirs_50}}
    return doc


def fill_of(task: str, rows: list[dict]) -> list[float]:
    """Each row's fill as 3 counts it: tokens of input + answer prefix + tokens to generate, over the length."""
    return [(len(ENC.encode_ordinary(r["input"] + r["answer_prefix"])) + RESERVE[task]) / r["length"] for r in rows]


def measure(args, work: Path, present: set[str], generator: RowGenerator, setup: float, setup_cpu: float) -> dict:
    """RULER's generator and ours at ``--ruler-samples`` rows on every config of ``--tasks`` x ``--ruler-measure``."""
    from ruler_reference import NEEDS

    results, skipped = [], []
    for length in (int(n) for n in args.ruler_measure.split(",") if n):
        for task in (t for t in args.tasks.split(",") if t):
            needed = NEEDS.get(task)
            if needed and needed not in present and task != "cwe":  # RULER's CWE: tried, its error reported
                skipped.append({"task": task, "length": length, "skipped": f"{needed} is not available"})
                print(json.dumps(skipped[-1]), file=sys.stderr, flush=True)
                continue
            rows, done = theirs(work, args.out / "ruler", task, length, args.ruler_samples)
            cpu = time.process_time()
            mine, seconds = ours(generator, task, length, args.ruler_samples)
            cpu = time.process_time() - cpu
            theirs_fill, ours_fill = fill_of(task, rows) if rows else None, fill_of(task, mine)
            results.append({"task": task, "length": length, "rows": len(mine), "ruler_rows": done.get("samples"),
                            "ruler_seconds": done.get("seconds"), "ruler_cpu_seconds": done.get("cpu_seconds"),
                            "ours_seconds": round(seconds, 3), "ours_cpu_seconds": round(cpu, 3),
                            "ruler_fill": [round(min(theirs_fill), 4), round(statistics.mean(theirs_fill), 4)]
                            if theirs_fill else None,
                            "ours_fill": [round(min(ours_fill), 4), round(statistics.mean(ours_fill), 4)],
                            "error": done.get("error")})
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
    return {"samples": args.ruler_samples, "setup_seconds": round(setup, 2), "setup_cpu_seconds": round(setup_cpu, 2),
            "configs": results, "skipped": skipped}


def measure_tables(doc: dict) -> str:
    """Per config and per length: RULER's seconds against ours (setup counted once per length), and the fills."""
    setup, setup_cpu = doc["setup_seconds"], doc["setup_cpu_seconds"]
    configs = [r for r in doc["configs"] if r["ruler_seconds"] is not None and not r["error"]]
    per = []
    for r in configs:
        wall, cpu = r["ruler_seconds"] / r["ours_seconds"], r["ruler_cpu_seconds"] / max(r["ours_cpu_seconds"], 1e-3)
        per.append([f"`{r['task']}`", r["length"], f"{r['ruler_seconds']:,.1f} / {r['ruler_cpu_seconds']:,.1f}",
                    f"{r['ours_seconds']:.3f} / {r['ours_cpu_seconds']:.3f}", f"{wall:,.0f}× / {cpu:,.0f}×",
                    pct(r["ruler_fill"]), pct(r["ours_fill"]), f"{r['ours_fill'][1] / r['ruler_fill'][1]:.3f}"])
    out = [table(["task", "length", "RULER wall / CPU s", "ours wall / CPU s", "ratio wall / CPU",
                  "RULER fill min / mean %", "ours fill min / mean %", "fill ratio (means, ours / RULER)"], per)]
    totals = []
    lengths = sorted({r["length"] for r in configs})
    for length in lengths + (["all"] if len(lengths) > 1 else []):  # "all": one process, its setup counted once
        here = [r for r in configs if length in ("all", r["length"])]
        ruler_s, ruler_cpu = sum(r["ruler_seconds"] for r in here), sum(r["ruler_cpu_seconds"] for r in here)
        rows_s, rows_cpu = sum(r["ours_seconds"] for r in here), sum(r["ours_cpu_seconds"] for r in here)
        totals.append([length, len(here), sum(r["ruler_rows"] for r in here), f"{ruler_s:,.1f} / {ruler_cpu:,.1f}",
                       f"{rows_s + setup:.1f} / {rows_cpu + setup_cpu:.1f} ({rows_s:.2f} / {rows_cpu:.2f} + setup "
                       f"{setup:.1f} / {setup_cpu:.1f})", f"{ruler_s / (rows_s + setup):,.0f}× / "
                       f"{ruler_cpu / (rows_cpu + setup_cpu):,.0f}×", f"{ruler_s / max(rows_s, 1e-9):,.0f}× / "
                       f"{ruler_cpu / max(rows_cpu, 1e-9):,.0f}×",
                       f"{statistics.mean(r['ruler_fill'][1] for r in here) * 100:.1f} / "
                       f"{statistics.mean(r['ours_fill'][1] for r in here) * 100:.1f}"])
    out.append(table(["length", "configs", "rows", "RULER wall / CPU s", "ours wall / CPU s (rows + setup)",
                      "ratio wall / CPU (ours with setup)", "ratio wall / CPU (rows only)", "mean fill % RULER / ours"],
                     totals))
    tasks = list(dict.fromkeys(r["task"] for r in configs))
    cell = {(r["task"], r["length"]): r for r in configs}
    cpu = [[f"`{t}`", *(f"{c['ruler_cpu_seconds']:.1f} / {c['ours_cpu_seconds']:.2f} "
                        f"({c['ruler_cpu_seconds'] / max(c['ours_cpu_seconds'], 1e-3):,.0f}×)"
                        if (c := cell.get((t, n))) else "—" for n in lengths)] for t in tasks]
    fill = [[f"`{t}`", *(f"{100 * c['ruler_fill'][1]:.1f} / {100 * c['ours_fill'][1]:.1f} "
                         f"({c['ours_fill'][1] / c['ruler_fill'][1]:.3f})" if (c := cell.get((t, n))) else "—"
                         for n in lengths)] for t in tasks]
    out.append(table(["CPU s, RULER / ours (ratio)", *map(str, lengths)], cpu))
    out.append(table(["mean fill %, RULER / ours (ours / RULER)", *map(str, lengths)], fill))
    failed = [f"{r['task']}_{r['length']}: RULER failed: {' '.join(r['error'])}" for r in doc["configs"] if r["error"]]
    notes = [f"{s['task']}_{s['length']}: {s['skipped']}" for s in doc["skipped"]] + failed
    return "\n\n".join(out) + ("\n\nnot measured: " + "; ".join(notes) if notes else "")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default=",".join(HERE))
    ap.add_argument("--lengths", default="8192")
    ap.add_argument("--also", default="", help="LENGTH:task,task… one more length for a few tasks")
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--grid-samples", type=int, default=0, help="ours over the whole English ruler grid (0: not)")
    ap.add_argument("--ruler-extrapolate", action="store_true",
                    help="RULER at 1 sample on the compared configs too; its 50-sample time extrapolated")
    ap.add_argument("--redraws", action="store_true", help="count our redraws over the grid at --grid-samples")
    ap.add_argument("--ruler-measure", default="", metavar="LENGTHS",
                    help="only measure: RULER's generator and ours at --ruler-samples rows, each task at these lengths")
    ap.add_argument("--ruler-samples", type=int, default=50, help="rows per config for --ruler-measure")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    configs = [(t, int(n)) for n in args.lengths.split(",") for t in args.tasks.split(",") if t]
    if args.also:
        length, tasks = args.also.split(":")
        configs += [(t, int(length)) for t in tasks.split(",") if t]
    with tempfile.TemporaryDirectory(prefix="ruler-fidelity-") as tmp:
        work = Path(tmp)
        present = write_workspace(work, squad_from_xquad=True)
        started, cpu_started = time.perf_counter(), time.process_time()
        sources = our_sources(work)
        generator = RowGenerator(sources)
        generator.tokenizer_for(ConfigSpec("en", "ruler_fwe", 4096)).count("warm")
        sources.ruler.tasks, sources.ruler.cwe_words, sources.ruler.squad  # noqa: B018 (read once, timed as setup)
        ours(generator, "niah_single_2", 4096, 1)  # the essays split by Punkt once per process, timed as setup
        setup, setup_cpu = time.perf_counter() - started, time.process_time() - cpu_started
        if args.ruler_measure:
            doc = measure(args, work, present, generator, setup, setup_cpu)
            print(measure_tables(doc))
            (args.out / "measure.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
            return
        reader = Reader(sources.ruler)
        results = []
        for task, length in configs:
            mine, seconds = ours(generator, task, length, args.samples)
            rows, done = theirs(work, args.out / "ruler", task, length, args.samples)
            results.append({"task": task, "length": length, "ours_seconds": round(seconds, 3),
                            "ruler_seconds": done.get("seconds"), "ours": summary(facts_of(task, mine, reader)),
                            "ruler": summary(facts_of(task, rows, reader)) if rows else None})
            print(json.dumps(results[-1]), file=sys.stderr, flush=True)
        print(table(["task", "length", "RULER fill min / mean %", "ours min / mean %", "RULER units (mean)",
                     "ours units (mean)", "checks, RULER / ours"], fidelity_rows(results)))
        done = [r for r in results if r["ruler_seconds"] is not None]
        theirs_s, mine_s = sum(r["ruler_seconds"] for r in done), sum(r["ours_seconds"] for r in done) + setup
        print(f"\nthese configs: RULER {theirs_s:.1f} s, ours {mine_s:.1f} s (setup {setup:.1f} s included): "
              f"{theirs_s / mine_s:.0f}x")
        doc = {"samples": args.samples, "setup_seconds": round(setup, 2), "configs": results}
        if args.grid_samples:
            doc["grid"] = grid_speed(args, work, generator, setup, results)
            if args.redraws:
                doc["grid"]["redraws"] = redraws(generator, HERE, args.grid_samples)
            print("\ngrid: " + json.dumps({k: v for k, v in doc["grid"].items() if k != "extrapolated"}))
            print("extrapolated: " + json.dumps({k: v for k, v in doc["grid"].get("extrapolated", {}).items()
                                                 if k != "per_config"}))
    (args.out / "fidelity.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
