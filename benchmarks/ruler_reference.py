"""RULER's own generators, run here from the pinned mirror: the reference our RULER configs are compared with.

    python benchmarks/ruler_reference.py --tasks niah_single_2,vt,cwe,fwe --lengths 8192 --samples 5 \
        --out /tmp/ruler-reference

Nothing of RULER's code is copied into the project: a temporary workspace gets RULER's ``scripts/``
folder from the pinned mirror (the folder of ``ONERULER_MIRROR`` that holds
``scripts/data/synthetic/niah.py``, i.e. ``../shared/ruler-upstream``), and RULER's ``prepare.py``
runs there as RULER's README says (``--tokenizer_type openai --tokenizer_path cl100k_base``, its
``base`` template, seed 42), one process per (task, length). What RULER downloads at run time is put
in place from the project's verified sources instead:

- ``json/PaulGrahamEssays.json``: the 49 pinned essays, concatenated in sorted order as RULER's
  download script does (RULER's own file continues with essays scraped live from paulgraham.com,
  which cannot be pinned; up to 131072 tokens the 49 essays suffice, see docs/generation.md);
- NLTK's ``punkt_tab`` (for ``sent_tokenize``): the pinned ``punkt_tab.zip``, extracted into
  ``NLTK_DATA``;
- ``json/english_words.json``, ``json/squad.json``, ``json/hotpotqa.json``: the pinned files when the
  source cache or the mirror has them; otherwise the tasks that need them are skipped and said so
  (CWE draws from ``english_words.json`` only once wonderwords' 8,166 words run out, i.e. at long lengths:
  without it RULER's cwe.py gets an empty one and is run anyway; here it runs up to 65536 tokens and at 131072
  fails with its own ``ValueError: Sample larger than population``, reported as the config's error;
  ``--squad-from-xquad`` gives RULER's ``qa.py`` XQuAD's English file with ``is_impossible: false``
  added, so its QA rule can be run here without SQuAD).

Prints one JSON line per config (task, length, samples, wall and CPU seconds of RULER's generator, the fill of
each row: RULER's ``length`` over the budget) and leaves RULER's ``validation.jsonl`` files under
``--out`` for ``benchmarks/ruler_fidelity.py``. Needs nltk, wonderwords, numpy, scipy, tenacity,
tiktoken (the test extra has them) and, offline, ``TIKTOKEN_CACHE_DIR``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from builders.sources.fetch import fetch_sources  # noqa: E402
from builders.sources.mirror import MissingSource  # noqa: E402
from builders.sources.ruler.pins import entries_of_role, ruler_manifest  # noqa: E402

RULER_TASKS = ("niah_single_1", "niah_single_2", "niah_single_3", "niah_multikey_1", "niah_multikey_2",
               "niah_multikey_3", "niah_multivalue", "niah_multiquery", "vt", "cwe", "fwe", "qa_1", "qa_2")
RULER_LENGTHS = (4096, 8192, 16384, 32768, 65536, 131072)
# The runtime files RULER's generators read from scripts/data/synthetic/json/, by the pinned kind giving them.
OPTIONAL_INPUTS = {"english_words.json": "ruler_english_words", "squad.json": "squad", "hotpotqa.json": "hotpotqa"}
NEEDS = {"cwe": "english_words.json", "qa_1": "squad.json", "qa_2": "hotpotqa.json"}


def ruler_scripts() -> Path:
    """RULER's ``scripts/`` folder in the mirror (the ONERULER_MIRROR folder holding its generators)."""
    for part in os.environ.get("ONERULER_MIRROR", "").split(os.pathsep):
        scripts = Path(part).expanduser() / "scripts"
        if (scripts / "data" / "synthetic" / "niah.py").is_file():
            return scripts
    sys.exit("error: no folder of ONERULER_MIRROR holds RULER's scripts/data/synthetic/niah.py "
             "(add ../shared/ruler-upstream)")


def pinned_blobs(role: str) -> list[tuple[str, Path]]:
    """(upstream path, verified cached blob) of every pinned file of a role; [] when a file is missing."""
    entries = entries_of_role(ruler_manifest(), role)
    try:
        report = fetch_sources(entries, progress=False)
    except MissingSource:
        return []
    return [(e.path, report.paths[e.path]) for e in entries]


def write_workspace(work: Path, squad_from_xquad: bool) -> set[str]:
    """RULER's scripts plus its runtime inputs from verified sources; returns the optional inputs present."""
    shutil.copytree(ruler_scripts(), work / "scripts")
    json_dir = work / "scripts" / "data" / "synthetic" / "json"
    essays = sorted(pinned_blobs("essay"), key=lambda item: Path(item[0]).name)
    if not essays:
        sys.exit("error: the pinned essays are not in the mirror (add ../shared/needle-haystack-upstream)")
    text = "".join(path.read_text(encoding="utf-8") for _, path in essays)  # RULER: f.read() in text mode
    (json_dir / "PaulGrahamEssays.json").write_text(json.dumps({"text": text}), encoding="utf-8")
    punkt = pinned_blobs("punkt")
    if not punkt:
        sys.exit("error: punkt_tab.zip is not in the mirror (scripts/punkt_mirror.py makes a folder holding it)")
    with zipfile.ZipFile(punkt[0][1]) as archive:
        archive.extractall(work / "nltk_data" / "tokenizers")
    present = set()
    for name, kind in OPTIONAL_INPUTS.items():
        blobs = pinned_blobs(kind)
        if blobs:
            shutil.copyfile(blobs[0][1], json_dir / name)
            present.add(name)
    if "english_words.json" not in present:  # RULER's cwe.py loads it at start; it draws from it only past 8,166 words
        (json_dir / "english_words.json").write_text("{}", encoding="utf-8")
    if "squad.json" not in present and squad_from_xquad:
        xquad = dict(pinned_blobs("xquad")).get("xquad.en.json")
        if xquad is not None:
            (json_dir / "squad.json").write_text(json.dumps(with_is_impossible(xquad)), encoding="utf-8")
            present.add("squad.json")
    return present


def with_is_impossible(path: Path) -> dict:
    """XQuAD's English file (SQuAD v1.1 format) with ``is_impossible: false`` on every question, as v2.0 has."""
    doc = json.loads(path.read_text(encoding="utf-8"))
    for article in doc["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                qa["is_impossible"] = False
    return doc


def children_cpu() -> float:
    """User + system CPU seconds of this process's finished children (RULER's prepare.py and what it starts)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def error_line(output: str) -> list[str]:
    """The exception of a failed RULER run (prepare.py prints its task script's traceback to stdout; NLTK's
    refused downloads go to stderr), else the output's last line."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    errors = [line for line in lines if re.match(r"[A-Za-z_.]*(Error|Exception)\b", line)]
    return (errors or lines)[-1:]


def run_config(work: Path, out: Path, task: str, length: int, samples: int) -> dict:
    """Run RULER's prepare.py for one (task, length); its time and the fill of each row."""
    env = {**os.environ, "NLTK_DATA": str(work / "nltk_data"), "PYTHONHASHSEED": "0"}
    save = out / str(length)
    command = [sys.executable, "prepare.py", "--save_dir", str(save), "--task", task, "--tokenizer_path",
               "cl100k_base", "--tokenizer_type", "openai", "--max_seq_length", str(length),
               "--num_samples", str(samples), "--model_template_type", "base"]
    cpu_before, started = children_cpu(), time.perf_counter()
    done = subprocess.run(command, cwd=work / "scripts" / "data", env=env, capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - started, children_cpu() - cpu_before
    rows_file = save / task / "validation.jsonl"
    if done.returncode != 0 or not rows_file.is_file():
        return {"task": task, "length": length, "error": error_line(done.stdout + "\n" + done.stderr)}
    rows = [json.loads(line) for line in rows_file.read_text(encoding="utf-8").splitlines()]
    fills = [row["length"] / length for row in rows]
    return {"task": task, "length": length, "samples": len(rows), "seconds": round(seconds, 2),
            "cpu_seconds": round(cpu, 2),
            "fill_min": round(min(fills), 4), "fill_mean": round(sum(fills) / len(fills), 4),
            "fill_max": round(max(fills), 4), "file": str(rows_file)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tasks", default=",".join(RULER_TASKS))
    ap.add_argument("--lengths", default="8192")
    ap.add_argument("--samples", type=int, default=5)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--squad-from-xquad", action="store_true", help="run qa_1 on XQuAD's English file")
    args = ap.parse_args()
    tasks = [t for t in args.tasks.split(",") if t]
    unknown = sorted(set(tasks) - set(RULER_TASKS))
    if unknown:
        sys.exit(f"error: unknown RULER task(s) {', '.join(unknown)}; valid: {', '.join(RULER_TASKS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="ruler-reference-") as tmp:
        work = Path(tmp)
        present = write_workspace(work, args.squad_from_xquad)
        for length in (int(x) for x in args.lengths.split(",")):
            for task in tasks:
                needed = NEEDS.get(task)
                if needed and needed not in present and task != "cwe":  # RULER's CWE: tried, its error reported
                    print(json.dumps({"task": task, "length": length, "skipped": f"{needed} is not available"}))
                    continue
                print(json.dumps(run_config(work, args.out, task, length, args.samples)), flush=True)


if __name__ == "__main__":
    main()
