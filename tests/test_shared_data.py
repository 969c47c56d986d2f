"""The test suite outside this machine: without ../shared a session stops with one line saying what it needs and how
to provide it; the opt-in fetch is refused under CI (CI has ../shared and no network)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import HF_TOKENIZERS, TIKTOKEN_URLS, fetch_test_data, missing, tiktoken_file, what_is_missing

REPO = Path(__file__).resolve().parents[1]


def test_a_session_without_shared_stops_at_once_with_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("ONERULER_MIRROR", "TIKTOKEN_CACHE_DIR", "ONERULER_TEST_FETCH")}
    env.update(ONERULER_SHARED=str(tmp_path / "nowhere"), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/scoring"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("ERROR")]
    assert done.returncode == 4, done.stdout + done.stderr
    assert said == [f"ERROR: {what_is_missing(missing(tmp_path / 'nowhere', str(tmp_path / 'nowhere' / 'oneruler-upstream'), str(tmp_path / 'nowhere' / 'tokenizers' / 'tiktoken')))}"]
    assert "../shared beside the checkout" in said[0] and "ONERULER_TEST_FETCH=1" in said[0]
    assert "passed" not in done.stdout and "failed" not in done.stdout


def test_what_the_tests_need_is_found_in_a_folder_laid_out_like_shared(tmp_path):
    shared = tmp_path / "shared"
    gaps = missing(shared, str(shared / "oneruler-upstream"), str(shared / "tokenizers" / "tiktoken"))
    assert len(gaps) == 1 + len(TIKTOKEN_URLS) + len(HF_TOKENIZERS)
    (shared / "oneruler-upstream").mkdir(parents=True)
    (shared / "oneruler-upstream" / "SHA256SUMS").write_text("")
    for name in TIKTOKEN_URLS:
        (shared / "tokenizers" / "tiktoken").mkdir(parents=True, exist_ok=True)
        (shared / "tokenizers" / "tiktoken" / tiktoken_file(name)).write_text("")
    for name in HF_TOKENIZERS:
        (shared / "tokenizers" / "hf" / name).mkdir(parents=True)
        (shared / "tokenizers" / "hf" / name / "tokenizer.json").write_text("{}")
    # the mirror variable may name several folders (path separator): one holding SHA256SUMS is enough
    several = os.pathsep.join([str(tmp_path / "other"), str(shared / "oneruler-upstream")])
    assert missing(shared, several, str(shared / "tokenizers" / "tiktoken")) == []


def test_the_tiktoken_file_names_are_those_of_shared():
    assert sorted(tiktoken_file(n) for n in TIKTOKEN_URLS) == ["9b5ad71b2ce5302211f9c61530b329a4922fc6a4",
                                                               "fb374d419588a4632f3f557e76b4b70aebbca790"]


def test_the_fetch_is_refused_under_ci(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(RuntimeError, match="refused under CI"):
        fetch_test_data(tmp_path)
    assert not (tmp_path / ".test-shared").exists()
