"""The dataset card: YAML front matter the Hub and ``datasets`` accept, and prose generated from data."""

from __future__ import annotations

import copy
import re

import pytest
import yaml

from builders.export import frontmatter as card
from builders.export.card import render_card, render_readme
from builders.export.frontmatter import front_matter, parse_front_matter, size_category
from builders.spec.configs import iter_standard_configs
from builders.spec.languages import LANGUAGES

PAPER = "/work/shared/papers/oneruler.txt"


def entry(name: str, task: str, ctx: str, inst: str, length: int, exhausted: int = 0) -> dict:
    stats = {"num_examples": 50, "num_tokens_min": length - 90, "num_tokens_median": length - 60,
             "num_tokens_max": length - 31, "task": task, "context_language": ctx, "instruction_language": inst,
             "length": length, "tokenizer": "cl100k_base", "budget": length - 30, "arrow_bytes": 1234}
    if task.startswith("cwe"):
        stats.update(budget=length - 50, cwe_pool_size=2000, cwe_pool_exhausted=exhausted,
                     cwe_shortfall_tokens_max=5000 if exhausted else 0)
    return {"file": f"data/{name}/test-0123456789abcdef.parquet", "sha256": "ab" * 32, "size": 2_000_000,
            "num_rows": 50, "seed": 42, "samples": 50, "task": task, "context_language": ctx,
            "instruction_language": inst, "length": length, "stats": stats,
            "tokenizer": {"alias": "cl100k", "spec": "cl100k_base", "identity": "cl100k_base", "kind": "tiktoken",
                          "fingerprint": "cd" * 32},
            "packages": {"oneruler": "0.1.0", "pyarrow": "26.0.1"}}


def manifest(configs: dict) -> dict:
    return {
        "format": "oneruler-export/1", "sources": {"OneRuler/data/x.txt": "ef" * 32},
        "fixes": [
            {"name": "footnote_markers", "language": "pl", "count": 287, "description": "removed footnote markers like [12]"},
            {"name": "footnote_markers", "language": "zh", "count": 131, "description": "removed footnote markers like [12]"},
            {"name": "cwe_korean_homograph_digits", "language": "ko", "count": 1440, "description": "stripped homograph numbers"},
        ],
        "books": {"ko": {"tokens": 12_000, "sha256": "00" * 32, "path": "b", "tokenizer": "cl100k_base", "characters": 1},
                  "pl": {"tokens": 600_000, "sha256": "11" * 32, "path": "c", "tokenizer": "cl100k_base", "characters": 1}},
        "configs": configs,
    }


@pytest.fixture
def small():
    return manifest({
        "no_s_niah_8k": entry("no_s_niah_8k", "s_niah", "no", "no", 8000),
        "ko_cwe_easy_128k": entry("ko_cwe_easy_128k", "cwe_easy", "ko", "ko", 128_000, exhausted=50),
        "ko-en_none_niah_32k": entry("ko-en_none_niah_32k", "none_niah", "ko", "en", 32_000),
    })


def test_front_matter_parses_and_declares_every_config(small):
    readme = render_readme(small)
    meta = parse_front_matter(readme)
    assert meta == front_matter(small)
    assert meta["language"] == ["en", "ko", "no"]  # "no" stays a string, not YAML's boolean
    assert meta["license"] == "mit" and meta["pretty_name"] == "ONERULER"
    assert meta["size_categories"] == ["n<1K"]
    assert {c["config_name"]: c["data_files"] for c in meta["configs"]} == {
        n: [{"split": "test", "path": e["file"]}] for n, e in small["configs"].items()}
    # Features travel in the Parquet schema, not 952 copies in the README (issue 13).
    assert "dataset_info" not in meta and "features" not in readme.split("\n---\n", 1)[0]


def test_fast_yaml_equals_library_yaml_for_the_whole_grid(small):
    base = small["configs"]["no_s_niah_8k"]
    configs = {}
    for spec in iter_standard_configs():
        e = copy.deepcopy(base)
        e.update(file=f"data/{spec.name}/test-0123456789abcdef.parquet", task=spec.task,
                 context_language=spec.context_language, instruction_language=spec.instruction_language)
        configs[spec.name] = e
    big = manifest(configs)
    assert len(configs) == 952
    text = card.front_matter_yaml(big)
    assert yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader)) == front_matter(big)
    assert front_matter(big)["language"] == sorted(LANGUAGES)
    assert front_matter(big)["size_categories"] == ["10K<n<100K"]


def test_card_prose_is_generated_from_the_data(small):
    body = render_card(small)
    assert "{{" not in body and "}}" not in body
    for heading in ("## Use", "## Tasks", "## Config names", "## The budget rule", "## Languages", "## Books",
                    "## Per-config statistics", "## Deviations from the upstream release", "## Licences", "## Citation"):
        assert heading in body
    # per-config stats rows, with CWE shortfalls
    assert re.search(r"\| `ko_cwe_easy_128k` \| 50 \| cl100k_base \| 127,950 \| 127,910 \| 127,940 \| 127,969 \| 50/50 \|", body)
    assert "`ko_cwe_easy_128k`: 50 of 50 examples use the whole pool of 2,000 words" in body
    # fixes grouped with per-language counts and totals
    assert "| `footnote_markers` | removed footnote markers like [12] | pl 287, zh 131 | 418 |" in body
    # languages and books: all 26 rows with paper facts; measured tokens and repetition for short books
    for code, lang in LANGUAGES.items():
        assert f"| `{code}`" in body and lang.book.author in body
    assert "| 12,000 | 10.7× |" in body  # ko: 128,000 / 12,000
    assert "128,000" in body and "131,072" in body
    assert "not in this export" in body


def test_card_facts_match_the_paper():
    paper = open(PAPER, encoding="utf-8").read()
    body = render_card(manifest({}))
    assert "2503.01996" in body
    assert paper.startswith("One ruler to measure them all: Benchmarking multilingual long-context language models")
    assert "One ruler to measure them all: Benchmarking multilingual long-context language models" in body
    for author in ("Yekyung Kim", "Jenna Russell", "Marzena Karpinska", "Mohit Iyyer"):
        assert author in paper[:400]
        last, first = author.split()[1], author.split()[0]
        assert f"{last}, {first}" in body
    assert "non-copyrighted" in paper and "non-copyrighted" in body
    assert "MIT" in body and "github.com/mungg/OneRuler" in body
    for code, lang in LANGUAGES.items():  # Table 4 facts appear in the paper text too
        assert str(lang.book.paper_o200k_tokens) in paper.replace(",", "")


def test_empty_export_and_unknown_placeholder():
    meta = parse_front_matter(render_readme(manifest({})))
    assert "configs" not in meta and meta["license"] == "mit"
    with pytest.raises(KeyError, match="nonsense"):
        render_card(manifest({}), template="{{ nonsense }}")


@pytest.mark.parametrize("n,label", [(0, "n<1K"), (999, "n<1K"), (1000, "1K<n<10K"), (47_600, "10K<n<100K"),
                                     (2_000_000, "1M<n<10M")])
def test_size_category(n, label):
    assert size_category(n) == label
