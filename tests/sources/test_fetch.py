"""Fetching pinned sources from the shared mirror: as a folder, file:// and a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from builders.base.errors import IntegrityError, SourceError
from builders.sources.fetch import blob_path, fetch_sources, resolve_mirror
from builders.sources.manifest import load_manifest

BOOK = "OneRuler/data/books/ko/boys_sorrow_yi_kwangsu_ko.txt"


class _Handler(http.server.SimpleHTTPRequestHandler):
    truncate: set[str] = set()  # paths whose body is cut short (connection closed mid-way)
    drip: set[str] = set()  # paths sent one byte every DRIP_S seconds (never stalling a single read)

    def log_message(self, *args):  # keep test output clean
        pass

    def do_GET(self):
        rel = self.path.lstrip("/")
        if rel in self.drip:
            self._drip(rel)
            return
        if rel in self.truncate:
            data = (Path(self.directory) / rel).read_bytes()
            self.send_response(200)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            self.close_connection = True
            return
        super().do_GET()

    def _drip(self, rel: str) -> None:
        data = (Path(self.directory) / rel).read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            for i in range(60):  # bounded: the server never outlives the test
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(DRIP_S)
        except OSError:
            pass  # the client gave up
        self.close_connection = True


DRIP_S = 0.2


@pytest.fixture
def http_mirror(mirror):
    """A real HTTP server on 127.0.0.1 serving the shared mirror folder."""
    handler = functools.partial(_Handler, directory=str(mirror))
    _Handler.truncate = set()
    _Handler.drip = set()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _blobs(cache: Path) -> list[Path]:
    return sorted(p for p in (cache / "sha256").rglob("*") if p.is_file()) if (cache / "sha256").exists() else []


def test_manifest_matches_the_mirror_checksums(mirror):
    sums = dict(line.split("  ", 1)[::-1] for line in (mirror / "SHA256SUMS").read_text().splitlines())
    entries = load_manifest()
    assert len(entries) == 104
    for e in entries:
        assert sums[e.path] == e.sha256, e.path
        assert (mirror / e.path).stat().st_size == e.size


def test_fetch_from_folder_is_idempotent(mirror, tmp_path):
    first = fetch_sources(mirror=str(mirror), cache_dir=tmp_path, progress=False)
    assert len(first.downloaded) == 104 and not first.cached
    for e in load_manifest():
        blob = blob_path(tmp_path, e.sha256)
        assert hashlib.sha256(blob.read_bytes()).hexdigest() == e.sha256
    second = fetch_sources(mirror=str(mirror), cache_dir=tmp_path, progress=False)
    assert not second.downloaded and len(second.cached) == 104


def test_fetch_over_http_and_file_url(mirror, http_mirror, tmp_path):
    report = fetch_sources(mirror=http_mirror, cache_dir=tmp_path / "http", progress=False)
    assert len(report.downloaded) == 104
    report = fetch_sources(mirror=mirror.as_uri(), cache_dir=tmp_path / "file", progress=False)
    assert len(report.downloaded) == 104
    assert sorted(p.name for p in _blobs(tmp_path / "http")) == sorted(p.name for p in _blobs(tmp_path / "file"))


def test_corrupted_file_is_refused_by_the_cli(mirror, tmp_path):
    bad = tmp_path / "bad-mirror"
    shutil.copytree(mirror, bad)
    target = bad / BOOK
    data = bytearray(target.read_bytes())
    data[100] ^= 0x01
    target.write_bytes(bytes(data))
    cache = tmp_path / "cache"
    env = {**os.environ, "ONERULER_MIRROR": str(bad), "ONERULER_CACHE": str(cache)}
    proc = subprocess.run([sys.executable, "-m", "builders.cli", "fetch"], env=env, capture_output=True, text=True)
    assert proc.returncode == 1
    assert BOOK in proc.stderr and "does not match" in proc.stderr
    expected = next(e.sha256 for e in load_manifest() if e.path == BOOK)
    assert not blob_path(cache, expected).exists()
    assert not any(p.suffix == ".part" for p in cache.rglob("*"))
    # nothing with the corrupt bytes' digest was cached either
    assert hashlib.sha256(bytes(data)).hexdigest() not in {p.name for p in _blobs(cache)}


def test_interrupted_download_leaves_no_partial_file(http_mirror, tmp_path):
    _Handler.truncate = {BOOK}
    entry = [e for e in load_manifest() if e.path == BOOK]
    with pytest.raises(SourceError, match="interrupted"):
        fetch_sources(entry, mirror=http_mirror, cache_dir=tmp_path, progress=False)
    assert not _blobs(tmp_path)
    assert not list(tmp_path.rglob("*.part"))
    _Handler.truncate = set()
    assert fetch_sources(entry, mirror=http_mirror, cache_dir=tmp_path, progress=False).downloaded == [BOOK]


def test_corrupted_cache_blob_is_replaced(mirror, tmp_path):
    entry = [e for e in load_manifest() if e.path == BOOK]
    fetch_sources(entry, mirror=str(mirror), cache_dir=tmp_path, progress=False)
    blob = blob_path(tmp_path, entry[0].sha256)
    blob.write_bytes(b"garbage")
    report = fetch_sources(entry, mirror=str(mirror), cache_dir=tmp_path, progress=False)
    assert report.downloaded == [BOOK]
    assert hashlib.sha256(blob.read_bytes()).hexdigest() == entry[0].sha256


def test_missing_file_and_bad_mirror_errors(tmp_path):
    (tmp_path / "empty").mkdir()
    entry = load_manifest()[:1]
    with pytest.raises(SourceError, match="not found in the mirror"):
        fetch_sources(entry, mirror=str(tmp_path / "empty"), cache_dir=tmp_path / "c", progress=False)
    with pytest.raises(SourceError, match="does not exist"):
        resolve_mirror(str(tmp_path / "nope"))
    with pytest.raises(SourceError, match="unsupported scheme"):
        resolve_mirror("ftp://example.invalid/x")
    assert issubclass(IntegrityError, SourceError)


def test_http_404_names_the_url(http_mirror, tmp_path):
    from builders.sources.manifest import SourceFile

    ghost = SourceFile("OneRuler/data/nope.txt", "0" * 64, 1, "book", "xx", "MIT")
    with pytest.raises(SourceError, match=r"nope\.txt: HTTP 404"):
        fetch_sources([ghost], mirror=http_mirror, cache_dir=tmp_path, progress=False)


def test_a_dripping_download_fails_at_its_deadline_naming_the_file_and_bytes(http_mirror, tmp_path, monkeypatch):
    """One byte every 0.2 s never trips the 60 s per-read timeout; the per-file deadline stops it."""
    _Handler.drip = {BOOK}
    monkeypatch.setenv("ONERULER_DOWNLOAD_TIMEOUT", "1.5")
    entry = [e for e in load_manifest() if e.path == BOOK]
    t0 = time.monotonic()
    with pytest.raises(SourceError) as info:
        fetch_sources(entry, mirror=http_mirror, cache_dir=tmp_path, progress=False)
    elapsed = time.monotonic() - t0
    message = str(info.value)
    assert message.startswith(f"{BOOK}: download did not finish within ONERULER_DOWNLOAD_TIMEOUT=1.5 s")
    received = int(message.split("(")[1].split(" of ")[0])
    assert 3 <= received <= 12 and f"of {entry[0].size} bytes received" in message
    assert elapsed < 10  # a deadline, not the per-read timeout (60 s)
    assert not _blobs(tmp_path) and not list(tmp_path.rglob("*.part"))


@pytest.mark.parametrize("value", ["soon", "0", "-5", "inf", "nan"])
def test_a_bad_download_timeout_is_refused_by_name(mirror, tmp_path, monkeypatch, value):
    monkeypatch.setenv("ONERULER_DOWNLOAD_TIMEOUT", value)
    with pytest.raises(SourceError, match=f"ONERULER_DOWNLOAD_TIMEOUT='{value}': expected a positive number"):
        fetch_sources(load_manifest()[:1], mirror=str(mirror), cache_dir=tmp_path, progress=False)


@pytest.mark.parametrize("umask, mode", [(0o022, 0o644), (0o027, 0o640)])
def test_cache_files_honour_the_umask(mirror, tmp_path, umask, mode):
    """A cache shared by a team: blobs readable by the group (and others under 022), not mkstemp's 0600."""
    old = os.umask(umask)
    try:
        fetch_sources(load_manifest()[:3], mirror=str(mirror), cache_dir=tmp_path, progress=False)
    finally:
        os.umask(old)
    blobs = _blobs(tmp_path)
    assert len(blobs) == 3
    assert {p.stat().st_mode & 0o777 for p in blobs} == {mode}


def test_concurrent_fetches_into_one_cache(mirror, tmp_path):
    """Two real `oneruler fetch` processes filling one empty cache at once both succeed."""
    env = {**os.environ, "ONERULER_MIRROR": str(mirror), "ONERULER_CACHE": str(tmp_path / "cache"),
           "PYTHONPATH": str(Path(__file__).resolve().parents[2])}
    procs = [subprocess.Popen([sys.executable, "-m", "builders.cli", "fetch"], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(2)]
    results = [p.communicate(timeout=300) + (p.returncode,) for p in procs]
    assert [r[2] for r in results] == [0, 0], [r[1][-2000:] for r in results]
    entries = load_manifest()
    assert len(_blobs(tmp_path / "cache")) == len(entries)
    for e in entries:
        assert hashlib.sha256(blob_path(tmp_path / "cache", e.sha256).read_bytes()).hexdigest() == e.sha256
    assert not list((tmp_path / "cache").rglob("*.part"))


def test_fetch_into_writes_a_mirror_folder_that_a_fetch_can_read(mirror, tmp_path):
    """`oneruler fetch --into DIR`: the pinned files in their upstream layout with a SHA256SUMS, as ../shared has."""
    from click.testing import CliRunner

    from builders.cli import cli

    into = tmp_path / "made-upstream"
    result = CliRunner().invoke(cli, ["fetch", "--mirror", str(mirror), "--cache-dir", str(tmp_path / "c"),
                                      "--into", str(into)])
    assert result.exit_code == 0, result.output
    ours = (into / "SHA256SUMS").read_text().splitlines()
    theirs = set((mirror / "SHA256SUMS").read_text().splitlines())
    assert len(ours) == len(load_manifest()) and set(ours) <= theirs
    for line in ours:
        digest, path = line.split("  ", 1)
        assert (into / path).read_bytes() == (mirror / path).read_bytes()
    again = fetch_sources(mirror=str(into), cache_dir=tmp_path / "again", progress=False)
    assert len(again.downloaded) == len(ours)


def test_fetch_into_still_writes_the_files_that_arrived_when_one_is_missing(mirror, tmp_path):
    import shutil

    from click.testing import CliRunner

    from builders.cli import cli

    partial = tmp_path / "partial"
    shutil.copytree(mirror, partial)
    gone = load_manifest()[0].path
    (partial / gone).unlink()
    result = CliRunner().invoke(cli, ["fetch", "--mirror", str(partial), "--cache-dir", str(tmp_path / "c"),
                                      "--into", str(tmp_path / "made")])
    assert result.exit_code == 2 and f"wrote {len(load_manifest()) - 1} of {len(load_manifest())} files" in result.stderr
    assert gone in result.stderr and not (tmp_path / "made" / gone).exists()
    assert len((tmp_path / "made" / "SHA256SUMS").read_text().splitlines()) == len(load_manifest()) - 1
