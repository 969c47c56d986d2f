"""``oneruler verify DIR``: prove an export folder is what its manifest says, by rebuilding it.

1. every shard against the manifest's size and sha256 (fast; also what ``oneruler push`` checks);
2. ``README.md`` against the card rendered from the manifest, ``eval.yaml`` against the one its configs give;
3. the sources: every recorded source file must be available with the recorded sha256, and every native
   translation a config was built from (``translations/ruler/{lang}.yaml`` or ``$ONERULER_TRANSLATIONS``) the file
   with the recorded sha256;
4. the tokenizers: each recorded alias must load and have the recorded identity and fingerprint;
5. every config rebuilt from its recorded inputs (seed, samples, tokenizer) into a temporary folder,
   reported per config as identical or not.

Exit 0 when everything matches, 1 on any difference, missing source or wrong/unavailable tokenizer,
on an export with no config, and on one that mixes seeds or sample counts.
"""

from __future__ import annotations

import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from ..base.errors import CheckFailed, OneRulerError
from ..base.progress import ConfigProgress
from ..spec.configs import parse_config_name
from ..spec.defaults import BUILTIN_TOKENIZERS
from .card import render_readme
from .inputs import BuildInputs, config_translation
from .eval_yaml import eval_yaml_problem
from .layout import README_NAME
from .manifest import check_shards, describe_values, export_values, read_manifest
from .records import ConfigEntry, Manifest
from .workers import Job, run_jobs
from .shard import ShardInfo

@dataclass
class ConfigCheck:
    """What verify found about one config: nothing wrong (identical), or each thing that differs."""

    problems: list[str] = field(default_factory=list)
    rebuilt_identical: bool | None = None  # None: not rebuilt (checksums only, or it could not be)

    @property
    def identical(self) -> bool:
        """The shard matches its manifest entry and, when rebuilt, the rebuild matches it too."""
        return not self.problems

    def __str__(self) -> str:
        if not self.problems:
            return "identical"
        note = "; rebuild identical" if self.rebuilt_identical else ""
        return "; ".join(self.problems) + note


@dataclass
class VerifyReport:
    """Per-config outcome plus folder-level problems."""

    results: dict[str, ConfigCheck] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Everything matched."""
        return not self.problems and all(c.identical for c in self.results.values())

    def check(self, config: str) -> ConfigCheck:
        """The (possibly new) record of ``config``."""
        return self.results.setdefault(config, ConfigCheck())


def check_files(out: Path, manifest: Manifest, report: VerifyReport, log: Callable[[str], None]) -> None:
    """Steps 1 and 2: shard checksums, the README and eval.yaml."""
    configs = manifest.configs
    for name, why in check_shards(out, manifest).items():
        if why:
            report.check(name).problems.append(f"checksum mismatch: {why}")
            log(f"FAIL  {name}: {why}")
    log(f"checksums: {len(configs) - len(report.results)}/{len(configs)} shards match the manifest")
    readme = out / README_NAME
    if not readme.is_file():
        report.problems.append(f"{README_NAME} is missing")
    elif readme.read_text(encoding="utf-8") != render_readme(manifest):
        report.problems.append(f"{README_NAME} differs from the card rendered from manifest.json")
    benchmark = eval_yaml_problem(out, manifest.configs)
    if benchmark:
        report.problems.append(benchmark)
    for p in report.problems:
        log(f"FAIL  {p}")


def translation_problem(entry: ConfigEntry) -> str | None:
    """Why the translation a config was built from is not the one a rebuild would read (None: it is, or neither has
    one): changed, gone, unreadable, or one now applying that was not recorded."""
    recorded = entry.translation
    try:
        current = config_translation(entry.task, entry.instruction_language)
    except OneRulerError as exc:
        return f"translation {recorded['file'] if recorded else entry.instruction_language} cannot be read: {exc}"
    if recorded is None:
        return None if current is None else (f"translation {current['file']} applies but the manifest records none "
                                             f"(built before translations were recorded); rebuild with --force")
    if current is None:
        return (f"translation {recorded['file']} (recorded sha256 {recorded['sha256'][:16]}…) is gone: a rebuild "
                f"would take RULER's English instruction")
    if current["file"] != recorded["file"]:
        return (f"translation {recorded['file']} (recorded) is not the file a rebuild reads, {current['file']}: set "
                f"ONERULER_TRANSLATIONS as for the build")
    if current["sha256"] != recorded["sha256"]:
        return (f"translation {recorded['file']} changed since the config was built: recorded sha256 "
                f"{recorded['sha256'][:16]}…, the file now has {current['sha256'][:16]}…")
    return None


def check_translations(configs: dict[str, ConfigEntry], report: VerifyReport, log: Callable[[str], None]) -> None:
    """Step 3, translations: each config's recorded translation against the file a rebuild would read."""
    for name in sorted(configs):
        why = translation_problem(configs[name])
        if why:
            report.check(name).problems.append(why)
            log(f"FAIL  {name}: {why}")


def recorded_tokenizers(configs: dict[str, ConfigEntry], overrides: dict[str, str] | None) -> dict[str, str]:
    """Alias → location of every non-built-in tokenizer the export records (overrides win)."""
    locations = {e.tokenizer.alias: e.tokenizer.location for e in configs.values()
                 if e.tokenizer.alias not in BUILTIN_TOKENIZERS}
    locations.update(overrides or {})
    return locations


def check_sources(manifest: Manifest, inputs: BuildInputs, report: VerifyReport, log: Callable[[str], None]) -> bool:
    """Step 3: recorded source hashes against the available sources, then the card facts; True: a source differs."""
    current = {**inputs.sources.file_hashes, **inputs.sources.ruler.file_hashes}
    found = []
    for path, digest in sorted(manifest.sources.items()):
        if path not in current:
            found.append(f"missing source {path} (recorded sha256 {digest[:16]}…): not in the pinned source set")
        elif current[path] != digest:
            found.append(f"source {path}: recorded sha256 {digest[:16]}… but the available file has {current[path][:16]}…")
    sources_differ = bool(found)
    if not sources_differ:
        facts = inputs.card_facts()
        if any(facts[key] != manifest.facts.get(key) for key in facts):
            found.append("the data fixes / book facts recorded for the card differ from a fresh computation")
    for p in found:
        report.problems.append(p)
        log(f"FAIL  {p}")
    return sources_differ


def check_tokenizers(configs: dict[str, ConfigEntry], inputs: BuildInputs, report: VerifyReport, log: Callable[[str], None],
                     name_setting: Callable[[str], str] = str) -> dict[str, str]:
    """Step 4: alias → why its tokenizer cannot rebuild (absent: it can)."""
    problems: dict[str, str] = {}
    for alias in sorted({e.tokenizer.alias for e in configs.values()}):
        recorded = next(e.tokenizer for e in configs.values() if e.tokenizer.alias == alias)
        try:
            got = inputs.tokenizer_record(alias)
        except Exception as exc:
            problems[alias] = f"tokenizer {alias} ({recorded.location}) unavailable: {_told(exc, name_setting)}"
            continue
        for key in ("identity", "fingerprint"):
            if getattr(got, key) != getattr(recorded, key):
                problems[alias] = (f"tokenizer {alias} ({got.location}) is not the recorded one: "
                                   f"{key} {getattr(got, key)!r} != recorded {getattr(recorded, key)!r}")
                break
    for why in problems.values():
        report.problems.append(why)
        log(f"FAIL  {why}")
    return problems


def rebuild(configs: dict[str, ConfigEntry], inputs: BuildInputs, aliases: tuple[str, ...], tok_problems: dict[str, str],
            report: VerifyReport, num_proc: int, progress: bool) -> None:
    """Step 5: rebuild every config from its recorded inputs into a temporary folder and compare."""
    jobs = []
    for name, e in sorted(configs.items(), key=lambda kv: (kv[1].samples, kv[1].seed, kv[0])):
        if e.tokenizer.alias in tok_problems:
            report.check(name).problems.append(f"not rebuilt: {tok_problems[e.tokenizer.alias]}")
            continue
        jobs.append(Job(parse_config_name(name, aliases), e.samples, e.seed))
    tmp = Path(tempfile.mkdtemp(prefix="oneruler-verify-"))
    generator = inputs.generator_fingerprint
    bars = ConfigProgress(len(jobs), max((j.samples for j in jobs), default=1), enabled=progress, verb="rebuilt")

    def finish(info: ShardInfo) -> None:
        recorded, check = configs[info.config], report.check(info.config)
        check.rebuilt_identical = info.sha256 == recorded.sha256
        if not check.rebuilt_identical:
            changed = " (the generator code changed since this config was built)" if recorded.generator != generator else ""
            check.problems.append(f"DIFFERENT: rebuilt sha256 {info.sha256[:16]}… != recorded {recorded.sha256[:16]}…"
                                  f"{changed}")
        bars.done(info.config)
        (tmp / info.file).unlink(missing_ok=True)

    try:
        run_jobs(jobs, tmp, num_proc, inputs, bars, finish)
    finally:
        bars.close()
        shutil.rmtree(tmp, ignore_errors=True)


def verify_export(out_dir: str, *, mirror: str | None = None, cache_dir: str | None = None, num_proc: int = 1,
                  tokenizer_overrides: dict[str, str] | None = None, checksums_only: bool = False,
                  progress: bool = True, log: Callable[[str], None] | None = None,
                  name_setting: Callable[[str], str] = str) -> VerifyReport:
    """Check and rebuild an export folder; see the module docstring for the steps.

    Problems and ``log`` lines name each setting they mention by ``name_setting`` (default: the
    setting's own name; the command line words it as its flag).
    """
    log = log or (lambda msg: None)
    out = Path(out_dir)
    manifest = read_manifest(out)
    if manifest is None:
        raise OneRulerError(f"{out}: no manifest.json; is this an export folder made by `oneruler build`?")
    configs = manifest.configs
    if not configs:
        raise CheckFailed(f"{out}: the export holds no config (its manifest.json lists none); "
                          f"build some first, e.g. `oneruler build 'pl_*_8k' --out {out}`")
    report = VerifyReport()
    values = export_values(configs)
    if len(values) > 1:
        report.problems.append(f"the export mixes seeds or sample counts: {describe_values(values, name_setting)}; "
                               f"rebuild it with one (`oneruler build --force`)")
        log(f"FAIL  {report.problems[-1]}")
    check_files(out, manifest, report, log)
    if checksums_only:
        for name in configs:
            report.check(name)
        return report
    locations = recorded_tokenizers(configs, tokenizer_overrides)
    try:
        inputs = BuildInputs(mirror, cache_dir, locations, full_count=True)  # rebuild with whole-prompt counts
    except OneRulerError as exc:
        report.problems.append(f"sources unavailable: {_told(exc, name_setting)}")
        log(f"FAIL  {report.problems[-1]}")
        return report
    sources_differ = check_sources(manifest, inputs, report, log)
    check_translations(configs, report, log)
    tok_problems = check_tokenizers(configs, inputs, report, log, name_setting)
    if sources_differ:
        for name in configs:
            check = report.check(name)
            if check.identical:
                check.problems.append("not rebuilt: sources differ")
        return report
    rebuild(configs, inputs, tuple(locations), tok_problems, report, num_proc, progress)
    for name in sorted(report.results):
        check = report.results[name]
        log(f"{'ok   ' if check.identical else 'FAIL '} {name}: {check}")
    return report


def _told(exc: Exception, name_setting: Callable[[str], str]) -> str:
    """An error's message, with each setting it names worded by ``name_setting``."""
    return exc.worded(name_setting) if isinstance(exc, OneRulerError) else str(exc)
