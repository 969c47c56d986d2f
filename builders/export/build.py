"""``oneruler build``: make configs into an export folder, adding to what it already holds.

One build at a time per folder: the whole build holds the folder's lock (``base/locking.py``); a
second build fails at once naming the folder, or waits ``wait`` seconds. An export holds one seed
and one sample count; other values are refused unless ``force`` rebuilds every config. What to build
is one ``BuildRequest`` (``export/request.py``), checked when it is made.

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
import time
from pathlib import Path
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from ..base.errors import OneRulerError, named_setting
from ..base.files import atomic_write_all
from ..base.locking import FolderLock
from ..base.progress import ConfigProgress
from ..base.text import plural
from ..spec.configs import ConfigSpec, parse_config_name
from ..spec.tasks import family_of
from .journal import Journal
from .layout import EVAL_YAML_NAME, MANIFEST_NAME, README_NAME
from .manifest import collect_garbage, describe_values, dump_manifest, export_values, read_manifest, shard_problem
from .records import ConfigEntry, ConfigInputs, Manifest
from .request import BuildRequest
from .upstreams import upstream_pins, used_sources

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


def check_folder(request: BuildRequest) -> None:
    """Refuse an export folder the request cannot build into, before anything is loaded or written.

    The checks are repeated under the folder's lock; done here first, they fail in a fraction of a
    second instead of after loading sources and tokenizers.
    """
    out = request.out
    if out.exists() and not out.is_dir():
        raise OneRulerError(f"{named_setting('out')} {out}: exists and is not a folder")
    if out.is_dir():
        check_values(out, open_export(out), request)
    blocker = next((p for p in out.parents if p.exists()), None)
    if blocker is not None and not blocker.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(blocker))


def open_export(out: Path) -> Manifest:
    """The manifest of the (locked) folder ``out``, or a new one if it is empty."""
    manifest = read_manifest(out)
    if manifest is None:
        if any(p for p in out.iterdir() if not p.name.startswith(".")):
            raise OneRulerError(f"{named_setting('out')} {out}: folder is not empty and has no {MANIFEST_NAME}; "
                                f"choose an empty or new folder")
        manifest = Manifest()
    return manifest


def adopt_sources(out: Path, manifest: Manifest, inputs: BuildInputs, specs: list[ConfigSpec]) -> None:
    """Record this build's sources (ONERULER's, and the pins of the third-party upstreams its configs and the
    export's read) and card facts; refuse an export built from other sources."""
    tasks = [s.task for s in specs] + [e.task for e in manifest.configs.values()]
    sources = {**inputs.sources.file_hashes, **upstream_pins(tasks)}
    recorded = manifest.sources if manifest.configs else {}
    # a recorded file pinned otherwise or no longer, or one of ONERULER's not recorded: other sources (a third-party
    # upstream not recorded yet is one the export starts to use)
    changed = [p for p in sorted(recorded) if sources.get(p) != recorded[p]]
    changed += [p for p in inputs.sources.file_hashes if recorded and p not in recorded]
    if changed:
        raise OneRulerError(
            f"{out}: its configs were built from other source files ({len(changed)} differ, e.g. {changed[0]}); "
            f"build into a new {named_setting('out')} folder"
        )
    manifest.sources = dict(sorted(sources.items()))
    manifest.facts.update(inputs.card_facts())


def holds_other_values(manifest: Manifest, request: BuildRequest) -> bool:
    """The export holds configs built with another seed or sample count than the request's."""
    values = export_values(manifest.configs)
    return bool(values) and set(values) != {(request.seed, request.samples)}


def check_values(out: Path, manifest: Manifest, request: BuildRequest) -> None:
    """An export holds one seed and one sample count: refuse other values unless ``force`` rebuilds every config."""
    if request.force or not holds_other_values(manifest, request):
        return
    n = len(manifest.configs)
    raise OneRulerError(
        f"{out} holds configs built with {describe_values(export_values(manifest.configs), named_setting)}, "
        f"this build asks for {named_setting('seed')} {request.seed} {named_setting('samples')} {request.samples}; "
        f"an export holds one seed and one sample count: build with its values, into another {named_setting('out')} "
        f"folder, or pass {named_setting('force')} to rebuild all {plural(n, 'config')} with the new ones"
    )


def add_existing(specs: list[ConfigSpec], names: list[str], manifest: Manifest, inputs: BuildInputs) -> list[ConfigSpec]:
    """``specs`` plus the export's configs ``names`` (their tokenizers registered from the manifest if needed)."""
    for name in names:
        tok = manifest.configs[name].tokenizer
        if tok.alias not in inputs.tokenizers:
            inputs.tokenizers.register(tok.alias, tok.location)
    have = {s.name for s in specs}
    extra = [parse_config_name(n, inputs.tokenizers.aliases) for n in names if n not in have]
    return specs + extra


def plan_build(out: Path, manifest: Manifest, specs: list[ConfigSpec], inputs: BuildInputs, request: BuildRequest,
               journal: Journal) -> BuildPlan:
    """Decide which configs need building (longest first, so parallel workers finish together)."""
    from .inputs import package_versions

    versions = package_versions()
    expected = {s.name: inputs.config_inputs(s, request.samples, request.seed, versions) for s in specs}
    staged = journal.read()
    plan = BuildPlan(expected, [], {}, [])
    for spec in specs:
        entry = manifest.configs.get(spec.name)
        if not request.force and expected[spec.name].built_as(entry) and shard_problem(out, entry) is None:
            plan.current.append(spec.name)
        elif not request.force and expected[spec.name].built_as(staged.get(spec.name)):
            plan.recovered[spec.name] = staged[spec.name]
        else:
            plan.todo.append(spec)
    # longest first, and among one length the families whose configs cost more to build (CWE) first
    plan.todo.sort(key=lambda s: (s.length, family_of(s.task).build_cost), reverse=True)
    return plan


def commit(out: Path, manifest: Manifest, staged: dict[str, ConfigEntry], journal: Journal) -> None:
    """Write manifest and README to temp files, move the staged shards in, rename both, drop superseded shards.

    A full disk or a permission error fails before anything visible changed (then ``manifest`` too
    is left as it was).
    """
    from .card import render_readme
    from .eval_yaml import render_eval_yaml

    new = manifest.with_configs(staged)
    new.sources = used_sources(new.sources, [e.task for e in new.configs.values()])
    files = {out / MANIFEST_NAME: dump_manifest(new), out / README_NAME: render_readme(new).encode("utf-8")}
    benchmark = render_eval_yaml(new.configs)
    if benchmark is not None:
        files[out / EVAL_YAML_NAME] = benchmark.encode("utf-8")

    def move_shards() -> None:
        for _, entry in sorted(staged.items()):
            journal.move_into_place(entry)

    atomic_write_all(files, before_rename=move_shards)
    journal.committed = True
    if benchmark is None:
        (out / EVAL_YAML_NAME).unlink(missing_ok=True)
    try:
        manifest.configs, manifest.sources = new.configs, new.sources
        collect_garbage(out, manifest)
    finally:
        journal.discard()


def build_dataset(request: BuildRequest, log: Callable[[str], None] | None = None,
                  name_setting: Callable[[str], str] = str) -> BuildSummary:
    """Build the configs ``request`` selects into its ``out`` folder (adding to what it already holds).

    Skips configs whose shard matches the manifest and whose recorded inputs (seed, samples,
    tokenizer identity and fingerprint, oneruler version, generator code) equal this build's, unless
    ``force``. Results are byte-identical for any ``num_proc`` and any build order, and with or
    without ``full_count``. Another build writing into ``out`` makes this one fail at once, or wait up
    to ``wait`` seconds. ``log`` gets one line per notable step, naming each setting it mentions by
    ``name_setting`` (default: the setting's own name; the command line words it as its flag).
    """
    t0 = time.perf_counter()
    check_folder(request)
    from .inputs import BuildInputs

    inputs = BuildInputs(request.mirror, request.cache_dir, dict(request.tokenizers), request.full_count)
    build = _LockedBuild(request, inputs, log or (lambda msg: None), name_setting)
    with FolderLock(request.out, request.wait, build.log, what="another `oneruler build`") as lock:
        try:
            summary = build.run()
        except BaseException:
            if not build.journal.committed:
                _leave_as_found(lock, build.journal)
            raise
    summary.seconds = time.perf_counter() - t0
    return summary


def _leave_as_found(lock: FolderLock, journal: Journal) -> None:
    """After a failure that committed nothing: remove the staging area (a full disk needs the space back) and the
    folders this build made."""
    journal.discard()
    with contextlib.suppress(OSError):
        lock.remove_created()


def _warn_if_short(info: ShardInfo, bars: ConfigProgress) -> None:
    """A config whose pool (CWE's words, XQuAD's paragraphs) ran out: say how long its examples are against their
    target."""
    stats = info.stats
    if not stats.pool_exhausted:
        return
    target = stats.budget
    bars.warn(
        f"{info.config}: the {stats.pool_what} ({stats.pool_size} {stats.pool_unit}) ran out: "
        f"{stats.pool_exhausted} of {stats.num_examples} example(s) are short, reaching "
        f"{stats.num_tokens_min:,} of {target:,} tokens ({100 * stats.num_tokens_min / target:.0f} %)"
    )


class _LockedBuild:
    """One build inside its folder's lock: the request, its loaded inputs, its staging journal and its log."""

    def __init__(self, request: BuildRequest, inputs: BuildInputs, log: Callable[[str], None],
                 name_setting: Callable[[str], str]):
        self.request, self.inputs, self.log, self.name_setting = request, inputs, log, name_setting
        self.out = request.out
        self.journal = Journal(request.out)

    def run(self) -> BuildSummary:
        """Plan, build what is missing, commit; the summary of it all."""
        request, out, say = self.request, self.out, self.name_setting
        manifest = open_export(out)
        check_values(out, manifest, request)
        specs = list(request.specs)
        if holds_other_values(manifest, request):  # forced: every config of the export gets the new values
            names = sorted(manifest.configs)
            self.log(f"{say('force')}: rebuilding all {len(names)} config(s) of {out} with {say('seed')} "
                     f"{request.seed} {say('samples')} {request.samples}")
            specs = add_existing(specs, names, manifest, self.inputs)
        adopt_sources(out, manifest, self.inputs, specs)
        plan = plan_build(out, manifest, specs, self.inputs, request, self.journal)
        summary = BuildSummary(out, skipped=plan.current + sorted(plan.recovered))
        if summary.skipped:
            self.log(f"skipping {len(summary.skipped)} config(s) already built with the same inputs")
        self._write(plan, manifest, summary)
        summary.total_configs = len(manifest.configs)
        summary.total_bytes = sum(e.size for e in manifest.configs.values())
        return summary

    def _write(self, plan: BuildPlan, manifest: Manifest, summary: BuildSummary) -> None:
        """Build the plan's configs, staging each as it finishes, then commit them all."""
        from .workers import Job, run_jobs

        staged = dict(plan.recovered)
        bars = ConfigProgress(len(plan.todo), self.request.samples, enabled=self.request.progress)

        def finish(info: ShardInfo) -> None:
            entry = ConfigEntry.built(plan.expected[info.config], info.file, info.sha256, info.size, info.num_rows,
                                      info.stats)
            self.journal.append(info.config, entry)
            staged[info.config] = entry
            summary.built.append(info.config)
            bars.done(info.config)
            _warn_if_short(info, bars)

        jobs = [Job(spec, plan.expected[spec.name].samples, plan.expected[spec.name].seed) for spec in plan.todo]
        try:
            run_jobs(jobs, self.journal.root, self.request.num_proc, self.inputs, bars, finish)
        except BaseException:
            bars.close()
            self._commit_after_failure(manifest, staged)
            raise
        bars.close()
        commit(self.out, manifest, staged, self.journal)  # failing before the renames: the folder is left as found

    def _commit_after_failure(self, manifest: Manifest, staged: dict[str, ConfigEntry]) -> None:
        """Commit the configs that finished before a failure, if that keeps one seed and sample count."""
        if staged and len(export_values(manifest.with_configs(staged).configs)) <= 1:
            with contextlib.suppress(Exception):  # the original failure is the one to report; the folder is as it was
                commit(self.out, manifest, staged, self.journal)
                self.log(f"committed the {len(staged)} config(s) that finished before the failure to {self.out}")
