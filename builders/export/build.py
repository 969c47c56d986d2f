"""``oneruler build``: make configs into an export folder, adding to what it already holds.

Plan (what is current, what to build), run the jobs (``pool``), stage every finished shard
(``journal``), then commit once: shards into ``data/``, then ``manifest.json``, then ``README.md``,
then delete the shards they no longer reference. Interrupted builds commit what finished; killed
builds are recovered by the next one.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from ..base.errors import OneRulerError
from ..base.progress import ConfigProgress
from ..spec.configs import ConfigSpec, match_configs
from ..spec.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from .card import write_readme
from .inputs import BuildInputs, package_versions
from .journal import Journal
from .layout import MANIFEST_NAME
from .manifest import collect_garbage, new_manifest, read_manifest, same_inputs, shard_problem, write_manifest
from .pool import Job, run_jobs
from .shard import ShardInfo


@dataclass
class BuildSummary:
    """What a build did."""

    out_dir: Path
    built: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    total_configs: int = 0
    total_bytes: int = 0
    seconds: float = 0.0


@dataclass
class BuildPlan:
    """The configs of a build: their expected manifest entries, and which are already done."""

    expected: dict[str, dict]
    current: list[str]  # already in the manifest with these inputs and an intact shard
    recovered: dict[str, dict]  # staged by a build that was killed, with these inputs
    todo: list[ConfigSpec]


def open_export(out: Path) -> dict:
    """The manifest of ``out`` (created as a folder if needed), or a new one for an empty folder."""
    if out.exists() and not out.is_dir():
        raise OneRulerError(f"--out {out}: exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(out)
    if manifest is None:
        if any(p for p in out.iterdir() if not p.name.startswith(".")):
            raise OneRulerError(f"--out {out}: folder is not empty and has no {MANIFEST_NAME}; choose an empty or new folder")
        manifest = new_manifest()
    return manifest


def adopt_sources(out: Path, manifest: dict, inputs: BuildInputs) -> None:
    """Record this build's sources and card facts; refuse an export built from other sources."""
    sources = inputs.sources.file_hashes
    if manifest["configs"] and manifest["sources"] and manifest["sources"] != sources:
        changed = sorted(set(manifest["sources"].items()) ^ set(sources.items()))
        raise OneRulerError(
            f"{out}: its configs were built from other source files ({len(changed)} differ, e.g. {changed[0][0]}); "
            f"build into a new --out folder"
        )
    manifest["sources"] = sources
    manifest["fixes"], manifest["books"] = inputs.card_facts()


def plan_build(out: Path, manifest: dict, specs: list[ConfigSpec], inputs: BuildInputs, samples: int, seed: int,
               force: bool, journal: Journal) -> BuildPlan:
    """Decide which configs need building (longest first, so parallel workers finish together)."""
    versions = package_versions()
    expected = {s.name: inputs.expected_entry(s, samples, seed, versions) for s in specs}
    staged = journal.read()
    plan = BuildPlan(expected, [], {}, [])
    for spec in specs:
        entry = manifest["configs"].get(spec.name)
        if not force and same_inputs(entry, expected[spec.name]) and shard_problem(out, entry) is None:
            plan.current.append(spec.name)
        elif not force and same_inputs(staged.get(spec.name), expected[spec.name]):
            plan.recovered[spec.name] = staged[spec.name]
        else:
            plan.todo.append(spec)
    plan.todo.sort(key=lambda s: (s.length, s.task.startswith("cwe")), reverse=True)
    return plan


def commit(out: Path, manifest: dict, staged: dict[str, dict], journal: Journal) -> None:
    """Move staged shards into place, then write manifest and README once, then drop superseded shards."""
    for name, entry in sorted(staged.items()):
        journal.move_into_place(entry)
        manifest["configs"][name] = entry
    write_manifest(out, manifest)
    write_readme(out, manifest)
    collect_garbage(out, manifest)
    journal.discard()


def build_dataset(
    patterns: Iterable[str],
    out_dir: str | os.PathLike,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    num_proc: int = 1,
    tokenizer_specs: dict[str, str] | None = None,
    *,
    mirror: str | None = None,
    cache_dir: str | None = None,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    full_count: bool = False,
) -> BuildSummary:
    """Build the configs matching ``patterns`` into ``out_dir`` (adding to what it already holds).

    Skips configs whose shard matches the manifest and whose recorded inputs (seed, samples,
    tokenizer identity and fingerprint, oneruler version, generator code) equal this build's, unless
    ``force``. Results are byte-identical for any ``num_proc`` and any build order, and with or
    without ``full_count`` (tokenise every candidate prompt whole instead of counting it by construction).
    """
    t0 = time.perf_counter()
    log = log or (lambda msg: None)
    if samples < 1:
        raise OneRulerError(f"--samples must be at least 1 (got {samples})")
    if num_proc < 1:
        raise OneRulerError(f"--num-proc must be at least 1 (got {num_proc})")
    tokenizer_specs = dict(tokenizer_specs or {})
    specs = match_configs(list(patterns), tuple(tokenizer_specs))
    if not specs:
        raise OneRulerError("no config to build: give at least one config name or glob, e.g. 'pl_*_8k'")
    out = Path(out_dir)
    manifest = open_export(out)
    inputs = BuildInputs(mirror, cache_dir, tokenizer_specs, full_count)
    adopt_sources(out, manifest, inputs)
    journal = Journal(out)
    plan = plan_build(out, manifest, specs, inputs, samples, seed, force, journal)
    summary = BuildSummary(out, skipped=plan.current + sorted(plan.recovered))
    if summary.skipped:
        log(f"skipping {len(summary.skipped)} config(s) already built with the same inputs")
    _run(plan, out, num_proc, inputs, manifest, journal, summary, progress, samples)
    summary.total_configs = len(manifest["configs"])
    summary.total_bytes = sum(e["size"] for e in manifest["configs"].values())
    summary.seconds = time.perf_counter() - t0
    return summary


def _run(plan: BuildPlan, out: Path, num_proc: int, inputs: BuildInputs, manifest: dict, journal: Journal,
         summary: BuildSummary, progress: bool, samples: int) -> None:
    staged = dict(plan.recovered)
    bars = ConfigProgress(len(plan.todo), samples, enabled=progress)

    def finish(info: ShardInfo) -> None:
        entry = dict(plan.expected[info.config])
        entry.update(file=info.file, sha256=info.sha256, size=info.size, num_rows=info.num_rows, stats=info.stats)
        journal.append(info.config, entry)
        staged[info.config] = entry
        summary.built.append(info.config)
        bars.done(info.config)

    jobs = [Job(spec, plan.expected[spec.name]["samples"], plan.expected[spec.name]["seed"]) for spec in plan.todo]
    try:
        run_jobs(jobs, journal.root, num_proc, inputs, bars, finish)
    finally:
        bars.close()
        commit(out, manifest, staged, journal)
