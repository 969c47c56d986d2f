"""Shared fixtures: the real upstream mirror and tokenizers from ../shared (never the network).

A session without them stops at once with one line saying what is missing and how to provide it
(``shared_data.py``; CONTRIBUTING.md, "The test data"); ``ONERULER_TEST_FETCH=1`` fetches them once
into ``.test-shared/`` in the checkout instead (the one use of the network, asked for by name).
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from shared_data import FETCH_VARIABLE, TEST_CACHE, fetch_test_data, missing, mirror_folders, what_is_missing

REPO = Path(__file__).resolve().parents[1]
# ../shared, else what ONERULER_TEST_FETCH=1 fetched once into .test-shared/; a worktree elsewhere: set ONERULER_SHARED
SHARED = Path(os.environ.get("ONERULER_SHARED") or next(
    (p for p in (REPO.parent / "shared", REPO / TEST_CACHE) if p.is_dir()), REPO.parent / "shared"))


def _test_data() -> list[str]:
    """What is missing of the test data (after the opt-in fetch, when asked for); sets SHARED to what is used."""
    global SHARED
    mirror = os.environ.get("ONERULER_MIRROR") or str(SHARED / "oneruler-upstream")
    tiktoken_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or str(SHARED / "tokenizers" / "tiktoken")
    gaps = missing(SHARED, mirror, tiktoken_dir)
    if gaps and os.environ.get(FETCH_VARIABLE) == "1":
        try:
            SHARED = fetch_test_data(REPO)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:  # said in one line at the session's start
            return [f"{FETCH_VARIABLE}=1 could not fetch the test data ({exc}; what the fetch said is above)"]
        os.environ["ONERULER_MIRROR"] = str(SHARED / "oneruler-upstream")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(SHARED / "tokenizers" / "tiktoken")
        gaps = missing(SHARED, os.environ["ONERULER_MIRROR"], os.environ["TIKTOKEN_CACHE_DIR"])
    return gaps


MISSING = _test_data()

# No test writes into the user's real caches: every cache the code or its libraries may use points
# into a private folder for this test process, removed at exit (set before anything imports them).
SANDBOX = Path(tempfile.mkdtemp(prefix="oneruler-tests-"))
atexit.register(shutil.rmtree, SANDBOX, ignore_errors=True)
os.environ["ONERULER_CACHE"] = str(SANDBOX / "oneruler-cache")
os.environ["XDG_CACHE_HOME"] = str(SANDBOX / "xdg-cache")
os.environ["XDG_DATA_HOME"] = str(SANDBOX / "xdg-data")  # Inspect AI keeps traces and buffers there
os.environ["HF_HOME"] = str(SANDBOX / "hf-home")
os.environ["HF_DATASETS_CACHE"] = str(SANDBOX / "hf-home" / "datasets")
os.environ["MPLCONFIGDIR"] = str(SANDBOX / "matplotlib")

# CI sets these; a developer running plain `pytest` gets the same defaults. Made absolute so that
# tests which change directory or start subprocesses elsewhere still find them.
os.environ["ONERULER_MIRROR"] = os.pathsep.join(
    str(p) for p in mirror_folders(os.environ.get("ONERULER_MIRROR") or str(SHARED / "oneruler-upstream")))
os.environ["TIKTOKEN_CACHE_DIR"] = str(Path(os.environ.get("TIKTOKEN_CACHE_DIR", SHARED / "tokenizers" / "tiktoken")).resolve())
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

MIRROR = mirror_folders(os.environ["ONERULER_MIRROR"])[0]
HF_TOKENIZERS = SHARED / "tokenizers" / "hf"


def pytest_configure(config) -> None:
    """Without the test data, one line saying what the tests need and how to provide it (exit code 4), instead of
    hundreds of failures."""
    if MISSING:
        raise pytest.UsageError(what_is_missing(MISSING))


@pytest.fixture(scope="session")
def mirror() -> Path:
    assert (MIRROR / "SHA256SUMS").is_file(), f"upstream mirror not found at {MIRROR}"
    return MIRROR


@pytest.fixture(scope="session")
def source_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("source-cache")


@pytest.fixture(scope="session")
def sources(mirror, source_cache):
    from builders.sources.store import load_sources

    return load_sources(mirror=str(mirror), cache_dir=str(source_cache))


@pytest.fixture(scope="session")
def registry():
    from builders.generate.tokenizer import TokenizerRegistry

    return TokenizerRegistry({"llama3": str(HF_TOKENIZERS / "llama3"), "qwen": str(HF_TOKENIZERS / "qwen")})


@pytest.fixture(scope="session")
def cl100k(registry):
    return registry.get("cl100k")


@pytest.fixture(scope="session")
def generator(sources, registry):
    from builders.generate.rows import RowGenerator

    return RowGenerator(sources, registry)
