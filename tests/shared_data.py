"""What the test suite reads from ``../shared`` (CONTRIBUTING.md, "The test data"), the one line that says so when
it is missing, and the opt-in fetch of the same files into a test cache.

The suite never uses the network, with one exception a contributor asks for by name: with
``ONERULER_TEST_FETCH=1``, and only when the files are missing, the session first fetches them once
into ``.test-shared/`` in the checkout (the layout of ``../shared``; ignored by git), never into the
user's own caches: the pinned upstream files by the project's own ``oneruler fetch --into`` (sha256
verified: ONERULER's and RULER's, into one mirror folder ``upstream/``), tiktoken's rank files by tiktoken (which verifies them), the two Hugging Face tokenizers
at pinned revisions (verified against the sha256 of ``../shared``'s copies). Refused under ``CI``.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

TIKTOKEN_URLS = {
    "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken",
    "o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
}
# tokenizers/hf/<name>/tokenizer.json: the bytes of ../shared's copy, and a public repository at a revision that has them
HF_TOKENIZERS = {
    "llama3": ("c05a3c2174e9edd5be19dc5a0748c42a9037bec2811ce062728bfd71f8702d78",
               "nvidia/Llama3-ChatQA-1.5-8B", "3b98162e3f97550d62aeeb19ea50208f968c678a"),
    "qwen": ("aeb13307a71acd8fe81861d94ad54ab689df773318809eed3cbe794b4492dae4",
             "Qwen/Qwen3-0.6B", "c1899de289a04d12100db370d81485cdf75e47ca"),
}
FETCH_VARIABLE = "ONERULER_TEST_FETCH"
TEST_CACHE = ".test-shared"


def tiktoken_file(name: str) -> str:
    """The file name tiktoken caches an encoding under (the sha1 of its URL)."""
    return hashlib.sha1(TIKTOKEN_URLS[name].encode()).hexdigest()


# Pinned files the tests read only when a mirror has them (../shared does not), and Punkt, which CI makes a mirror of
# (scripts/punkt_mirror.py) and whose fixture says how when it is missing.
OPTIONAL_ROLES = ("ruler_english_words", "squad", "hotpotqa", "punkt")


def missing(shared: Path, folders: list[Path], tiktoken_dir: str) -> list[str]:
    """What the tests need and do not find: each as the path that should hold it."""
    from builders.sources.ruler.pins import source_group

    needed = [e for e in source_group("all") if e.role not in OPTIONAL_ROLES]
    absent = [e.path for e in needed if not any((folder / e.path).is_file() for folder in folders)]
    gaps = []
    if absent:
        where = os.pathsep.join(map(str, folders)) or "no mirror folder"
        gaps.append(f"{absent[0]} ({len(absent)} of the {len(needed)} pinned files the tests read are in no folder of "
                    f"the mirror: {where})")
    for name in TIKTOKEN_URLS:
        if not (Path(tiktoken_dir) / tiktoken_file(name)).is_file():
            gaps.append(f"{Path(tiktoken_dir) / tiktoken_file(name)} ({name})")
    for name in HF_TOKENIZERS:
        if not (shared / "tokenizers" / "hf" / name / "tokenizer.json").is_file():
            gaps.append(str(shared / "tokenizers" / "hf" / name / "tokenizer.json"))
    return gaps


def what_is_missing(gaps: list[str]) -> str:
    """The one line a session without its test data stops with (or the opt-in fetch's failure, as it is)."""
    if gaps[0].startswith(FETCH_VARIABLE):
        return gaps[0]
    first = gaps[0] + (f" and {len(gaps) - 1} more" if len(gaps) > 1 else "")
    return (f"the tests need ../shared beside the checkout (or ONERULER_SHARED naming it; ONERULER_MIRROR and "
            f"TIKTOKEN_CACHE_DIR name its parts), and find no {first}: make it as CONTRIBUTING.md says (\"The test "
            f"data\"), or run once with {FETCH_VARIABLE}=1 to fetch it into {TEST_CACHE}/ (network)")


def fetch_test_data(repo: Path) -> Path:
    """Fill ``repo/.test-shared`` with what the tests read (network); returns it. Each part is skipped once there."""
    if os.environ.get("CI"):
        raise RuntimeError(f"{FETCH_VARIABLE} is refused under CI: CI runs with ../shared and no network")
    root = repo / TEST_CACHE
    mirror = root / "upstream"  # every upstream's files, each at its own path: one mirror folder
    if not (mirror / "SHA256SUMS").is_file():
        with_cache = {**os.environ, "ONERULER_CACHE": str(root / "source-cache"), "ONERULER_MIRROR": ""}
        for group, needed in (("oneruler", True), ("ruler", False)):  # RULER's optional files may fail: said later
            subprocess.run([sys.executable, "-m", "builders.cli", "fetch", "--sources", group, "--into", str(mirror)],
                           cwd=repo, env=with_cache, check=needed)
        shutil.rmtree(root / "source-cache", ignore_errors=True)
    tiktoken_dir = root / "tokenizers" / "tiktoken"
    if any(not (tiktoken_dir / tiktoken_file(name)).is_file() for name in TIKTOKEN_URLS):
        code = f"import tiktoken; [tiktoken.get_encoding(n) for n in {sorted(TIKTOKEN_URLS)!r}]"
        subprocess.run([sys.executable, "-c", code], env={**os.environ, "TIKTOKEN_CACHE_DIR": str(tiktoken_dir)},
                       check=True)
    for name, (sha256, repo_id, revision) in HF_TOKENIZERS.items():
        target = root / "tokenizers" / "hf" / name / "tokenizer.json"
        if not target.is_file():
            _hub_file(repo_id, revision, sha256, target)
    return root


def _hub_file(repo_id: str, revision: str, sha256: str, target: Path) -> None:
    """``tokenizer.json`` of a Hub repo at a revision, kept only if its sha256 is the expected one (downloaded in a
    process of its own: this one keeps ``huggingface_hub`` offline for the tests)."""
    hub = target.parent / ".hub"
    code = (f"from huggingface_hub import hf_hub_download; print(hf_hub_download({repo_id!r}, 'tokenizer.json', "
            f"revision={revision!r}, cache_dir={str(hub)!r}))")
    env = {k: v for k, v in os.environ.items() if k not in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")}
    got = Path(subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True,
                              text=True).stdout.strip().splitlines()[-1])
    data = got.read_bytes()
    if hashlib.sha256(data).hexdigest() != sha256:
        raise RuntimeError(f"tokenizer.json of {repo_id}@{revision} has sha256 {hashlib.sha256(data).hexdigest()}, "
                           f"not {sha256} (../shared's)")
    target.write_bytes(data)
    shutil.rmtree(hub, ignore_errors=True)
