"""``oneruler build``: make configs into an export folder, adding to what it already holds.

One build at a time per folder: the whole build holds the folder's lock (``base/locking.py``); a
second build fails at once naming the folder, or waits with ``--wait SECONDS``. An export holds one
seed and one sample count; other values are refused unless ``--force`` rebuilds every config.

Plan (what is current, what to build), run the jobs (``pool``), stage every finished shard
(``journal``), then commit once: the new ``manifest.json`` and ``README.md`` are written to temp
files, the shards moved into ``data/``, both files renamed into place, and the shards they no
longer reference deleted. A failed or interrupted build commits what finished (unless that would
mix seeds or sample counts); if nothing can be committed the folder is left as it was, and a folder
the build created is removed. A killed build is recovered by the next one.
"""

from __future__ import annotations

import contextlib
import errno
import os
import time
from pathlib import Path
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable

from ..base.errors import OneRulerError
from ..base.files import atomic_write_all
from ..base.locking import FolderLock
from ..base.progress import ConfigProgress
from ..spec.configs import ConfigSpec, match_configs, parse_config_name
from ..spec.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from .journal import Journal
from .layout import MANIFEST_NAME, README_NAME
from .manifest import collect_garbage, describe_values, dump_manifest, export_values, read_manifest, shard_problem
from .records import ConfigEntry, ConfigInputs, Manifest

if TYPE_CHECKING:  # the heavy modules (tokenizers, pyarrow, datasets) load once the request is valid
    from .inputs import BuildInputs
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
    """The configs of a build: the inputs each is built from, and which are already done."""

    expected: dict[str, ConfigInputs]
    current: list[str]  # already in the manifest with these inputs and an intact shard
    recovered: dict[str, ConfigEntry]  # staged by a build that was killed, with these inputs
    todo: list[ConfigSpec]


def check_request(patterns: Iterable[str], out_dir: str | os.PathLike, *, samples: int = DEFAULT_SAMPLES,
                  seed: int = DEFAULT_SEED, num_proc: int = 1, force: bool = False, aliases: Iterable[str] = (),
                  wait: float = 0.0, grid: str = "standard") -> list[ConfigSpec]:
    """Validate a build request before anything is loaded or written; return the specs it selects.

    The checks of the export folder are repeated under its lock; done here first, they fail in a
    fraction of a second instead of after loading sources and tokenizers.
    """
    if samples < 1:
        raise OneRulerError(f"--samples must be at least 1 (got {samples})")
    if num_proc < 1:
        raise OneRulerError(f"--num-proc must be at least 1 (got {num_proc})")
    if wait < 0:
        raise OneRulerError(f"--wait must be 0 (fail at once) or a number of seconds (got {wait:g})")
    specs = match_configs(list(patterns), tuple(aliases), grid)
    if not specs:
        raise OneRulerError("no config to build: give at least one config name or glob, e.g. 'pl_*_8k'")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise OneRulerError(f"--out {out}: exists and is not a folder")
    if out.is_dir():
        check_values(out, open_export(out), seed, samples, force)
    blocker = next((p for p in out.parents if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(blocker))
    return specs


def open_export(out: Path) -> Manifest:
    """The manifest of the (locked) folder ``out``, or a new one if it is empty."""
    manifest = read_manifest(out)
    if manifest is None:
        if any(p for p in out.iterdir() if not p.name.startswith(".")):
            raise OneRulerError(f"--out {out}: folder is not empty and has no {MANIFEST_NAME}; choose an empty or new folder")
        manifest = Manifest()
    return manifest


def adopt_sources(out: Path, manifest: Manifest, inputs: BuildInputs) -> None:
    """Record this build's sources and card facts; refuse an export built from other sources."""
    sources = inputs.sources.file_hashes
    if manifest.configs and manifest.sources and manifest.sources != sources:
        changed = sorted(set(manifest.sources.items()) ^ set(sources.items()))
        raise OneRulerError(
            f"{out}: its configs were built from other source files ({len(changed)} differ, e.g. {changed[0][0]}); "
            f"build into a new --out folder"
        )
    manifest.sources = sources
    manifest.facts.update(inputs.card_facts())


def check_values(out: Path, manifest: Manifest, seed: int, samples: int, force: bool) -> list[str]:
    """An export holds one seed and one sample count: the configs to rebuild for ``--force`` with new ones.

    Raises naming the export's values when they differ from this build's and ``force`` is not given.
    """
    values = export_values(manifest.configs)
    if not values or set(values) == {(seed, samples)}:
        return []
    if force:
        return sorted(manifest.configs)
    n = len(manifest.configs)
    raise OneRulerError(
        f"{out} holds configs built with {describe_values(values)}, this build asks for --seed {seed} "
        f"--samples {samples}; an export holds one seed and one sample count: build with its values, into another "
        f"--out folder, or pass --force to rebuild all {n} config{'s' * (n != 1)} with the new ones"
    )


def add_existing(specs: list[ConfigSpec], names: list[str], manifest: Manifest, inputs: BuildInputs) -> list[ConfigSpec]:
    """``specs`` plus the export's configs ``names`` (their tokenizers registered from the manifest if needed)."""
    for name in names:
        tok = manifest.configs[name].tokenizer
        if tok.alias not in inputs.tokenizers.locations:
            inputs.tokenizers.locations[tok.alias] = tok.location
    have = {s.name for s in specs}
    extra = [parse_config_name(n, inputs.tokenizers.aliases) for n in names if n not in have]
    return specs + extra


def plan_build(out: Path, manifest: Manifest, specs: list[ConfigSpec], inputs: BuildInputs, samples: int, seed: int,
               force: bool, journal: Journal) -> BuildPlan:
    """Decide which configs need building (longest first, so parallel workers finish together)."""
    from .inputs import package_versions

    versions = package_versions()
    expected = {s.name: inputs.config_inputs(s, samples, seed, versions) for s in specs}
    staged = journal.read()
    plan = BuildPlan(expected, [], {}, [])
    for spec in specs:
        entry = manifest.configs.get(spec.name)
        if not force and expected[spec.name].built_as(entry) and shard_problem(out, entry) is None:
            plan.current.append(spec.name)
        elif not force and expected[spec.name].built_as(staged.get(spec.name)):
            plan.recovered[spec.name] = staged[spec.name]
        else:
            plan.todo.append(spec)
    plan.todo.sort(key=lambda s: (s.length, s.task.startswith("cwe")), reverse=True)
    return plan


def commit(out: Path, manifest: Manifest, staged: dict[str, ConfigEntry], journal: Journal) -> None:
    """Write manifest and README to temp files, move the staged shards in, rename both, drop superseded shards.

    A full disk or a permission error fails before anything visible changed (then ``manifest`` too
    is left as it was).
    """
    from .card import render_readme

    new = manifest.with_configs(staged)
    files = {out / MANIFEST_NAME: dump_manifest(new), out / README_NAME: render_readme(new).encode("utf-8")}

    def move_shards() -> None:
        for _, entry in sorted(staged.items()):
            journal.move_into_place(entry)

    atomic_write_all(files, before_rename=move_shards)
    journal.committed = True
    try:
        manifest.configs = new.configs
        collect_garbage(out, manifest)
    finally:
        journal.discard()


def build_dataset(
    patterns: Iterable[str],
    out_dir: str | os.PathLike,
    samples: int = DEFAULT_SAMPLES,
    seed: int = DEFAULT_SEED,
    num_proc: int = 1,
    tokenizer_locations: dict[str, str] | None = None,
    *,
    mirror: str | None = None,
    cache_dir: str | None = None,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
    wait: float = 0.0,
    full_count: bool = False,
    grid: str = "standard",
) -> BuildSummary:
    """Build the configs matching ``patterns`` into ``out_dir`` (adding to what it already holds).

    Skips configs whose shard matches the manifest and whose recorded inputs (seed, samples,
    tokenizer identity and fingerprint, oneruler version, generator code) equal this build's, unless
    ``force``. Globs select from the named ``grid`` (``spec/grids.py``). Results are byte-identical for any ``num_proc`` and any build order, and with or
    without ``full_count`` (tokenise every candidate prompt whole instead of counting it by construction).
    Another build writing into ``out_dir`` makes this one fail at once, or wait up to ``wait`` seconds.
    """
    t0 = time.perf_counter()
    log = log or (lambda msg: None)
    tokenizer_locations = dict(tokenizer_locations or {})
    specs = check_request(patterns, out_dir, samples=samples, seed=seed, num_proc=num_proc, force=force,
                          aliases=tokenizer_locations, wait=wait, grid=grid)
    from .inputs import BuildInputs

    inputs = BuildInputs(mirror, cache_dir, tokenizer_locations, full_count)
    out = Path(out_dir)
    with FolderLock(out, wait, log, what="another `oneruler build`") as lock:
        journal = Journal(out)
        try:
            summary = _build_locked(out, specs, inputs, samples, seed, num_proc, force, progress, log, journal)
        except BaseException:
            if not journal.committed:
                _leave_as_found(lock, journal)
            raise
    summary.seconds = time.perf_counter() - t0
    return summary


def _build_locked(out: Path, specs: list[ConfigSpec], inputs: BuildInputs, samples: int, seed: int, num_proc: int,
                  force: bool, progress: bool, log: Callable[[str], None], journal: Journal) -> BuildSummary:
    manifest = open_export(out)
    rebuild_all = check_values(out, manifest, seed, samples, force)
    if rebuild_all:
        log(f"--force: rebuilding all {len(rebuild_all)} config(s) of {out} with --seed {seed} --samples {samples}")
        specs = add_existing(specs, rebuild_all, manifest, inputs)
    adopt_sources(out, manifest, inputs)
    plan = plan_build(out, manifest, specs, inputs, samples, seed, force, journal)
    summary = BuildSummary(out, skipped=plan.current + sorted(plan.recovered))
    if summary.skipped:
        log(f"skipping {len(summary.skipped)} config(s) already built with the same inputs")
    _run(plan, out, num_proc, inputs, manifest, journal, summary, progress, samples, log)
    summary.total_configs = len(manifest.configs)
    summary.total_bytes = sum(e.size for e in manifest.configs.values())
    return summary


def _leave_as_found(lock: FolderLock, journal: Journal) -> None:
    """After a failure that committed nothing: remove the staging area (a full disk needs the space back) and the
    folders this build made."""
    journal.discard()
    with contextlib.suppress(OSError):
        lock.remove_created()


def _warn_if_short(info: ShardInfo, bars: ConfigProgress) -> None:
    """A CWE config whose word pool ran out: say how long its examples are against their target."""
    stats = info.stats
    if not stats.cwe_pool_exhausted:
        return
    target = stats.budget
    bars.warn(
        f"{info.config}: the word pool ({stats.cwe_pool_size} words) ran out: "
        f"{stats.cwe_pool_exhausted} of {stats.num_examples} example(s) are short, reaching "
        f"{stats.num_tokens_min:,} of {target:,} tokens ({100 * stats.num_tokens_min / target:.0f} %)"
    )


def _run(plan: BuildPlan, out: Path, num_proc: int, inputs: BuildInputs, manifest: Manifest, journal: Journal,
         summary: BuildSummary, progress: bool, samples: int, log: Callable[[str], None]) -> None:
    from .pool import Job, run_jobs

    staged = dict(plan.recovered)
    bars = ConfigProgress(len(plan.todo), samples, enabled=progress)

    def finish(info: ShardInfo) -> None:
        entry = ConfigEntry.built(plan.expected[info.config], info.file, info.sha256, info.size, info.num_rows,
                                  info.stats)
        journal.append(info.config, entry)
        staged[info.config] = entry
        summary.built.append(info.config)
        bars.done(info.config)
        _warn_if_short(info, bars)

    jobs = [Job(spec, plan.expected[spec.name].samples, plan.expected[spec.name].seed) for spec in plan.todo]
    try:
        run_jobs(jobs, journal.root, num_proc, inputs, bars, finish)
    except BaseException:
        bars.close()
        _commit_after_failure(out, manifest, staged, journal, log)
        raise
    bars.close()
    commit(out, manifest, staged, journal)  # failing before the renames: build_dataset leaves the folder as found


def _commit_after_failure(out: Path, manifest: Manifest, staged: dict[str, ConfigEntry], journal: Journal,
                          log: Callable[[str], None]) -> None:
    """Commit the configs that finished before a failure, if that keeps one seed and sample count."""
    if staged and len(export_values(manifest.with_configs(staged).configs)) <= 1:
        with contextlib.suppress(Exception):  # the original failure is the one to report; the folder is as it was
            commit(out, manifest, staged, journal)
            log(f"committed the {len(staged)} config(s) that finished before the failure to {out}")
