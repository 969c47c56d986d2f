"""Shared fixtures: the real upstream mirror and tokenizers from ../shared (never the network)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("ONERULER_SHARED", REPO.parent / "shared"))  # a worktree elsewhere: set it

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
os.environ["ONERULER_MIRROR"] = str(Path(os.environ.get("ONERULER_MIRROR", SHARED / "oneruler-upstream")).resolve())
os.environ["TIKTOKEN_CACHE_DIR"] = str(Path(os.environ.get("TIKTOKEN_CACHE_DIR", SHARED / "tokenizers" / "tiktoken")).resolve())
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

MIRROR = Path(os.environ["ONERULER_MIRROR"])
HF_TOKENIZERS = SHARED / "tokenizers" / "hf"


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


@pytest.fixture(scope="session")
def world(tmp_path_factory, source_cache):
    """The publish tests' world (tests/publish/publish_world.py: build → push → run → score with the real CLI against
    the Hub and vLLM stand-ins), made once per test process for every publish test file."""
    import sys

    sys.path.insert(0, str(REPO / "tests" / "publish"))
    from publish_world import make_world

    yield from make_world(tmp_path_factory.mktemp("publish"), source_cache)
