"""Battery: every bad input and hostile environment we know of, through the real CLI in subprocesses.

Each case asserts: its documented exit code, exactly one ``error:`` line that names the culprit (the
fragments listed), no traceback, and no leftovers: the case's folder is byte-for-byte and mode-for-mode
what it was before (no temp file, no empty folder, no half-written export), except for what the case
says it may create; no temp file in the source cache either.

Hostile environments are real: a full disk is the kernel's file-size limit (``RLIMIT_FSIZE``, set in
the child; writes past it fail with EFBIG), read-only folders are ``chmod a-w`` folders written by a
child that cannot override file modes (when the tests run as root, the child drops
``CAP_DAC_OVERRIDE`` and ``CAP_DAC_READ_SEARCH`` from its bounding set before exec'ing the CLI, so it
obeys modes like any user), a slow server is a loopback HTTP server dripping one byte at a time, a
held lock is a real ``flock`` held by this process.
"""

from __future__ import annotations

import functools
import hashlib
import http.server
import json
import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import pytest

from filelock import FileLock

REPO = Path(__file__).resolve().parents[1]

# Sets a file-size limit and/or drops the capabilities that let root ignore file modes, then
# exec's the command: the CLI itself runs with neither ability (argv[1]: JSON options).
LAUNCHER = textwrap.dedent("""
    import ctypes, json, os, resource, sys
    opts = json.loads(sys.argv[1])
    if opts.get("fsize") is not None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (opts["fsize"], resource.getrlimit(resource.RLIMIT_FSIZE)[1]))
    if opts.get("unprivileged") and os.geteuid() == 0:
        libc = ctypes.CDLL(None, use_errno=True)
        for cap in (1, 2):  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH
            if libc.prctl(24, cap, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
                raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")
    os.execv(sys.executable, [sys.executable, *sys.argv[2:]])
""")


def launch(args: list[str], env: dict, *, fsize: int | None = None, unprivileged: bool = False,
           timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``python ARGS`` through the launcher (real limits, no privilege over file modes if asked)."""
    opts = json.dumps({"fsize": fsize, "unprivileged": unprivileged})
    return subprocess.run([sys.executable, "-c", LAUNCHER, opts, *args], env=env, cwd=REPO, capture_output=True,
                          text=True, timeout=timeout)


def read_only(path: Path) -> None:
    """chmod a-w, recursively."""
    for p in [path, *path.rglob("*")]:
        p.chmod(stat.S_IMODE(p.stat().st_mode) & ~0o222)


def writable_again(path: Path) -> None:
    for p in [path, *path.rglob("*")]:
        p.chmod(stat.S_IMODE(p.stat().st_mode) | 0o200)


def snapshot(root: Path) -> dict[str, tuple]:
    """Every path below ``root`` with its kind, mode and (for files) sha256."""
    out = {}
    for p in sorted(root.rglob("*")):
        mode = stat.S_IMODE(p.lstat().st_mode)
        rel = p.relative_to(root).as_posix()
        out[rel] = ("f", mode, hashlib.sha256(p.read_bytes()).hexdigest()) if p.is_file() else ("d", mode)
    return out


class _DripHandler(http.server.SimpleHTTPRequestHandler):
    """Serves the mirror one byte every 0.2 s (each read gets data, so only an overall deadline stops it)."""

    def log_message(self, *args):
        pass

    def do_GET(self):
        path = Path(self.directory) / self.path.lstrip("/")
        if not path.is_file():
            self.send_error(404)
            return
        data = path.read_bytes()
        self.send_response(200)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        try:
            for i in range(50):
                self.wfile.write(data[i:i + 1])
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            pass


@dataclass(frozen=True)
class Case:
    """One bad input: the command (placeholders below), its exit code and what its error line must say.

    Placeholders: {root} the case's folder, {export} a copy there of a 2-config export (seed 42,
    samples 2), {fresh_cache} an empty source cache outside {root}, {drip} a dripping mirror URL,
    {closed} a URL where nothing listens.
    """

    id: str
    args: tuple[str, ...]
    code: int
    says: tuple[str, ...]
    setup: Callable[[Path], None] | None = None
    env: tuple[tuple[str, str], ...] = ()
    unprivileged: bool = False
    fsize: Callable[[Path], int] | None = None
    hold_lock: bool = False
    creates: tuple[str, ...] = ()
    never: tuple[str, ...] = ()


def _mkdir(*parts: str, files: dict[str, str] | None = None, ro: bool = False) -> Callable[[Path], None]:
    def setup(root: Path) -> None:
        folder = root.joinpath(*parts)
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in (files or {}).items():
            (folder / name).write_text(text)
        if ro:
            read_only(folder)
    return setup


def _file(name: str, text: str) -> Callable[[Path], None]:
    return lambda root: (root / name).write_text(text)


def _edit_manifest(root: Path) -> None:
    path = root / "export" / "manifest.json"
    doc = json.loads(path.read_text())
    doc["configs"]["pl_s_niah_1k"]["samples"] = 3
    path.write_text(json.dumps(doc))


def _manifest_size(root: Path) -> int:
    return (root / "export" / "manifest.json").stat().st_size


NEW = "{root}/new"
CASES = [
    # names, globs, lengths
    Case("unknown-task", ("build", "pl_s_niha_8k", "--out", NEW), 2, ("'pl_s_niha_8k'", "did you mean 's_niah'")),
    Case("glob-non-standard-length", ("build", "pl_*_256k", "--out", NEW), 2,
         ("'pl_*_256k' matches no config", "256k is not a standard length", "pl_s_niah_256k", "'pl_*_128k'"),
         never=("64k'",)),
    Case("glob-unknown-language", ("build", "xx_*", "--out", NEW), 2, ("'xx_*'", "unknown language 'xx'")),
    Case("length-without-k", ("build", "pl_s_niah_128", "--out", NEW), 2, ("did you mean 'pl_s_niah_128k'",)),
    Case("absurd-length", ("build", "pl_s_niah_999999999999", "--out", NEW), 2,
         ("'pl_s_niah_999999999999'", "above the maximum of 10m")),
    Case("unknown-tokenizer-alias", ("build", "pl_s_niah_8k_foo", "--out", NEW), 2, ("unknown tokenizer alias 'foo'",)),
    Case("tokenizer-not-found", ("build", "pl_s_niah_8k_foo", "--tokenizer", "foo={root}/nowhere", "--out", NEW), 2,
         ("foo={root}/nowhere",)),
    Case("list-glob-matching-nothing", ("list", "pl_*_128"), 2, ("did you mean 'pl_*_128k'",)),
    # position-controlled names (docs/generation.md, "Position-controlled configs")
    Case("depth-above-100", ("build", "pl_s_niah_32k_at101", "--out", NEW), 2,
         ("'pl_s_niah_32k_at101'", "invalid depth part 'at101'", "integer percent 0..100")),
    Case("depth-negative", ("build", "pl_s_niah_32k_at-5", "--out", NEW), 2,
         ("'pl_s_niah_32k_at-5'", "invalid depth part 'at-5'", "integer percent 0..100")),
    Case("depth-not-an-integer", ("list", "pl_s_niah_32k_at2.5"), 2, ("'pl_s_niah_32k_at2.5'", "integer percent")),
    Case("depth-for-cwe", ("build", "pl_cwe_easy_8k_at50", "--out", NEW), 2,
         ("'pl_cwe_easy_8k_at50'", "a fixed depth needs a NIAH task")),
    Case("one-value", ("build", "pl_mv1_niah_32k", "--out", NEW), 2, ("'pl_mv1_niah_32k'", "K = 1 values", "K = 2..256")),
    Case("thousand-values", ("build", "pl_mv1000e_niah_32k", "--out", NEW), 2,
         ("'pl_mv1000e_niah_32k'", "K = 1000 values", "K = 2..256")),
    Case("alias-read-as-depth", ("build", "pl_s_niah_8k_at5x", "--tokenizer", "at5x=cl100k_base", "--out", NEW), 2,
         ("alias 'at5x'", "not starting with 'at' + digit")),
    Case("grid-glob-matching-nothing", ("list", "--grid", "depth", "pl_*_128k"), 2,
         ("'pl_*_128k' matches no config of the depth grid", "'*_at50' (one depth)")),
    # option values
    Case("samples-zero", ("build", "pl_s_niah_8k", "--samples", "0", "--out", NEW), 2, ("--samples must be at least 1",)),
    Case("samples-not-a-number", ("build", "pl_s_niah_8k", "--samples", "many", "--out", NEW), 2,
         ("--samples", "'many' is not a valid integer")),
    Case("num-proc-zero", ("build", "pl_s_niah_8k", "--num-proc", "0", "--out", NEW), 2, ("--num-proc must be at least 1",)),
    Case("wait-negative", ("build", "pl_s_niah_8k", "--wait", "-1", "--out", NEW), 2, ("--wait must be 0",)),
    Case("unknown-command", ("frobnicate",), 2, ("No such command 'frobnicate'", "see `oneruler --help`")),
    Case("unknown-option", ("build", "pl_s_niah_8k", "--sample", "2"), 2,
         ("oneruler build: No such option '--sample'", "see `oneruler build --help`")),
    Case("missing-argument", ("score",), 2, ("oneruler score: Missing argument 'PREDICTIONS'",)),
    # the export folder
    Case("out-is-a-file", ("build", "pl_s_niah_8k", "--out", "{root}/file"), 2, ("--out", "'{root}/file' is a file"),
         setup=_file("file", "mine")),
    Case("out-below-a-file", ("build", "pl_s_niah_8k", "--samples", "1", "--out", "{root}/file/sub"), 2,
         ("{root}/file", "is a file, not a folder"), setup=_file("file", "mine")),
    Case("out-not-empty", ("build", "pl_s_niah_8k", "--samples", "1", "--out", "{root}/notes"), 2,
         ("{root}/notes: folder is not empty and has no manifest.json",), setup=_mkdir("notes", files={"mine.txt": "x"})),
    Case("out-corrupt-manifest", ("build", "pl_s_niah_8k", "--samples", "1", "--out", "{root}/bad"), 2,
         ("{root}/bad/manifest.json: not valid JSON",), setup=_mkdir("bad", files={"manifest.json": "{"})),
    Case("out-in-read-only-folder", ("build", "pl_s_niah_8k", "--samples", "1", "--out", "{root}/ro/new"), 2,
         ("{root}/ro/new: permission denied",), setup=_mkdir("ro", ro=True), unprivileged=True),
    Case("export-read-only", ("build", "pl_mk_niah_8k", "--samples", "2", "--out", "{export}"), 2,
         ("{export}/.oneruler.lock: permission denied",), setup=lambda root: read_only(root / "export"),
         unprivileged=True),
    Case("disk-full-new-folder", ("build", "pl_s_niah_8k", "--samples", "1", "--out", NEW), 2,
         ("{root}/new/", "pl_s_niah_8k: file too large", "ulimit -f"), fsize=lambda root: 8000),
    Case("disk-full-at-commit", ("build", "pl_mk_niah_8k", "--samples", "2", "--out", "{export}"), 2,
         ("{export}/manifest.json: file too large",), fsize=_manifest_size),
    Case("generation-fails-in-new-folder", ("build", "ta_cwe_hard_1k", "--samples", "1", "--out", NEW), 2,
         ("ta_cwe_hard_1k: the budget of 950 tokens is too small",)),
    Case("locked-by-another-build", ("build", "pl_mk_niah_8k", "--samples", "2", "--out", "{export}"), 2,
         ("{export}: locked by another `oneruler build`", "--wait SECONDS"), hold_lock=True),
    Case("still-locked-after-wait", ("build", "pl_mk_niah_8k", "--samples", "2", "--wait", "0.5", "--out", "{export}"), 2,
         ("{export}: still locked by another `oneruler build` after waiting 0.5 s",), hold_lock=True),
    Case("other-sample-count", ("build", "pl_mk_niah_8k", "--samples", "5", "--out", "{export}"), 2,
         ("{export} holds configs built with --seed 42 --samples 2 (2 configs)", "asks for --seed 42 --samples 5",
          "--force")),
    Case("forced-rebuild-fails-midway", ("build", "ta_cwe_hard_1k", "--seed", "7", "--force", "--out", "{export}"), 2,
         ("ta_cwe_hard_1k: the budget",)),  # committing pl_s_niah_8k alone would mix seeds: nothing changes
    # translations of RULER's instructions (docs/translating.md)
    Case("translation-not-yaml", ("check-translation", "{root}/pl.yaml"), 1, ("{root}/pl.yaml: is not valid YAML",),
         setup=_file("pl.yaml", "language: [pl\n")),
    Case("native-config-without-translation", ("list", "pl_ruler_vt_32768"), 2,
         ("takes no instruction language 'pl'", "e.g. pl-en_ruler_vt_32768")),
    Case("translations-folder-missing", ("list", "pl_ruler_vt_32768"), 2,
         ("ONERULER_TRANSLATIONS={root}/nope: no such folder",), env=(("ONERULER_TRANSLATIONS", "{root}/nope"),)),
    # the source cache and the mirror
    Case("cache-in-read-only-folder", ("build", "pl_s_niah_8k", "--out", NEW), 2,
         ("source cache: {root}/ro/cache: permission denied", "--cache-dir or ONERULER_CACHE"),
         setup=_mkdir("ro", ro=True), env=(("ONERULER_CACHE", "{root}/ro/cache"),), unprivileged=True),
    Case("cache-read-only-and-empty", ("fetch",), 2, ("source cache: {root}/cache/tmp: permission denied",),
         setup=_mkdir("cache", ro=True), env=(("ONERULER_CACHE", "{root}/cache"),), unprivileged=True),
    Case("mirror-missing", ("fetch", "--mirror", "{root}/nope"), 2, ("mirror folder '{root}/nope' does not exist",),
         env=(("ONERULER_CACHE", "{fresh_cache}"),)),
    Case("mirror-unreachable", ("fetch", "--mirror", "{closed}"), 2, ("{closed}/", "cannot download"),
         env=(("ONERULER_CACHE", "{fresh_cache}"),)),
    Case("download-too-slow", ("fetch", "--mirror", "{drip}"), 2,
         ("download did not finish within ONERULER_DOWNLOAD_TIMEOUT=1 s", "bytes received from {drip}/"),
         env=(("ONERULER_CACHE", "{fresh_cache}"), ("ONERULER_DOWNLOAD_TIMEOUT", "1"))),
    Case("download-timeout-not-a-number", ("fetch",), 2, ("ONERULER_DOWNLOAD_TIMEOUT='soon'",),
         env=(("ONERULER_CACHE", "{fresh_cache}"), ("ONERULER_DOWNLOAD_TIMEOUT", "soon"))),
    # verify and score
    Case("verify-no-manifest", ("verify", "{root}/plain"), 2, ("{root}/plain: no manifest.json",), setup=_mkdir("plain")),
    Case("verify-empty-export", ("verify", "{root}/empty"), 1, ("{root}/empty: the export holds no config",),
         setup=_mkdir("empty", files={"manifest.json": json.dumps(
             {"format": "oneruler-export/1", "sources": {}, "fixes": [], "books": {}, "configs": {}})})),
    Case("verify-mixed-sample-counts", ("verify", "{export}", "--checksums-only"), 1,
         ("mixes seeds or sample counts: --seed 42 --samples 2 (1 config); --seed 42 --samples 3 (1 config)",),
         setup=_edit_manifest),
    Case("score-partial-run", ("score", "{root}/preds.jsonl", "--dataset", "{export}", "--out", "{root}/report"), 1,
         ("{root}/preds.jsonl: 1 row of 1 config has no prediction line", "pl_s_niah_8k 1/2", "--allow-partial"),
         setup=_file("preds.jsonl", json.dumps({"id": "pl_s_niah_8k/0", "prediction": "1234567"}) + "\n"),
         creates=("report",)),
]


@pytest.fixture(scope="module")
def pristine(tmp_path_factory, source_cache) -> Path:
    """A real 2-config export (seed 42, samples 2); building it also fills the shared source cache."""
    from builders.export.build import build_dataset
    from builders.export.request import BuildRequest

    out = tmp_path_factory.mktemp("battery") / "export"
    build_dataset(BuildRequest(["pl_s_niah_8k", "pl_s_niah_1000"], out,
                               samples=2, cache_dir=str(source_cache), progress=False))
    return out


@pytest.fixture(scope="module")
def servers(mirror):
    """{drip}: a mirror dripping one byte every 0.2 s; {closed}: a loopback port where nothing listens."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_DripHandler, directory=str(mirror)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]
    yield {"drip": f"http://127.0.0.1:{server.server_address[1]}", "closed": f"http://127.0.0.1:{closed}"}
    server.shutdown()
    server.server_close()


def run_case(case: Case, tmp_path: Path, pristine: Path, source_cache: Path, servers: dict) -> subprocess.CompletedProcess:
    """Prepare the case's folder, run its command, and check everything the module docstring promises."""
    root = tmp_path / "root"
    shutil.copytree(pristine, root / "export")
    places = dict(servers, root=str(root), export=str(root / "export"), fresh_cache=str(tmp_path / "fresh-cache"))
    fill = lambda text: text.format(**places)  # noqa: E731
    if case.setup:
        case.setup(root)
    env = dict(os.environ, PYTHONPATH=str(REPO), ONERULER_CACHE=str(source_cache), HF_HOME=str(tmp_path / "hf"),
               HF_DATASETS_CACHE=str(tmp_path / "hf-datasets"), PYTHONDONTWRITEBYTECODE="1")
    env.update({k: fill(v) for k, v in case.env})
    lock = FileLock(str(root / "export" / ".oneruler.lock")) if case.hold_lock else None  # the documented lock file
    if lock:
        lock.acquire()
    before = snapshot(root)
    try:
        res = launch(["-m", "builders.cli", *map(fill, case.args)], env, unprivileged=case.unprivileged,
                     fsize=case.fsize(root) if case.fsize else None)
        after = {k: v for k, v in snapshot(root).items() if not (case.creates and k.startswith(case.creates))}
    finally:
        if lock:
            lock.release()
        writable_again(root)
    assert res.returncode == case.code, res.stdout + res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    errors = [line for line in res.stderr.splitlines() if re.match(r"(?i)error:", line)]
    assert len(errors) == 1, res.stderr
    assert errors[0].startswith("error: ") and "Usage:" not in res.stderr, res.stderr  # click's usage block too
    for fragment in map(fill, case.says):
        assert fragment in errors[0], (fragment, errors[0])
    for fragment in case.never:
        assert fragment not in res.stderr
    assert after == before, sorted(set(after.items()) ^ set(before.items()))
    leftovers = [p for base in (tmp_path, source_cache) for p in base.rglob("*")
                 if p.name.startswith(".tmp-") or p.name.endswith(".part") or p.name == ".oneruler-build"]
    assert not leftovers
    return res


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.id)
def test_bad_input_fails_in_one_clear_line_and_leaves_nothing_behind(case, tmp_path, pristine, source_cache, servers):
    res = run_case(case, tmp_path, pristine, source_cache, servers)
    if case.id == "still-locked-after-wait":
        assert "waiting up to 0.5 s for another `oneruler build`" in res.stderr
    if case.id == "score-partial-run":
        assert json.loads((tmp_path / "root" / "report" / "scores.json").read_text())["complete"] is False


def test_the_launcher_really_takes_away_the_power_to_ignore_file_modes(tmp_path):
    """The read-only cases above test what they claim: the launched process cannot write a chmod a-w folder."""
    (tmp_path / "ro").mkdir()
    read_only(tmp_path / "ro")
    probe = "import sys; open(sys.argv[1] + '/x', 'w')"
    try:
        res = launch(["-c", probe, str(tmp_path / "ro")], dict(os.environ), unprivileged=True)
    finally:
        writable_again(tmp_path / "ro")
    assert res.returncode == 1 and "PermissionError" in res.stderr
    assert not (tmp_path / "ro" / "x").exists()


def test_a_read_only_complete_cache_is_enough(tmp_path, pristine, source_cache):
    """A team's shared cache, read-only for this user: everything is there, so fetch and build work."""
    cache = tmp_path / "cache"
    shutil.copytree(source_cache, cache)
    read_only(cache)
    before = snapshot(cache)
    env = dict(os.environ, PYTHONPATH=str(REPO), ONERULER_CACHE=str(cache), HF_HOME=str(tmp_path / "hf"))
    try:  # a build fetches (finds every file verified in the cache) and reads the cached card facts
        built = launch(["-m", "builders.cli", "build", "pl_s_niah_8k", "--samples", "1", "--quiet", "--out",
                        str(tmp_path / "out")], env, unprivileged=True)
        unchanged = snapshot(cache) == before
    finally:
        writable_again(cache)
    assert built.returncode == 0, built.stderr
    assert unchanged
