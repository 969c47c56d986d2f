"""The dataset card: YAML front matter the Hub and ``datasets`` accept, and prose generated from data."""

from __future__ import annotations

import copy
import dataclasses
import re

import pytest
import yaml

from builders.export import frontmatter as card
from builders.export.card import render_card, render_readme
from builders.export.frontmatter import front_matter, parse_front_matter, size_category
from builders.export.records import Manifest
from builders.spec.configs import iter_standard_configs
from builders.spec.languages import LANGUAGES

# The shared folder beside the checkout (README: ``../shared``), found through the mirror CI points at.


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


def book(tokens: int, o200k: int, pool: tuple[int, int], short: dict | None = None, released: int = 0) -> dict:
    """The card facts of one book (``BuildInputs.books``), written by hand."""
    reach = {t: {str(n): [None, None] for n in (8000, 32000, 64000, 128000)} for t in ("cwe_easy", "cwe_hard")}
    for task, cells in (short or {}).items():
        reach[task].update(cells)
    return {"tokens": tokens, "o200k_tokens": o200k, "released_tokens": released or tokens, "sha256": "00" * 32, "path": "b", "tokenizer": "cl100k_base",
            "characters": 1, "sentences": 306, "boundaries": 305, "safe_boundaries": 279,
            "cwe_pool_upstream": pool[0], "cwe_pool": pool[1], "cwe_reach": reach}


def manifest(configs: dict) -> Manifest:
    """A manifest written by hand, read as ``read_manifest`` reads one."""
    return Manifest.from_json({
        "format": "oneruler-export/1", "sources": {"OneRuler/data/x.txt": "ef" * 32},
        "fixes": [
            {"name": "footnote_markers", "language": "pl", "source": "book", "count": 287, "characters": 1327,
             "description": "removed footnote markers like [12]"},
            {"name": "footnote_markers", "language": "zh", "source": "book", "count": 131, "characters": 422,
             "description": "removed footnote markers like [12]"},
            {"name": "cwe_korean_homograph_digits", "language": "ko", "source": "dictionary", "count": 1440, "characters": 0,
             "description": "stripped homograph numbers"},
        ],
        "books": {"ko": book(12_000, 8_071, pool=(2605, 4003), short={"cwe_easy": {"128000": [100_739, 68_890]}},
                             released=12_279),
                  "pl": book(600_000, 500_000, pool=(8328, 8551))},
        "draws": {"mk_niah": {"draws": 400, "redrawn": 4, "rejected": 4},
                  "none_niah": {"draws": 400, "redrawn": 13, "rejected": 13}},
        "configs": configs,
    })


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
        n: [{"split": "test", "path": e.file}] for n, e in small.configs.items()}
    # Features travel in the Parquet schema, not 952 copies in the README (issue 13).
    assert "dataset_info" not in meta and "features" not in readme.split("\n---\n", 1)[0]


def test_fast_yaml_equals_library_yaml_for_the_whole_grid(small):
    base = small.configs["no_s_niah_8k"]
    configs = {}
    for spec in iter_standard_configs():
        configs[spec.name] = dataclasses.replace(
            base, file=f"data/{spec.name}/test-0123456789abcdef.parquet", task=spec.task,
            context_language=spec.context_language, instruction_language=spec.instruction_language)
    big = dataclasses.replace(small, configs=configs)
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
    # fixes grouped with per-language counts, totals and characters removed
    assert "| `footnote_markers` | removed footnote markers like [12] | pl 287, zh 131 | 418 | pl 1,327, zh 422 |" in body
    assert "| `cwe_korean_homograph_digits` | stripped homograph numbers | ko 1,440 | 1,440 | — |" in body
    # languages and books: all 26 rows with paper facts; measured tokens and repetition for short books
    for code, lang in LANGUAGES.items():
        assert f"| `{code}`" in body and lang.book.author in body
    assert "| 12,279 | 12,279 | 8,071 | 12,000 | 10.7× |" in body  # ko: paper, released, o200k, cl100k, 128k / 12k
    assert "equals the cl100k count of the released file for 1 of 26 books" in body
    assert "tokens reported in the paper (Table 4)" in body and "tokens (paper, o200k)" not in body
    assert "128,000" in body and "131,072" in body
    assert "not in this export" in body


def test_card_facts_match_the_paper(shared):
    paper = (shared / "papers" / "oneruler.txt").read_text(encoding="utf-8")
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


def test_card_states_the_scoring_policies_truthfully(small):
    body = render_card(small)
    assert "reproduces upstream `eval/evaluate.py` exactly" not in body
    assert "footnote 10" in body and "--missing-policy upstream" in body and 'missing_policy="upstream"' in body
    assert "<think>" in body and "--keep-think" in body and "strip_think=False" in body
    assert "--answer-tag" in body and "answer_tag=True" in body and "DeepSeek" in body


def test_card_titles_speakers_and_new_tables(small):
    body = render_card(small)
    for title in ("Call to Arms (呐喊)", "Pure Heart (Tố Tâm)", "Maisha yangu na baada ya Miaka Hamsini"):
        assert title in body
    assert "(喊)" not in body and "To tam" not in body
    for code, lang in LANGUAGES.items():  # Table 2's speakers column
        assert f"| {lang.morphology} | {lang.speakers} | {lang.wikipedia_articles:,} |" in body, code
    assert "| `mk_niah` | 400 | 4 | 4 |" in body and "| `none_niah` | 400 | 13 | 13 |" in body
    assert "| `ko` | 2,605 | 4,003 | full | full | full | 79% (100.7k) / 54% (68.9k) | full | full | full | full |" in body
    assert "| `pl` | 8,328 | 8,551 | full |" in body
    assert "| `ko` | 306 | 26 | 91.5% |" in body  # haystack units, boundaries inside quotations, safe share
    assert "a sentence or two" in body
    assert "ruby" in body and "憚はばかる" in body


def test_card_of_an_old_manifest_without_the_new_facts(small):
    old = copy.deepcopy(small)
    del old.facts["draws"]
    old.facts["books"] = {"ko": {"tokens": 12_000}}
    body = render_card(old)
    assert "No draw counts were recorded" in body and "No CWE pool facts were recorded" in body
    assert "| 12,279 | n/a | n/a | 12,000 | 10.7× |" in body and "for 0 of 26" not in body


def test_card_regenerated_from_an_export_shows_the_facts(tmp_path, source_cache):
    """A real (one-config) export: the README carries the measured facts of all 26 books."""
    from builders.export.build import build_dataset
    from builders.export.request import BuildRequest
    from builders.export.manifest import read_manifest

    out = tmp_path / "export"
    build_dataset(BuildRequest(["ko_s_niah_8k"], out, samples=1, cache_dir=str(source_cache), progress=False))
    readme = (out / "README.md").read_text(encoding="utf-8")
    manifest = read_manifest(out)
    assert readme == render_readme(manifest)
    assert manifest.facts["draws"]["none_niah"]["draws"] == 400
    assert manifest.facts["books"]["ko"]["o200k_tokens"] < LANGUAGES["ko"].book.paper_o200k_tokens
    for lang, upstream, here in [("zh", 2173, 3558), ("ko", 2605, 4003), ("vi", 6254, 7195), ("pt", 7617, 8502)]:
        assert f"| `{lang}` | {upstream:,} | {here:,} |" in readme
    zh = manifest.facts["books"]["zh"]["cwe_reach"]["cwe_easy"]
    assert zh["64000"][0] is None and 50_000 < zh["64000"][1] < 64_000  # no longer runs out here, did upstream
    assert 85_000 < zh["128000"][0] < 95_000 and 55_000 < zh["128000"][1] < 62_000
    assert "| `sw_glossary` |" in readme and "| `uk_latin_letters` |" in readme
    assert "equals the cl100k count of the released file for 23 of 26 books" in readme  # not o200k


def test_card_says_which_sweeps_the_export_holds_and_what_they_reproduce(small):
    body = render_card(small)
    assert "This export holds no position-controlled config" in body
    sweep = manifest({
        "pl_s_niah_32k_at0": entry("pl_s_niah_32k_at0", "s_niah", "pl", "pl", 32_000),
        "pl_s_niah_32k_at100": entry("pl_s_niah_32k_at100", "s_niah", "pl", "pl", 32_000),
        "ko-en_s_niah_8k_at25": entry("ko-en_s_niah_8k_at25", "s_niah", "ko", "en", 8_000),
        "de_mv16e_niah_128k": entry("de_mv16e_niah_128k", "mv16e_niah", "de", "de", 128_000),
        "de_mv8e_niah_32k": entry("de_mv8e_niah_32k", "mv8e_niah", "de", "de", 32_000),
        "de_mv_niah_32k": entry("de_mv_niah_32k", "mv_niah", "de", "de", 32_000),
    })
    body = render_card(sweep)
    assert ("This export holds 3 fixed-depth config(s) (depths 0%, 25%, 100%) and 2 multi-evidence config(s): "
            "`mv8e_niah` (reserve 102), `mv16e_niah` (reserve 174).") in body
    section = body.split("## Position-controlled sweeps", 1)[1].split("\n## ", 1)[0]
    for neighbour in ("Kamradt", "CROSS / mLongRR", "Counting-Stars", "Paul Graham", "30 + 9 × K"):
        assert neighbour in section
    assert "config_name: de_mv16e_niah_128k" in render_readme(sweep).split("\n---\n", 1)[0]  # front matter


def test_card_credits_the_upstreams_of_rulers_configs_and_says_the_essays_are_not_ours(small):
    from builders.sources.ruler.pins import load_pinned

    plain = render_card(small)
    assert "This export holds no config made from RULER's or other third-party inputs." in plain
    ruler = manifest({**small.to_json()["configs"],
                      "en_ruler_niah_single_2_8192": entry("en_ruler_niah_single_2_8192", "ruler_niah_single_2", "en",
                                                           "en", 8192),
                      "en_ruler_vt_4096": entry("en_ruler_vt_4096", "ruler_vt", "en", "en", 4096)})
    text = render_card(ruler)
    essays, rulers = load_pinned("paul_graham_essays"), load_pinned("ruler")
    assert (f"- **{rulers.title}** ([{rulers.upstream}]({rulers.upstream})@`{rulers.commit[:7]}`): {rulers.licence}. "
            f"Used by 2 configs: `en_ruler_niah_single_2_8192`, `en_ruler_vt_4096`.") in text
    assert f"- **{essays.title}**" in text and "Used by 1 config: `en_ruler_niah_single_2_8192`." in text
    assert "These essays are Paul Graham's writing: neither this project nor the repository" in text
    assert "NLTK" in text and "| `answer_prefix` | string | RULER NIAH, RULER VT, RULER CWE, RULER FWE, RULER QA |" in text
    assert text.index(rulers.title) < text.index(essays.title)  # the pinned upstreams' order

