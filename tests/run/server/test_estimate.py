"""Estimates are never short: real rows built by the exporter, counted by every tokenizer shipped for tests."""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
import tiktoken
from tokenizers import Tokenizer

from builders.run.rows.selection import RowRef
from builders.run.server.estimate import estimate
from builders.spec.families.cwe import CWE

# the worst configs of benchmarks/estimate_margins.py over 238 configs: numbered CWE lists, Swahili NIAH
CONFIGS = ["en_cwe_easy_8k", "en_cwe_hard_8k", "sw_none_niah_8k", "sw_mk_niah_8k"]


@pytest.fixture(scope="module")
def built(tmp_path_factory, mirror):
    from builders.export.build import build_dataset
    from builders.export.request import BuildRequest

    out = tmp_path_factory.mktemp("estimate") / "oneruler"
    build_dataset(BuildRequest(CONFIGS, out, samples=2, cache_dir=str(tmp_path_factory.mktemp("src")),
                               mirror=str(mirror), progress=False))
    return [r for shard in sorted(out.glob("data/*/*.parquet")) for r in pq.read_table(shard).to_pylist()]


def counters(hf_tokenizers):
    o200k = tiktoken.get_encoding("o200k_base")
    hf = {name: Tokenizer.from_file(str(hf_tokenizers / name / "tokenizer.json")) for name in ("llama3", "qwen")}
    yield "o200k_base", lambda text: len(o200k.encode(text, disallowed_special=()))
    for name, tok in hf.items():
        yield name, lambda text, tok=tok: len(tok.encode(text, add_special_tokens=False).ids)


def test_the_estimate_covers_every_shipped_tokenizer_on_every_task(built, hf_tokenizers):
    refs = [RowRef(r["id"], r["config"], r["task"], r["index"], r["num_tokens"], r["tokenizer"], r["reserve"])
            for r in built]
    counts, method = estimate(refs, None, chat=False)  # completions: one BOS allowance, not the template's 64
    assert "a margin per task (cwe 45%, niah 5%)" in method
    worst = {}
    for name, count in counters(hf_tokenizers):
        for row in built:
            n = count(row["input"])
            assert counts[row["id"]] - 1 >= n, (name, row["id"], n, counts[row["id"]])
            worst[row["task"][:3]] = max(worst.get(row["task"][:3], 0), n / row["num_tokens"])
    assert worst["cwe"] > 1.3  # the margin is needed: Qwen splits the list's numbers into digits
    assert worst["cwe"] <= 1 + CWE.count_margin


def test_count_margin_overrides_the_table():
    ref = RowRef("en_cwe_easy_8k/0", "en_cwe_easy_8k", "cwe_easy", 0, 1000, "cl100k_base", 50)
    counts, method = estimate([ref], 0.2, chat=True)
    assert counts == {ref.id: 1200 + 64} and "+ 20% (--count-margin)" in method
