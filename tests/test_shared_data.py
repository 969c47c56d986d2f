"""The test suite outside this machine: without ../shared a session stops with one line saying what it needs and how
to provide it; the opt-in fetch is refused under CI (CI has ../shared and no network)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from shared_data import HF_TOKENIZERS, OPTIONAL_ROLES, TIKTOKEN_URLS, fetch_test_data, missing, tiktoken_file

REPO = Path(__file__).resolve().parents[1]


def test_a_session_without_shared_stops_at_once_with_one_line(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("ONERULER_MIRROR", "TIKTOKEN_CACHE_DIR", "ONERULER_TEST_FETCH")}
    env.update(ONERULER_SHARED=str(tmp_path / "nowhere"), PYTHONPATH=str(REPO))
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/scoring"], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=300)
    said = [line for line in (done.stdout + done.stderr).splitlines() if line.startswith("ERROR")]
    assert done.returncode == 4, done.stdout + done.stderr
    assert len(said) == 1 and said[0].startswith("ERROR: the tests need ../shared beside the checkout")
    assert "../shared beside the checkout" in said[0] and "ONERULER_TEST_FETCH=1" in said[0]
    assert "passed" not in done.stdout and "failed" not in done.stdout


def test_what_the_tests_need_is_found_in_a_folder_laid_out_like_shared(tmp_path):
    from builders.sources.ruler.pins import source_group

    shared = tmp_path / "shared"
    gaps = missing(shared, [], str(shared / "tokenizers" / "tiktoken"))
    assert len(gaps) == 1 + len(TIKTOKEN_URLS) + len(HF_TOKENIZERS)
    assert "pinned files the tests read are in no folder of the mirror: no mirror folder" in gaps[0]
    needed = [e for e in source_group("all") if e.role not in OPTIONAL_ROLES]
    halves = [shared / "one", shared / "two"]  # several mirror folders: each file in any one of them is enough
    for n, entry in enumerate(needed):
        (halves[n % 2] / entry.path).parent.mkdir(parents=True, exist_ok=True)
        (halves[n % 2] / entry.path).write_text("")
    for name in TIKTOKEN_URLS:
        (shared / "tokenizers" / "tiktoken").mkdir(parents=True, exist_ok=True)
        (shared / "tokenizers" / "tiktoken" / tiktoken_file(name)).write_text("")
    for name in HF_TOKENIZERS:
        (shared / "tokenizers" / "hf" / name).mkdir(parents=True)
        (shared / "tokenizers" / "hf" / name / "tokenizer.json").write_text("{}")
    assert missing(shared, halves, str(shared / "tokenizers" / "tiktoken")) == []
    assert len(missing(shared, halves[:1], str(shared / "tokenizers" / "tiktoken"))) == 1


def test_the_tiktoken_file_names_are_those_of_shared():
    assert sorted(tiktoken_file(n) for n in TIKTOKEN_URLS) == ["9b5ad71b2ce5302211f9c61530b329a4922fc6a4",
                                                               "fb374d419588a4632f3f557e76b4b70aebbca790"]


def test_the_fetch_is_refused_under_ci(tmp_path, monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(RuntimeError, match="refused under CI"):
        fetch_test_data(tmp_path)
    assert not (tmp_path / ".test-shared").exists()
