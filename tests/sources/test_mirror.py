"""Several mirror folders in one ONERULER_MIRROR, a URL base left whole, and alternates of a pinned file.

Files are tiny ones written here (each pinned by a test manifest entry) and served from folders or a
real HTTP server on 127.0.0.1; nothing leaves the machine.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from builders.base.errors import IntegrityError, SourceError
from builders.sources.fetch import blob_path, fetch_sources
from builders.sources.manifest import Alternate, SourceFile
from builders.sources.mirror import Mirror, MissingSource, resolve_mirror

REPO = Path(__file__).resolve().parents[2]


def entry_for(folder: Path | None, relative: str, data: bytes, urls: tuple[str, ...] = ()) -> SourceFile:
    """A test manifest entry pinning ``data`` (written at ``folder/relative`` when a folder is given)."""
    if folder is not None:
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_bytes(data)
    return SourceFile(relative, hashlib.sha256(data).hexdigest(), len(data), "test", "en", "test", urls=urls)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def served(tmp_path):
    """A real HTTP server on 127.0.0.1 serving ``tmp_path / "site"``; yields (folder, base URL)."""
    site = tmp_path / "site"
    site.mkdir()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield site, f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_each_file_is_found_in_whichever_folder_holds_it(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    a = entry_for(first, "repo-a/data/a.txt", b"alpha\n")
    b = entry_for(second, "b.json", b'{"b": 1}')
    report = fetch_sources([a, b], mirror=f"{first}{os.pathsep}{second}", cache_dir=tmp_path / "cache", progress=False)
    assert report.downloaded == [a.path, b.path]
    assert report.paths[b.path].read_bytes() == b'{"b": 1}'
    assert report.paths[b.path] == blob_path(tmp_path / "cache", b.sha256)


def test_the_first_folder_holding_a_path_wins_and_is_verified(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    (first / "x").mkdir(parents=True)
    (first / "x/f.txt").write_bytes(b"not the pinned bytes")
    entry = entry_for(second, "x/f.txt", b"pinned bytes")
    with pytest.raises(IntegrityError, match=r"x/f\.txt: sha256 .* does not match the pinned"):
        fetch_sources([entry], mirror=f"{first}{os.pathsep}{second}", cache_dir=tmp_path / "cache", progress=False)


def test_a_file_in_no_folder_names_itself_the_folders_and_how_to_get_it(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir()
    second.mkdir()
    entry = entry_for(None, "dataset/dev-v2.0.json", b"{}", urls=("https://example.invalid/dataset/dev-v2.0.json",))
    with pytest.raises(MissingSource) as info:
        fetch_sources([entry], mirror=f"{first}{os.pathsep}{second}", cache_dir=tmp_path / "cache", progress=False)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("dataset/dev-v2.0.json: not found in the mirror (looked in ")
    assert f"{first}, {second}" in message
    assert "save https://example.invalid/dataset/dev-v2.0.json as dataset/dev-v2.0.json" in message
    assert "oneruler fetch --sources all" in message


def test_missing_files_do_not_stop_the_others(tmp_path):
    folder = tmp_path / "one"
    present = [entry_for(folder, f"p{i}.txt", f"present {i}".encode()) for i in range(3)]
    absent = [entry_for(None, f"gone{i}.txt", f"gone {i}".encode()) for i in range(2)]
    with pytest.raises(MissingSource) as info:
        fetch_sources([absent[0], *present, absent[1]], mirror=str(folder), cache_dir=tmp_path / "c", progress=False)
    message = str(info.value)
    assert message.startswith("2 pinned files are missing (3 others verified and cached): gone0.txt: not found")
    assert message.endswith("also missing: gone1.txt")
    assert all(blob_path(tmp_path / "c", e.sha256).is_file() for e in present)  # nothing fetched is lost


def test_a_url_is_one_base_and_only_plain_paths_are_split(tmp_path, served):
    site, base = served
    entry = entry_for(site, "deep/f.txt", b"served")
    assert resolve_mirror(base) == Mirror(base_url=base)  # ':' of the port and the scheme: not a separator
    assert resolve_mirror("file:///srv/a:b") == Mirror(base_url="file:///srv/a:b/")
    report = fetch_sources([entry], mirror=base.rstrip("/"), cache_dir=tmp_path / "c", progress=False)
    assert report.downloaded == ["deep/f.txt"]
    report = fetch_sources([entry], mirror=site.as_uri(), cache_dir=tmp_path / "c2", progress=False)
    assert report.downloaded == ["deep/f.txt"]
    assert resolve_mirror(str(site)) == Mirror(folders=(site.resolve(),))  # a single folder, as before


def test_bad_mirror_values_are_refused_by_name(tmp_path):
    with pytest.raises(SourceError, match=r"mirror folder 'nope' does not exist .*separated by ':'"):
        resolve_mirror(f"{tmp_path}{os.pathsep}nope")
    with pytest.raises(SourceError, match="unsupported scheme 'ftp'"):
        resolve_mirror("ftp://example.invalid/x")
    with pytest.raises(SourceError, match="names no folder"):
        resolve_mirror(os.pathsep * 2)


def test_upstream_urls_are_tried_in_order_then_the_alternates(tmp_path, served, monkeypatch):
    """No mirror: the entry's own URLs (404, then wrong bytes), then an alternate's URL with its own pin."""
    monkeypatch.delenv("ONERULER_MIRROR", raising=False)
    site, base = served
    (site / "wrong.json").write_bytes(b"an error page")
    copy = b'[\n  {"a": 1}\n]\n'
    (site / "copy.json").write_bytes(copy)
    entry = SourceFile("hotpot.json", hashlib.sha256(b'[{"a": 1}]').hexdigest(), 10, "hotpotqa", "en", "test",
                       urls=(base + "absent.json", base + "wrong.json"),
                       alternates=(Alternate(hashlib.sha256(copy).hexdigest(), len(copy), (base + "copy.json",)),))
    report = fetch_sources([entry], cache_dir=tmp_path / "c", progress=False)
    assert report.paths["hotpot.json"].read_bytes() == copy
    assert fetch_sources([entry], cache_dir=tmp_path / "c", progress=False).cached == ["hotpot.json"]
    (site / "copy.json").write_bytes(b"changed")
    with pytest.raises(IntegrityError) as info:  # every place failed: one line with each reason, gravest kind
        fetch_sources([entry], cache_dir=tmp_path / "c2", progress=False)
    assert "\n" not in str(info.value)
    assert str(info.value).count("; then ") == 2 and "HTTP 404" in str(info.value)


def test_a_mirror_folder_may_hold_an_alternates_bytes(tmp_path):
    folder = tmp_path / "m"
    copy = b"the other serialisation"
    folder.mkdir()
    (folder / "h.json").write_bytes(copy)
    entry = SourceFile("h.json", "0" * 64, 5, "hotpotqa", "en", "test",
                       alternates=(Alternate(hashlib.sha256(copy).hexdigest(), len(copy), ("https://example.invalid/h",)),))
    report = fetch_sources([entry], mirror=str(folder), cache_dir=tmp_path / "c", progress=False)
    assert report.paths["h.json"] == blob_path(tmp_path / "c", hashlib.sha256(copy).hexdigest())


def test_the_cli_fetches_ruler_sources_and_names_the_missing_ones(mirrors, punkt_mirror, tmp_path):
    """`oneruler fetch --sources ruler` from ../shared's mirrors: SQuAD, HotpotQA and english_words.json are not on
    this machine; everything else is fetched and kept, and one error line names what is missing."""
    env = {**os.environ, "ONERULER_MIRROR": mirrors, "ONERULER_CACHE": str(tmp_path / "cache"), "PYTHONPATH": str(REPO)}
    res = subprocess.run([sys.executable, "-m", "builders.cli", "fetch", "--sources", "ruler"], env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 2, res.stderr[-2000:]
    error = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(error) == 1 and "Traceback" not in res.stderr
    assert "3 pinned files are missing (68 others verified and cached)" in error[0]
    assert "english_words.json" in error[0] and "dev-v2.0.json" in error[0] and "hotpot_dev_distractor_v1.json" in error[0]
    assert len([p for p in (tmp_path / "cache" / "sha256").rglob("*") if p.is_file()]) == 6 + 49 + 12 + 1
