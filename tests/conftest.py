"""Shared fixtures: the real upstream mirror and tokenizers from ../shared (never the network)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"

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
    from builders.sources import load_sources

    return load_sources(mirror=str(mirror), cache_dir=str(source_cache))


@pytest.fixture(scope="session")
def registry():
    from builders.tokenizer import TokenizerRegistry

    return TokenizerRegistry({"llama3": str(HF_TOKENIZERS / "llama3"), "qwen": str(HF_TOKENIZERS / "qwen")})


@pytest.fixture(scope="session")
def cl100k(registry):
    return registry.get("cl100k")
