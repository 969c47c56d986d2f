"""``oneruler show``: a needle at 0 % or 100 % is marked like any other, and ``--dataset`` reads the row from an
export folder or a Hub dataset (the loopback Hub stand-in, tests/hub_server.py): the same view as regenerating it,
without sources or tokenizer files."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner
from hub_client import client_env, oneruler
from hub_server import running_hub

from builders.cli import cli

REPO = Path(__file__).resolve().parents[2]
CONFIGS = ("pl_s_niah_8k_at0", "pl_s_niah_8k_at100", "en_mv_niah_8k")


def invoke(args: list[str]):
    return CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def export(tmp_path_factory, source_cache):
    out = tmp_path_factory.mktemp("show") / "export"
    result = invoke(["build", *CONFIGS, "--samples", "2", "--out", out, "--quiet", "--cache-dir", source_cache])
    assert result.exit_code == 0, result.output
    return out


def show_without_sources(export: Path, config: str, index: int, tmp_path: Path) -> subprocess.CompletedProcess:
    """``show --dataset`` in a process that has no sources, no source cache and no tokenizer files."""
    empty = tmp_path / "nothing"
    empty.mkdir(exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(REPO), ONERULER_MIRROR=str(empty / "mirror"), ONERULER_CACHE=str(empty / "cache"),
               TIKTOKEN_CACHE_DIR=str(empty), HF_HUB_OFFLINE="1")
    return subprocess.run([sys.executable, "-m", "builders.cli", "show", config, "--index", str(index), "--dataset",
                           str(export)], capture_output=True, text=True, env=env)


@pytest.mark.parametrize("config", CONFIGS)
def test_an_exported_row_shows_as_its_regenerated_self(export, source_cache, tmp_path, config):
    regenerated = invoke(["show", config, "--index", "1", "--cache-dir", source_cache])
    assert regenerated.exit_code == 0, regenerated.output
    read = show_without_sources(export, config, 1, tmp_path)
    assert read.returncode == 0, read.stderr
    assert read.stdout == regenerated.output
    assert read.stdout.count("◀ depth") == (4 if config.startswith("en_mv") else 1)


def test_a_needle_at_the_start_or_the_end_is_marked_and_nothing_empty_is_elided(export):
    first = invoke(["show", "pl_s_niah_8k_at0", "--dataset", export]).output
    context = first[first.index("<tekst>"):]
    assert "◀ depth 0%, landed at 0.0% of the sentences, 0.0% of the tokens" in context
    assert context.index("◀ depth 0%") < context.index("[... ")  # inside the opening characters, before any gap
    last = invoke(["show", "pl_s_niah_8k_at100", "--dataset", export]).output
    assert "◀ depth 100%, landed at 100.0% of the sentences, 100.0% of the tokens\n</tekst>" in last
    assert "[... 0 characters ...]" not in first + last
    assert last.count("characters ...]") == 1


def test_a_missing_config_or_index_is_one_error_line(export):
    absent = invoke(["show", "pl_s_niah_8k_at50", "--dataset", export])
    assert absent.exit_code == 2 and absent.stderr.startswith("error: dataset ") and "has no config 'pl_s_niah_8k_at50'" in absent.stderr
    assert "it has 3 configs, e.g. en_mv_niah_8k" in absent.stderr
    index = invoke(["show", "pl_s_niah_8k_at0", "--index", "7", "--dataset", export])
    assert index.exit_code == 2 and index.stderr.count("\n") == 1
    assert "has no example 7 (it has 2: --index 0 to 1)" in index.stderr


def test_a_row_of_a_hub_dataset_shows_as_the_folders(export, tmp_path):
    token = "hf_" + secrets.token_hex(16)
    with running_hub(token) as (endpoint, _):
        env = client_env(endpoint, tmp_path, token)
        pushed = oneruler(["push", str(export), "--repo-id", "my-org/oneruler"], env, tmp_path)
        assert pushed.returncode == 0, pushed.stderr[-3000:]
        shown = oneruler(["show", "en_mv_niah_8k", "--index", "1", "--dataset", "my-org/oneruler"], env, tmp_path)
    assert shown.returncode == 0, shown.stderr[-3000:]
    assert shown.stdout == invoke(["show", "en_mv_niah_8k", "--index", "1", "--dataset", export]).output


def test_a_ruler_row_shows_its_setting_needle_and_answer_prefix(generator):
    from builders.cli.show import format_example
    from builders.spec.configs import parse_config_name

    row = generator.example(parse_config_name("en_ruler_niah_single_2_8192"), 0)
    shown = click.unstyle(format_example(row))
    assert shown.count("◀ depth") == 1 and f"gold answers: {row['answers'][0]}" in shown
    assert "RULER's setting: essay haystack; word key, number value" in shown
    assert shown.endswith(f"answer prefix (prefilled as the start of the answer): {row['answer_prefix']!r}")
    assert row["answer_prefix"].startswith(" The special magic number for ")



def test_a_ruler_qa_row_shows_its_documents_against_the_source(generator):
    from builders.cli.show import format_example
    from builders.spec.configs import parse_config_name

    row = generator.example(parse_config_name("de-en_ruler_qa_xquad_8192"), 1)
    shown = click.unstyle(format_example(row))
    assert f"documents: {row['num_units']:,} of a source of 240\n" in shown and "POOL EXHAUSTED" not in shown
    assert "RULER's setting: XQuAD paragraphs and questions in the context language" in shown
    assert shown.count("◀ depth") == len(row["needles"]) >= 1
    exhausted = generator.example(parse_config_name("de-en_ruler_qa_xquad_131072"), 0)
    assert "documents: 240 of a source of 240; POOL EXHAUSTED before the budget" in click.unstyle(
        format_example(exhausted))
