"""Export configs to the frozen dataset: Parquet shards, ``manifest.json`` and ``README.md``.

Layout of an export folder (``DIR``)::

    DIR/README.md                                  YAML front matter (configs, features) + dataset card
    DIR/manifest.json                              sha256 of every shard and source, inputs of every config
    DIR/data/<config>/test-<sha256[:16]>.parquet   one zstd Parquet shard per config (split ``test``)

Shards are content-addressed: a rebuild whose bytes differ gets a new file name, so the ``datasets``
cache (keyed on data file paths) can never serve stale rows. Every file is written to a hidden
temporary file and renamed (``os.replace``), so an interrupted build leaves DIR loadable; the next
build skips every config whose shard still matches the manifest and its recorded inputs.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import queue as queue_mod
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Callable, Iterable, Iterator

import click
import pyarrow as pa
import pyarrow.parquet as pq

from .configs import ConfigSpec, match_configs, parse_config_name
from .commands import source_options
from .errors import OneRulerError, cli_errors
from .schema import FEATURES

MANIFEST_NAME = "manifest.json"
README_NAME = "README.md"
DATA_DIR = "data"
SPLIT = "test"
MANIFEST_FORMAT = "oneruler-export/1"
TMP_PREFIX = ".tmp-"

# Parquet layout (measured in docs/export.md): one zstd page per column chunk, so the 50 rows of a
# config, which share their haystack, compress together (zstd's window spans several rows); row
# groups capped far below the Hub viewer's 286 MiB read limit so it can show the first rows.
ZSTD_LEVEL = 12
ROW_GROUP_MAX_BYTES = 64 * 1024 * 1024
DATA_PAGE_SIZE = 256 * 1024 * 1024
DICTIONARY_COLUMNS = ["config", "task", "context_language", "instruction_language", "tokenizer"]
STATISTICS_COLUMNS = ["index", "length", "num_tokens", "budget", "seed"]
PACKAGES = ("oneruler", "datasets", "pyarrow", "tiktoken", "tokenizers", "wonderwords", "sentencex")


# --------------------------------------------------------------------------- small helpers


def sha256_file(path: str | os.PathLike) -> str:
    """Hex sha256 of a file, read in 1 MiB chunks."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _file_mode() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


FILE_MODE = _file_mode()  # mkstemp creates 0600 files; exported files get the usual umask-based mode


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` via a hidden temp file in the same folder and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, dir=path.parent)
    try:
        os.chmod(tmp, FILE_MODE)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def package_versions() -> dict[str, str]:
    """Versions of the packages whose behaviour determines the bytes of a build."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


# Modules that do not influence the rows; every other builders/*.py is part of the generator fingerprint.
_NOT_GENERATOR = {"cli.py", "commands.py", "export.py", "card.py", "hub.py", "verify.py", "report.py",
                  "scoring.py", "errors.py", "__init__.py"}


@functools.lru_cache(maxsize=1)
def generator_fingerprint() -> str:
    """sha256 over the source of every module that shapes the rows (so a code change forces a rebuild)."""
    h = hashlib.sha256()
    for path in sorted(Path(__file__).parent.glob("*.py")):
        if path.name not in _NOT_GENERATOR:
            h.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()


def shard_relpath(config: str, sha256: str) -> str:
    """``data/<config>/test-<first 16 hex of sha256>.parquet`` (POSIX separators)."""
    return f"{DATA_DIR}/{config}/{SPLIT}-{sha256[:16]}.parquet"


# --------------------------------------------------------------------------- Parquet shards


@dataclass
class ShardInfo:
    """What writing one config's shard produced."""

    config: str
    file: str
    sha256: str
    size: int
    num_rows: int
    stats: dict


def _row_bytes(row: dict) -> int:
    return len(row["input"].encode("utf-8")) + 512


def config_stats(rows_seen: list[dict]) -> dict:
    """Per-config statistics for the card, from the light fields of every row."""
    toks = [r["num_tokens"] for r in rows_seen]
    stats = {
        "num_examples": len(rows_seen),
        "num_tokens_min": min(toks) if toks else 0,
        "num_tokens_median": statistics.median_low(toks) if toks else 0,
        "num_tokens_max": max(toks) if toks else 0,
    }
    if rows_seen:
        first = rows_seen[0]
        stats.update(
            task=first["task"],
            context_language=first["context_language"],
            instruction_language=first["instruction_language"],
            length=first["length"],
            tokenizer=first["tokenizer"],
            budget=first["budget"],
        )
        if first["task"].startswith("cwe"):
            short = [r for r in rows_seen if r["cwe_pool_exhausted"]]
            stats["cwe_pool_size"] = first["cwe_pool_size"]
            stats["cwe_pool_exhausted"] = len(short)
            stats["cwe_shortfall_tokens_max"] = max((r["budget"] - r["num_tokens"] for r in short), default=0)
    return stats


def write_shard(rows: Iterable[dict], out_dir: str | os.PathLike, config: str,
                progress: Callable[[int], None] | None = None) -> ShardInfo:
    """Write ``rows`` (dicts matching FEATURES) as ``data/<config>/test-<hash>.parquet`` in ``out_dir``.

    The shard goes to a hidden temp file, is hashed, then renamed to its content-addressed name.
    Byte-identical for identical rows. ``progress(n)`` is called after every row.
    """
    out_dir = Path(out_dir)
    folder = out_dir / DATA_DIR / config
    folder.mkdir(parents=True, exist_ok=True)
    schema = FEATURES.arrow_schema
    fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=".parquet", dir=folder)
    os.close(fd)
    os.chmod(tmp, FILE_MODE)
    light: list[dict] = []
    arrow_bytes = 0
    try:
        with pq.ParquetWriter(
            tmp, schema, compression="zstd", compression_level=ZSTD_LEVEL, use_dictionary=DICTIONARY_COLUMNS,
            write_statistics=STATISTICS_COLUMNS, data_page_size=DATA_PAGE_SIZE, version="2.6",
        ) as writer:
            batch: list[dict] = []
            batch_bytes = 0
            for row in rows:
                if row.get("config") != config:
                    raise OneRulerError(f"config {config}: generator yielded a row of config {row.get('config')!r}")
                batch.append(row)
                batch_bytes += _row_bytes(row)
                light.append({k: v for k, v in row.items() if k not in ("input", "needles", "queries", "answers")})
                if batch_bytes >= ROW_GROUP_MAX_BYTES:
                    table = pa.Table.from_pylist(batch, schema=schema)
                    arrow_bytes += table.nbytes
                    writer.write_table(table, row_group_size=len(batch))
                    batch, batch_bytes = [], 0
                if progress:
                    progress(1)
            if batch or not light:
                table = pa.Table.from_pylist(batch, schema=schema)
                arrow_bytes += table.nbytes
                writer.write_table(table, row_group_size=max(len(batch), 1))
        with open(tmp, "rb") as fh:
            os.fsync(fh.fileno())
        digest = sha256_file(tmp)
        rel = shard_relpath(config, digest)
        os.replace(tmp, out_dir / rel)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    stats = config_stats(light)
    stats["arrow_bytes"] = arrow_bytes
    return ShardInfo(config, rel, digest, (out_dir / rel).stat().st_size, len(light), stats)


# --------------------------------------------------------------------------- manifest


def new_manifest() -> dict:
    """An empty export manifest."""
    return {"format": MANIFEST_FORMAT, "sources": {}, "fixes": [], "books": {}, "configs": {}}


def read_manifest(out_dir: str | os.PathLike) -> dict | None:
    """The manifest of an export folder, or None if it has none (errors name the file)."""
    path = Path(out_dir) / MANIFEST_NAME
    if not path.exists():
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise OneRulerError(f"{path}: not valid JSON ({exc}); delete the folder and rebuild") from None
    if not isinstance(doc, dict) or doc.get("format") != MANIFEST_FORMAT:
        raise OneRulerError(f"{path}: not a oneruler export manifest (format {doc.get('format') if isinstance(doc, dict) else None!r}, expected {MANIFEST_FORMAT!r})")
    for key, default in new_manifest().items():
        doc.setdefault(key, default)
    return doc


def dump_manifest(manifest: dict) -> bytes:
    """Canonical JSON bytes (sorted keys, configs in name order): no timestamps, reproducible."""
    doc = dict(manifest)
    doc["configs"] = {k: manifest["configs"][k] for k in sorted(manifest["configs"])}
    return (json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode("utf-8")


def write_manifest(out_dir: str | os.PathLike, manifest: dict) -> None:
    """Atomically write ``manifest.json``."""
    atomic_write_bytes(Path(out_dir) / MANIFEST_NAME, dump_manifest(manifest))


def write_readme(out_dir: str | os.PathLike, manifest: dict) -> None:
    """Atomically (re)write ``README.md`` so it lists exactly the configs in the manifest."""
    from .card import render_readme

    atomic_write_bytes(Path(out_dir) / README_NAME, render_readme(manifest).encode("utf-8"))


def check_shards(out_dir: str | os.PathLike, manifest: dict) -> dict[str, str | None]:
    """Config → None if its shard exists with the recorded size and sha256, else what is wrong."""
    out_dir = Path(out_dir)
    result: dict[str, str | None] = {}
    for name, entry in sorted(manifest["configs"].items()):
        path = out_dir / entry["file"]
        if not path.is_file():
            result[name] = f"missing shard {entry['file']}"
        elif path.stat().st_size != entry["size"]:
            result[name] = f"{entry['file']}: size {path.stat().st_size} != recorded {entry['size']}"
        else:
            digest = sha256_file(path)
            result[name] = None if digest == entry["sha256"] else f"{entry['file']}: sha256 {digest[:16]}… != recorded {entry['sha256'][:16]}…"
    return result


def collect_garbage(out_dir: str | os.PathLike, manifest: dict) -> list[str]:
    """Delete files under ``data/`` that the manifest does not reference (and leftover temp files)."""
    out_dir = Path(out_dir)
    keep = {entry["file"] for entry in manifest["configs"].values()}
    removed = []
    data = out_dir / DATA_DIR
    if data.is_dir():
        for path in sorted(data.rglob("*")):
            if path.is_file() and path.relative_to(out_dir).as_posix() not in keep:
                path.unlink()
                removed.append(path.relative_to(out_dir).as_posix())
        for path in sorted(data.iterdir()):
            if path.is_dir() and not any(path.iterdir()):
                path.rmdir()
    for path in out_dir.glob(TMP_PREFIX + "*"):
        path.unlink(missing_ok=True)
    return removed


# --------------------------------------------------------------------------- inputs (sources, tokenizers, generator)


class BuildInputs:
    """Everything a config's rows depend on besides (config, seed, samples): sources and tokenizers.

    Loaded once per process; the generator is ``builders.generate.generate_rows``.
    """

    def __init__(self, mirror: str | None = None, cache_dir: str | None = None,
                 tokenizer_specs: dict[str, str] | None = None):
        from .sources import load_sources
        from .tokenizer import TokenizerRegistry

        self.mirror = mirror
        self.cache_dir = cache_dir
        self.tokenizer_specs = dict(tokenizer_specs or {})
        self.sources = load_sources(mirror, cache_dir)
        self.tokenizers = TokenizerRegistry(self.tokenizer_specs)

    def tokenizer_record(self, alias: str) -> dict:
        """What the manifest records about the tokenizer behind ``alias``."""
        return self.tokenizers.get(alias).describe()

    def rows(self, spec: ConfigSpec, samples: int, seed: int) -> Iterator[dict]:
        """The rows of one config, in index order."""
        from .generate import generate_rows

        return generate_rows(spec, sources=self.sources, tokenizer=self.tokenizers.get(spec.alias),
                             samples=samples, seed=seed)

    def card_facts(self) -> tuple[list[dict], dict]:
        """(data fixes, measured books) for the card, cached on disk beside the sources.

        Computing them loads and tokenises all 26 books (~10 s); the cache key covers the source
        hashes, the cl100k fingerprint, the oneruler version and the code that cleans the sources.
        """
        from .fetch import default_cache_dir

        code = "".join(
            hashlib.sha256((Path(__file__).parent / f).read_bytes()).hexdigest() for f in ("sources.py", "export.py")
        )
        key = hashlib.sha256(json.dumps(
            [self.sources.file_hashes, self.tokenizers.get("cl100k").fingerprint, package_versions()["oneruler"], code],
            sort_keys=True).encode()).hexdigest()
        path = Path(self.cache_dir or default_cache_dir()) / "card-facts" / f"{key}.json"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            return doc["fixes"], doc["books"]
        except (OSError, ValueError, KeyError):
            pass
        fixes, books = self.fixes(), self.books()
        try:
            atomic_write_bytes(path, json.dumps({"fixes": fixes, "books": books}, sort_keys=True).encode("utf-8"))
        except OSError:
            pass  # a read-only cache only costs time
        return fixes, books

    def fixes(self) -> list[dict]:
        """The data fixes applied to the sources (for the card), in a canonical order."""
        out = [{"name": f.name, "language": f.language, "count": int(f.count), "description": f.description}
               for f in self.sources.fixes]
        return sorted(out, key=lambda f: (f["name"], f["language"]))

    def books(self) -> dict:
        """Per language: the book's source path, sha256 and measured cl100k tokens of the cleaned text."""
        from .manifest import load_manifest as load_source_manifest

        cl100k = self.tokenizers.get("cl100k")
        out = {}
        for entry in load_source_manifest():
            if entry.kind != "book":
                continue
            text = self.sources.book_text(entry.language)
            out[entry.language] = {"path": entry.path, "sha256": entry.sha256, "tokenizer": cl100k.identity,
                                   "characters": len(text), "tokens": cl100k.count(text)}
        return dict(sorted(out.items()))


_WORKER: dict = {}


def _init_worker(mirror, cache_dir, tokenizer_specs, progress_queue) -> None:
    _WORKER["inputs"] = BuildInputs(mirror, cache_dir, tokenizer_specs)
    _WORKER["queue"] = progress_queue


def _worker_build(name: str, out_dir: str, samples: int, seed: int, aliases: tuple[str, ...]) -> ShardInfo:
    inputs: BuildInputs = _WORKER["inputs"]
    q = _WORKER.get("queue")
    spec = parse_config_name(name, aliases)
    progress = (lambda n: q.put((name, n))) if q is not None else None
    if q is not None:
        q.put((name, 0))
    return write_shard(inputs.rows(spec, samples, seed), out_dir, name, progress=progress)


# --------------------------------------------------------------------------- the build


@dataclass
class BuildSummary:
    """What a build did."""

    out_dir: Path
    built: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    total_configs: int = 0
    total_bytes: int = 0
    seconds: float = 0.0


def _expected_entry(inputs: BuildInputs, spec: ConfigSpec, samples: int, seed: int, versions: dict) -> dict:
    return {"seed": seed, "samples": samples, "tokenizer": inputs.tokenizer_record(spec.alias),
            "task": spec.task, "context_language": spec.context_language,
            "instruction_language": spec.instruction_language, "length": spec.length,
            "packages": versions, "generator": generator_fingerprint()}


def _is_current(out_dir: Path, entry: dict | None, expected: dict) -> bool:
    if not entry:
        return False
    for key in ("seed", "samples"):
        if entry.get(key) != expected[key]:
            return False
    # The tokenizer is the same if alias, identity and fingerprint agree (its spec may be spelled differently).
    tok, want = entry.get("tokenizer") or {}, expected["tokenizer"]
    if any(tok.get(k) != want.get(k) for k in ("alias", "identity", "fingerprint")):
        return False
    if entry.get("packages", {}).get("oneruler") != expected["packages"]["oneruler"]:
        return False
    if entry.get("generator") != expected["generator"]:
        return False
    path = out_dir / entry["file"]
    return path.is_file() and path.stat().st_size == entry["size"] and sha256_file(path) == entry["sha256"]


class _Progress:
    """One tqdm bar per config in flight (on stderr) plus an overall bar; fed from any process."""

    def __init__(self, total_configs: int, samples: int, enabled: bool):
        from tqdm.auto import tqdm

        self._tqdm = tqdm
        self.enabled = enabled
        self.samples = samples
        self.bars: dict = {}
        self.overall = tqdm(total=total_configs, desc="configs", unit="config", file=sys.stderr,
                            disable=not enabled, position=0, dynamic_ncols=True)
        self._slots: list[str | None] = []

    def update(self, name: str, n: int) -> None:
        if not self.enabled:
            return
        bar = self.bars.get(name)
        if bar is None:
            slot = next((i for i, s in enumerate(self._slots) if s is None), len(self._slots))
            if slot == len(self._slots):
                self._slots.append(None)
            self._slots[slot] = name
            bar = self._tqdm(total=self.samples, desc=name, unit="ex", file=sys.stderr, leave=False,
                             position=slot + 1, dynamic_ncols=True)
            self.bars[name] = bar
        if n:
            bar.update(n)

    def done(self, name: str) -> None:
        bar = self.bars.pop(name, None)
        if bar is not None:
            bar.close()
            self._slots[self._slots.index(name)] = None
        self.overall.update(1)

    def close(self) -> None:
        for name in list(self.bars):
            self.bars.pop(name).close()
        self.overall.close()


def build_dataset(
    patterns: Iterable[str],
    out_dir: str | os.PathLike,
    samples: int = 50,
    seed: int = 42,
    num_proc: int = 1,
    tokenizer_specs: dict[str, str] | None = None,
    *,
    mirror: str | None = None,
    cache_dir: str | None = None,
    force: bool = False,
    progress: bool = True,
    log: Callable[[str], None] | None = None,
) -> BuildSummary:
    """Build the configs matching ``patterns`` into ``out_dir`` (adding to what it already holds).

    Skips configs whose shard matches the manifest and whose recorded inputs (seed, samples,
    tokenizer identity and fingerprint, oneruler version) equal this build's, unless ``force``.
    Results are byte-identical for any ``num_proc`` and any build order.
    """
    t0 = time.perf_counter()
    log = log or (lambda msg: click.echo(msg, err=True))
    if samples < 1:
        raise OneRulerError(f"--samples must be at least 1 (got {samples})")
    if num_proc < 1:
        raise OneRulerError(f"--num-proc must be at least 1 (got {num_proc})")
    tokenizer_specs = dict(tokenizer_specs or {})
    aliases = tuple(tokenizer_specs)
    specs = match_configs(list(patterns), aliases)
    if not specs:
        raise OneRulerError("no config to build: give at least one config name or glob, e.g. 'pl_*_8k'")
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise OneRulerError(f"--out {out}: exists and is not a folder")
    out.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(out)
    if manifest is None:
        if any(p for p in out.iterdir() if not p.name.startswith(".")):
            raise OneRulerError(f"--out {out}: folder is not empty and has no {MANIFEST_NAME}; choose an empty or new folder")
        manifest = new_manifest()

    inputs = BuildInputs(mirror, cache_dir, tokenizer_specs)
    sources = inputs.sources.file_hashes
    if manifest["configs"] and manifest["sources"] and manifest["sources"] != sources:
        changed = sorted(set(manifest["sources"].items()) ^ set(sources.items()))
        raise OneRulerError(
            f"{out}: its configs were built from other source files ({len(changed)} differ, e.g. {changed[0][0]}); "
            f"build into a new --out folder"
        )
    manifest["sources"] = sources
    manifest["fixes"], manifest["books"] = inputs.card_facts()
    versions = package_versions()

    summary = BuildSummary(out)
    expected = {s.name: _expected_entry(inputs, s, samples, seed, versions) for s in specs}
    todo = []
    for spec in specs:
        if not force and _is_current(out, manifest["configs"].get(spec.name), expected[spec.name]):
            summary.skipped.append(spec.name)
        else:
            todo.append(spec.name)
    if summary.skipped:
        log(f"skipping {len(summary.skipped)} config(s) already built with the same inputs")
    collect_garbage(out, manifest)
    write_manifest(out, manifest)
    write_readme(out, manifest)

    bars = _Progress(len(todo), samples, enabled=progress and bool(todo))

    def finish(info: ShardInfo) -> None:
        # Order matters for an interruption at any point: shard (already renamed) -> manifest ->
        # README -> only then delete the superseded shard the old README may still point to.
        entry = dict(expected[info.config])
        entry.update(file=info.file, sha256=info.sha256, size=info.size, num_rows=info.num_rows, stats=info.stats)
        manifest["configs"][info.config] = entry
        write_manifest(out, manifest)
        write_readme(out, manifest)
        for path in (out / DATA_DIR / info.config).iterdir():
            if path.relative_to(out).as_posix() != info.file and not path.name.startswith(TMP_PREFIX):
                path.unlink(missing_ok=True)
        summary.built.append(info.config)
        bars.done(info.config)

    # Longest jobs first (CWE at the largest lengths dominate), so parallel workers finish together.
    cost = {s.name: (s.length, s.task.startswith("cwe")) for s in specs}
    todo.sort(key=lambda name: (cost[name][0], cost[name][1]), reverse=True)
    try:
        run_jobs([(name, samples, seed) for name in todo], out, aliases, num_proc, inputs, tokenizer_specs,
                 mirror, cache_dir, bars, finish)
    finally:
        bars.close()
        write_readme(out, manifest)
        collect_garbage(out, manifest)
        write_manifest(out, manifest)

    summary.total_configs = len(manifest["configs"])
    summary.total_bytes = sum(e["size"] for e in manifest["configs"].values())
    summary.seconds = time.perf_counter() - t0
    return summary


def run_jobs(jobs: list[tuple[str, int, int]], out: Path, aliases: tuple[str, ...], num_proc: int,
             inputs: BuildInputs, tokenizer_specs: dict[str, str], mirror: str | None, cache_dir: str | None,
             bars: _Progress, finish: Callable[[ShardInfo], None]) -> None:
    """Write the shard of every (config, samples, seed) job into ``out``; call ``finish`` as each completes.

    ``num_proc`` > 1 uses that many spawned worker processes (each loads sources and tokenizers
    once); the bytes written do not depend on it. A failure names the config and stops the rest.
    """
    if num_proc == 1 or len(jobs) <= 1:
        for name, samples, seed in jobs:
            spec = parse_config_name(name, aliases)
            bars.update(name, 0)
            try:
                info = write_shard(inputs.rows(spec, samples, seed), out, name,
                                   progress=lambda n, name=name: bars.update(name, n))
            except OneRulerError:
                raise
            except Exception as exc:  # name the config at fault
                raise OneRulerError(f"config {name}: build failed: {type(exc).__name__}: {exc}") from exc
            finish(info)
        return
    _build_parallel(jobs, out, aliases, min(num_proc, len(jobs)), tokenizer_specs, mirror, cache_dir, bars, finish)


def _build_parallel(jobs, out, aliases, workers, tokenizer_specs, mirror, cache_dir, bars: _Progress, finish) -> None:
    import multiprocessing as mp

    ctx = mp.get_context("spawn")
    manager = ctx.Manager()
    try:
        q = manager.Queue()
        stop = threading.Event()

        def pump() -> None:
            while not stop.is_set():
                try:
                    name, n = q.get(timeout=0.1)
                except queue_mod.Empty:
                    continue
                except (EOFError, OSError):
                    return
                bars.update(name, n)

        thread = threading.Thread(target=pump, daemon=True)
        thread.start()
        with ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                                 initargs=(mirror, cache_dir, tokenizer_specs, q)) as pool:
            pending = {pool.submit(_worker_build, name, str(out), samples, seed, aliases): name
                       for name, samples, seed in jobs}
            try:
                while pending:
                    done, _ = wait(pending, return_when=FIRST_COMPLETED)
                    for fut in done:
                        name = pending.pop(fut)
                        try:
                            info = fut.result()
                        except OneRulerError:
                            raise
                        except Exception as exc:  # name the config at fault
                            raise OneRulerError(f"config {name}: build failed: {type(exc).__name__}: {exc}") from exc
                        finish(info)
            except BaseException:
                for fut in pending:
                    fut.cancel()
                raise
        stop.set()
        thread.join(timeout=2)
    finally:
        manager.shutdown()


# --------------------------------------------------------------------------- CLI


def parse_tokenizer_options(options: Iterable[str]) -> dict[str, str]:
    """``["llama3=PATH", ...]`` → ``{"llama3": "PATH"}`` (errors name the faulty option)."""
    from .tokenizer import parse_tokenizer_option

    out: dict[str, str] = {}
    for option in options:
        alias, spec = parse_tokenizer_option(option)
        if alias in out and out[alias] != spec:
            raise OneRulerError(f"--tokenizer {alias}: given twice with different specs ({out[alias]!r}, {spec!r})")
        out[alias] = spec
    return out


@click.command("build")
@click.argument("patterns", nargs=-1, required=True, metavar="[GLOB ...]")
@click.option("--out", "out_dir", required=True, type=click.Path(file_okay=False), help="Export folder (created if needed).")
@click.option("--samples", default=50, show_default=True, type=int, help="Examples per config.")
@click.option("--seed", default=42, show_default=True, type=int, help="Base seed of every random draw.")
@click.option("--num-proc", default=1, show_default=True, type=int, help="Configs built in parallel processes.")
@click.option("--tokenizer", "tokenizers", multiple=True, metavar="ALIAS=SPEC",
              help="Register a token-control tokenizer (tiktoken encoding, hub id or local path).")
@source_options
@click.option("--force", is_flag=True, help="Rebuild configs even if their shards match the manifest.")
@click.option("--quiet", is_flag=True, help="No progress bars.")
@cli_errors
def build_command(patterns, out_dir, samples, seed, num_proc, tokenizers, mirror, cache_dir, force, quiet):
    """Build configs (names or globs over the standard grid) into the export folder --out."""
    summary = build_dataset(patterns, out_dir, samples=samples, seed=seed, num_proc=num_proc,
                            tokenizer_specs=parse_tokenizer_options(tokenizers), mirror=mirror,
                            cache_dir=cache_dir, force=force, progress=not quiet)
    click.echo(
        f"built {len(summary.built)}, skipped {len(summary.skipped)} (up to date); "
        f"{summary.out_dir} holds {summary.total_configs} configs, {summary.total_bytes / 1e6:.1f} MB of Parquet "
        f"({summary.seconds:.1f} s)"
    )
