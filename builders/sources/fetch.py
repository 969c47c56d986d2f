"""Download pinned upstream files into a content-addressed cache, verifying sha256.

Where bytes come from: ``mirror``/``ONERULER_MIRROR`` (local folders, each with an upstream's layout, separated
by ``os.pathsep``; a ``file://`` URL or an ``http(s)://`` base URL: ``mirror.py``), else each file's pinned
upstream URLs, then its alternates' (a file whose bytes come in two pinned forms). Where they go:
``ONERULER_CACHE`` or the user cache dir, as ``sha256/<ab>/<digest>``; a blob is written to a temp
file and renamed only after its sha256 checks out, so an interrupted or corrupt download leaves
nothing behind. Fetching is idempotent: cached blobs are re-hashed, never re-downloaded. A file that is
in no mirror folder (or answered with HTTP 404) does not stop the others: every other file is fetched,
then one error names the missing ones and how to get them.

Deadlines: every read waits at most ``TIMEOUT_S`` (60 s) for data, and a whole file must arrive
within ``ONERULER_DOWNLOAD_TIMEOUT`` seconds (default 600: the largest pinned file, 4 MB, at 7 KB/s),
else it fails naming the file and the bytes received. Cache files get the usual umask-based mode
(0644 under umask 022), so a cache can be shared. Several processes may fetch into one cache at
once: each writes its own temp file (named after its pid) and the rename is atomic.
"""

from __future__ import annotations

import hashlib
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import platformdirs

from ..base.errors import IntegrityError, SourceError, describe_os_error, named_setting
from ..base.files import CHUNK, named_os_error, new_temp_file, sha256_file
from ..base.progress import iterate
from .manifest import SourceFile, load_manifest
from .mirror import Candidate, Mirror, MissingSource, resolve_mirror

TIMEOUT_S = 60
DOWNLOAD_TIMEOUT_ENV = "ONERULER_DOWNLOAD_TIMEOUT"
DEFAULT_DOWNLOAD_TIMEOUT_S = 600.0


def download_deadline() -> float:
    """Seconds one file may take to download: ``$ONERULER_DOWNLOAD_TIMEOUT`` or 600."""
    text = os.environ.get(DOWNLOAD_TIMEOUT_ENV, "").strip()
    if not text:
        return DEFAULT_DOWNLOAD_TIMEOUT_S
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0 or value == float("inf"):
        raise SourceError(f"{DOWNLOAD_TIMEOUT_ENV}={text!r}: expected a positive number of seconds, e.g. 600")
    return value


def default_cache_dir() -> Path:
    """``$ONERULER_CACHE`` or the platform's user cache dir for oneruler."""
    env = os.environ.get("ONERULER_CACHE")
    return Path(env).expanduser() if env else Path(platformdirs.user_cache_dir("oneruler"))


def blob_path(cache_dir: Path, sha256: str) -> Path:
    """Where a verified file lives in the content-addressed cache."""
    return cache_dir / "sha256" / sha256[:2] / sha256


def _open(url: str, timeout: float):
    if url.startswith("file:"):
        path = Path(urllib.request.url2pathname(urllib.parse.urlparse(url).path))
        try:
            return open(path, "rb"), path.stat().st_size
        except FileNotFoundError:
            raise MissingSource(f"{url}: not found in the mirror") from None
    try:
        resp = urllib.request.urlopen(url, timeout=timeout)  # noqa: S310 (http/https only here)
    except urllib.error.HTTPError as exc:
        kind = MissingSource if exc.code == 404 else SourceError
        raise kind(f"{url}: HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        raise SourceError(f"{url}: cannot download ({getattr(exc, 'reason', exc)}); "
                          f"offline? point {named_setting('mirror')}/ONERULER_MIRROR at a local copy") from None
    length = resp.headers.get("Content-Length")
    return resp, int(length) if length and length.isdigit() else None


@dataclass
class FetchReport:
    """What a fetch did: files per outcome (upstream paths)."""

    downloaded: list[str] = field(default_factory=list)
    cached: list[str] = field(default_factory=list)
    paths: dict[str, Path] = field(default_factory=dict)


def _copy(src, out, url: str, name: str, expected_len: int | None, seconds: float) -> tuple[str, int]:
    """Copy ``src`` to ``out`` before the deadline; return (sha256, size)."""
    deadline = time.monotonic() + seconds
    h = hashlib.sha256()
    size = 0
    read = getattr(src, "read1", src.read)  # read1: return what has arrived, so the deadline is checked often
    while True:
        if time.monotonic() > deadline:
            of = f" of {expected_len}" if expected_len is not None else ""
            raise SourceError(f"{name}: download did not finish within {DOWNLOAD_TIMEOUT_ENV}={seconds:g} s "
                              f"({size}{of} bytes received from {url}); use a faster {named_setting('mirror')} or raise "
                              f"{DOWNLOAD_TIMEOUT_ENV}")
        try:
            chunk = read(CHUNK)
        except (OSError, urllib.error.URLError) as exc:  # includes http.client.IncompleteRead and socket timeouts
            raise SourceError(f"{url}: download interrupted after {size} bytes ({exc})") from None
        if not chunk:
            return h.hexdigest(), size
        h.update(chunk)
        size += len(chunk)
        out.write(chunk)


def _cache_error(exc: OSError) -> SourceError:
    return SourceError(f"source cache: {describe_os_error(exc)} (another cache: {named_setting('cache_dir')} or "
                       f"ONERULER_CACHE)")


def _temp_part(cache_dir: Path) -> tuple[int, Path]:
    try:
        return new_temp_file(cache_dir / "tmp", prefix=f"{os.getpid()}-", suffix=".part")
    except OSError as exc:
        raise _cache_error(exc) from None


def _cached(entry: SourceFile, cache_dir: Path) -> Path | None:
    """The verified cache blob of ``entry`` (or of one of its alternates); a corrupted blob is dropped."""
    for pin in (entry, *entry.alternates):
        target = blob_path(cache_dir, pin.sha256)
        if target.exists():
            if sha256_file(target) == pin.sha256:
                return target
            target.unlink()  # a corrupted cache blob is dropped and fetched again
    return None


def _download(entry: SourceFile, candidate: Candidate, cache_dir: Path) -> Path:
    """Copy one candidate into the cache, verified against its pin (or any the entry accepts); the blob's path."""
    url = candidate.url
    seconds = download_deadline()
    fd, tmp = _temp_part(cache_dir)
    try:
        try:
            with os.fdopen(fd, "wb") as out:
                src, expected_len = _open(url, min(TIMEOUT_S, seconds))
                with src:
                    digest, size = _copy(src, out, url, entry.path, expected_len, seconds)
        except OSError as exc:  # writing into the cache (reading errors are SourceErrors by now)
            raise _cache_error(named_os_error(exc, tmp)) from None
        if expected_len is not None and size != expected_len:
            raise SourceError(f"{url}: download interrupted: got {size} of {expected_len} bytes")
        pin = candidate.pin
        if not (digest == pin.sha256 and size == pin.size if pin is not None else entry.accepts(digest, size)):
            pin = pin or entry
            alternates = len(entry.alternates) if pin is entry else 0
            others = f" (nor any of its {alternates} alternates)" if alternates else ""
            raise IntegrityError(
                f"{entry.path}: sha256 {digest} ({size} bytes) from {url} does not match the pinned "
                f"{pin.sha256} ({pin.size} bytes){others}; refusing it"
            )
        target = blob_path(cache_dir, digest)
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(tmp, target)
        return target
    finally:
        tmp.unlink(missing_ok=True)


def _failure(failures: list[SourceError]) -> SourceError:
    """One error for every place that failed: the first's kind when all agree, else the gravest."""
    if len(failures) == 1:
        return failures[0]
    kinds = {type(f) for f in failures}
    kind = kinds.pop() if len(kinds) == 1 else IntegrityError if IntegrityError in kinds else SourceError
    return kind("; then ".join(f.marked for f in failures))


def fetch_file(entry: SourceFile, mirror: Mirror, cache_dir: Path) -> tuple[Path, bool]:
    """Ensure one file is in the cache; returns (blob path, downloaded?).

    Raises IntegrityError on a mismatch, ``MissingSource`` when the mirror does not have it.
    """
    cached = _cached(entry, cache_dir)
    if cached is not None:
        return cached, False
    failures: list[SourceError] = []
    for candidate in mirror.candidates(entry):
        try:
            return _download(entry, candidate, cache_dir), True
        except SourceError as exc:
            failures.append(exc)
    raise _failure(failures)


def _missing(missing: list[tuple[SourceFile, MissingSource]], fetched: int) -> MissingSource:
    """One error for the files no mirror had: the first's message, then the others' paths."""
    (_, first), rest = missing[0], missing[1:]
    if not rest:
        return first
    others = ", ".join(entry.path for entry, _ in rest[:5]) + (f" and {len(rest) - 5} more" if len(rest) > 5 else "")
    return MissingSource(f"{len(missing)} pinned files are missing ({fetched} others verified and cached): "
                         f"{first.marked}; also missing: {others}")


def _purge_stale_parts(cache_dir: Path) -> None:
    """Remove temp files left by processes that were killed mid-download."""
    tmp_dir = cache_dir / "tmp"
    if not tmp_dir.is_dir():
        return
    for part in tmp_dir.glob("*.part"):
        pid = part.name.split("-", 1)[0]
        alive = pid.isdigit() and _pid_alive(int(pid))
        if not alive or int(pid) == os.getpid():
            part.unlink(missing_ok=True)


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def fetch_sources(
    entries: Iterable[SourceFile] | None = None,
    mirror: str | os.PathLike | None = None,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> FetchReport:
    """Fetch (or find in the cache) every given manifest entry (default: ONERULER's), verified by sha256.

    A file missing from the mirror does not stop the others: each other file is fetched, then one
    ``MissingSource`` names the missing ones. Any other failure stops at once with an error naming the
    file. Files fetched before a failure stay cached.
    """
    entries = list(load_manifest() if entries is None else entries)
    where = resolve_mirror(mirror)
    cache = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _cache_error(exc) from None
    _purge_stale_parts(cache)
    report = FetchReport()
    missing: list[tuple[SourceFile, MissingSource]] = []
    for entry in iterate(entries, desc="fetch", unit="file", enabled=progress):
        try:
            path, downloaded = fetch_file(entry, where, cache)
        except MissingSource as exc:
            missing.append((entry, exc))
            continue
        (report.downloaded if downloaded else report.cached).append(entry.path)
        report.paths[entry.path] = path
    if missing:
        raise _missing(missing, len(report.paths))
    return report


def write_mirror(entries: Iterable[SourceFile], cache_dir: str | os.PathLike | None,
                 into: str | os.PathLike) -> list[SourceFile]:
    """Copy the verified files of the cache into ``into``, each at its upstream path, with a ``SHA256SUMS`` of every
    file the folder holds (lines of an earlier ``--into`` kept): a folder that ``mirror``/``ONERULER_MIRROR`` can
    name. Entries not in the cache (a fetch that failed for them) are left out; returns those written. Each file
    is written to a temp name, then renamed."""
    from ..base.files import atomic_write_bytes

    cache = Path(cache_dir).expanduser() if cache_dir else default_cache_dir()
    root = Path(into).expanduser()
    sums_file = root / "SHA256SUMS"
    written = []
    try:
        sums = {line[66:]: line for line in (sums_file.read_text().splitlines() if sums_file.is_file() else [])}
        for entry in entries:
            blob, target = blob_path(cache, entry.sha256), root / entry.path
            if not blob.is_file():
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            if not target.is_file() or sha256_file(target) != entry.sha256:
                atomic_write_bytes(target, blob.read_bytes())
            sums[entry.path] = f"{entry.sha256}  {entry.path}"
            written.append(entry)
        atomic_write_bytes(sums_file, "".join(sums[path] + "\n" for path in sorted(sums)).encode())
    except OSError as exc:
        raise SourceError(f"cannot write the mirror {root}: {describe_os_error(exc)}") from None
    return written
