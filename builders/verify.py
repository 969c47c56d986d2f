"""``oneruler verify DIR``: prove an export folder is what its manifest says, by rebuilding it.

1. every shard against the manifest's size and sha256 (fast; also what ``oneruler push`` checks);
2. ``README.md`` against the card rendered from the manifest;
3. the sources: every recorded source file must be available with the recorded sha256;
4. the tokenizers: each recorded alias must load and have the recorded identity and fingerprint;
5. every config rebuilt from its recorded inputs (seed, samples, tokenizer) into a temporary folder,
   reported per config as identical or not.

Exit 0 when everything matches, 1 on any difference, missing source or wrong/unavailable tokenizer.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import click

from .commands import source_options
from .errors import CheckFailed, OneRulerError, cli_errors
from .export import (
    README_NAME,
    BuildInputs,
    ShardInfo,
    _Progress,
    check_shards,
    generator_fingerprint,
    parse_tokenizer_options,
    read_manifest,
    run_jobs,
)
from .tokenizer import BUILTIN_SPECS


@dataclass
class VerifyReport:
    """Per-config outcome plus folder-level problems."""

    results: dict[str, str] = field(default_factory=dict)  # config -> "identical" or what differs
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems and all(v == "identical" for v in self.results.values())


def verify_export(out_dir: str, *, mirror: str | None = None, cache_dir: str | None = None, num_proc: int = 1,
                  tokenizer_overrides: dict[str, str] | None = None, checksums_only: bool = False,
                  progress: bool = True, log: Callable[[str], None] | None = None) -> VerifyReport:
    """Check and rebuild an export folder; see the module docstring for the steps."""
    from .card import render_readme

    log = log or (lambda msg: click.echo(msg))
    out = Path(out_dir)
    manifest = read_manifest(out)
    if manifest is None:
        raise OneRulerError(f"{out}: no manifest.json; is this an export folder made by `oneruler build`?")
    configs = manifest["configs"]
    report = VerifyReport()

    # 1. checksums
    for name, why in check_shards(out, manifest).items():
        if why:
            report.results[name] = f"checksum mismatch: {why}"
            log(f"FAIL  {name}: {why}")
    bad_checksums = len(report.results)
    log(f"checksums: {len(configs) - bad_checksums}/{len(configs)} shards match the manifest")

    # 2. README
    readme = out / README_NAME
    if not readme.is_file():
        report.problems.append(f"{README_NAME} is missing")
    elif readme.read_text(encoding="utf-8") != render_readme(manifest):
        report.problems.append(f"{README_NAME} differs from the card rendered from manifest.json")
    for p in report.problems:
        log(f"FAIL  {p}")
    if checksums_only:
        for name in configs:
            report.results.setdefault(name, "identical")
        return report

    # 3. sources and 4. tokenizers
    specs = {}
    for e in configs.values():
        t = e["tokenizer"]
        if t["alias"] not in BUILTIN_SPECS:
            specs[t["alias"]] = t["spec"]
    specs.update(tokenizer_overrides or {})
    try:
        inputs = BuildInputs(mirror, cache_dir, specs)
    except OneRulerError as exc:
        report.problems.append(f"sources unavailable: {exc}")
        log(f"FAIL  sources unavailable: {exc}")
        return report
    current = inputs.sources.file_hashes
    for path, digest in sorted(manifest["sources"].items()):
        if path not in current:
            report.problems.append(f"missing source {path} (recorded sha256 {digest[:16]}…): not in the pinned source set")
        elif current[path] != digest:
            report.problems.append(f"source {path}: recorded sha256 {digest[:16]}… but the available file has {current[path][:16]}…")
    if not report.problems or all(not p.startswith(("missing source", "source ")) for p in report.problems):
        fixes, books = inputs.card_facts()
        if fixes != manifest.get("fixes") or books != manifest.get("books"):
            report.problems.append("the data fixes / book lengths recorded for the card differ from a fresh computation")
    for p in report.problems:
        if p.startswith(("missing source", "source ", "the data fixes")):
            log(f"FAIL  {p}")

    tok_problem: dict[str, str] = {}
    for alias in sorted({e["tokenizer"]["alias"] for e in configs.values()}):
        recorded = next(e["tokenizer"] for e in configs.values() if e["tokenizer"]["alias"] == alias)
        try:
            got = inputs.tokenizer_record(alias)
        except Exception as exc:
            tok_problem[alias] = f"tokenizer {alias} ({recorded['spec']}) unavailable: {exc}"
        else:
            for key in ("identity", "fingerprint"):
                if got.get(key) != recorded.get(key):
                    tok_problem[alias] = (f"tokenizer {alias} ({got.get('spec')}) is not the recorded one: "
                                          f"{key} {got.get(key)!r} != recorded {recorded.get(key)!r}")
                    break
    for why in tok_problem.values():
        report.problems.append(why)
        log(f"FAIL  {why}")
    if any(p.startswith(("missing source", "source ")) for p in report.problems):
        for name in configs:
            report.results.setdefault(name, "not rebuilt: sources differ")
        return report

    # 5. rebuild
    groups: dict[tuple[int, int], list[str]] = defaultdict(list)
    for name, e in sorted(configs.items()):
        if e["tokenizer"]["alias"] in tok_problem:
            report.results.setdefault(name, f"not rebuilt: {tok_problem[e['tokenizer']['alias']]}")
            continue
        groups[(e["samples"], e["seed"])].append(name)
    jobs = [(name, samples, seed) for (samples, seed), names in sorted(groups.items()) for name in names]
    aliases = tuple(specs)
    tmp = Path(tempfile.mkdtemp(prefix="oneruler-verify-"))
    generator = generator_fingerprint()
    bars = _Progress(len(jobs), max((j[1] for j in jobs), default=1), enabled=progress and bool(jobs))

    def finish(info: ShardInfo) -> None:
        recorded = configs[info.config]
        if info.sha256 == recorded["sha256"]:
            outcome = "identical"
        else:
            outcome = f"DIFFERENT: rebuilt sha256 {info.sha256[:16]}… != recorded {recorded['sha256'][:16]}…"
            if recorded.get("generator") != generator:
                outcome += " (the generator code changed since this config was built)"
        report.results.setdefault(info.config, outcome)
        if report.results[info.config] != outcome:
            report.results[info.config] += f"; rebuild {outcome}"
        bars.done(info.config)
        (tmp / info.file).unlink(missing_ok=True)

    try:
        run_jobs(jobs, tmp, aliases, num_proc, inputs, specs, mirror, cache_dir, bars, finish)
    finally:
        bars.close()
        shutil.rmtree(tmp, ignore_errors=True)
    for name in sorted(report.results):
        outcome = report.results[name]
        log(f"{'ok   ' if outcome == 'identical' else 'FAIL '} {name}: {outcome}")
    return report


@click.command("verify")
@click.argument("out_dir", metavar="DIR", type=click.Path(exists=True, file_okay=False))
@click.option("--num-proc", default=1, show_default=True, type=int, help="Configs rebuilt in parallel processes.")
@source_options
@click.option("--tokenizer", "tokenizers", multiple=True, metavar="ALIAS=SPEC",
              help="Where to find a recorded tokenizer if its spec moved (its fingerprint must still match).")
@click.option("--checksums-only", is_flag=True, help="Only check shards and README against the manifest.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@cli_errors
def verify_command(out_dir, num_proc, mirror, cache_dir, tokenizers, checksums_only, quiet):
    """Check every shard of DIR against its manifest, then rebuild every config and compare."""
    report = verify_export(out_dir, mirror=mirror, cache_dir=cache_dir, num_proc=num_proc,
                           tokenizer_overrides=parse_tokenizer_options(tokenizers),
                           checksums_only=checksums_only, progress=not quiet)
    n_ok = sum(v == "identical" for v in report.results.values())
    if not report.ok:
        raise CheckFailed(
            f"{out_dir}: {len(report.results) - n_ok} of {len(report.results)} config(s) differ or could not be rebuilt"
            + (f"; {len(report.problems)} other problem(s): " + "; ".join(report.problems) if report.problems else "")
        )
    what = "checksums match" if checksums_only else "rebuilt identical"
    click.echo(f"verified {out_dir}: {n_ok}/{len(report.results)} configs {what}")
