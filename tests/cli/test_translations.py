"""``oneruler check-translation`` as a contributor runs it (a subprocess of the real CLI): exit 0 and ``ok`` for a
file that passes, exit 1 and one ``error:`` line per problem, exit 2 for a path that is not there. The files are
artificial pseudo-translations (tests/translation_fixtures.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from translation_fixtures import pseudo_document, write_document

REPO = Path(__file__).resolve().parents[2]


def check(*args) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "builders.cli", "check-translation", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=120)


@pytest.fixture(scope="module")
def files(ruler_sources, tmp_path_factory):
    folder = tmp_path_factory.mktemp("translations")
    good = write_document(folder / "good", pseudo_document(ruler_sources.tasks, "pl"))
    doc = pseudo_document(ruler_sources.tasks, "de", ["variable_tracking", "qa"])
    doc["variable_tracking"]["template"] = doc["variable_tracking"]["template"].replace("{query}", "")
    doc["qa"]["extra"] = "[[de]]"
    return good, write_document(folder / "bad", doc)


def test_a_passing_file_prints_ok_and_exits_0(files):
    good, _ = files
    result = check(good)
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"{good}: ok\n" and result.stderr == ""


def test_each_problem_is_one_error_line_and_the_exit_code_is_1(files):
    good, bad = files
    result = check(good, bad)
    assert result.returncode == 1 and result.stdout == f"{good}: ok\n"
    lines = result.stderr.splitlines()
    assert lines == [
        f"error: {bad}: variable_tracking.template: drops {{query}}; RULER's English has {{context}}, {{query}}",
        f"error: {bad}: qa.extra: unknown key; qa holds template, answer_prefix",
    ]


def test_a_missing_path_or_no_path_is_bad_input(tmp_path):
    missing = check(tmp_path / "pl.yaml")
    assert missing.returncode == 2 and "does not exist" in missing.stderr and "Traceback" not in missing.stderr
    assert len(missing.stderr.splitlines()) == 1
    assert check().returncode == 2


def test_english_prints_what_to_translate_in_the_files_layout(ruler_mirror, tmp_path):
    import ast

    import yaml

    result = check("--english")
    assert result.returncode == 0 and result.stderr == "", result.stderr
    printed = yaml.safe_load(result.stdout)
    tree = ast.parse((ruler_mirror / "scripts/data/synthetic/constants.py").read_text(encoding="utf-8"))
    constants = ast.literal_eval(next(n.value for n in tree.body if isinstance(n, ast.Assign)))
    assert list(printed) == list(constants)
    for family, english in constants.items():
        assert (printed[family]["template"], printed[family]["answer_prefix"]) == (english["template"],
                                                                                   english["answer_prefix"])
    assert "  template: |-\n" in result.stdout  # multi-line pieces as the blocks the docs ask for
    assert printed["niah"]["type_needle_v"] == {"numbers": "numbers", "numbers_singular": "number",
                                                "uuids": "uuids", "uuids_singular": "uuid"}
    # RULER's English copied into a file, metadata added, is refused until it is translated
    skeleton = tmp_path / "pl.yaml"
    meta = {"format": 1, "language": "pl", "translators": ["x"], "reviewers": [], "licence": "CC0-1.0",
            "ruler_commit": "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a", "provenance": "a test"}
    skeleton.write_text(yaml.safe_dump(meta) + result.stdout, encoding="utf-8")
    refused = check(skeleton)
    assert refused.returncode == 1 and refused.stderr.count("is RULER's English unchanged") == 12, refused.stderr
