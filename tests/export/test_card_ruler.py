"""The card of an export holding RULER's configs: its sections describe what the export holds (RULER alone, RULER
across languages, both benchmarks), the deviations from RULER with the rows each touched, and the translation files
native configs are built from (recorded in the manifest, checked by verify)."""

from __future__ import annotations

import dataclasses
import re

import pytest

from builders.base.files import sha256_file
from builders.export.card import render_card, render_readme
from builders.export.cardtemplate import keep_blocks
from builders.export.carddeviations import NOT_RECORDED
from builders.export.frontmatter import parse_front_matter
from builders.export.records import Manifest


def entry(task: str, ctx: str, inst: str, length: int, rows: int = 50, **stats) -> dict:
    return {"file": "data/x/test-0123456789abcdef.parquet", "sha256": "ab" * 32, "size": 1_000_000,
            "num_rows": rows, "seed": 42, "samples": rows, "task": task, "context_language": ctx,
            "instruction_language": inst, "length": length,
            "stats": {"num_examples": rows, "num_tokens_min": length - 200, "num_tokens_median": length - 150,
                      "num_tokens_max": length - 130, "task": task, "context_language": ctx,
                      "instruction_language": inst, "length": length, "tokenizer": "cl100k_base",
                      "budget": length - 128, **stats},
            "tokenizer": {"alias": "cl100k", "spec": "cl100k_base", "identity": "cl100k_base", "kind": "tiktoken",
                          "fingerprint": "cd" * 32},
            "packages": {"oneruler": "0.3.0"}}


def book(sentences: int) -> dict:
    return {"tokens": 200_000, "o200k_tokens": 150_000, "released_tokens": 200_000, "sentences": sentences,
            "boundaries": sentences - 1, "safe_boundaries": sentences - 11}


def manifest(configs: dict) -> Manifest:
    return Manifest.from_json({
        "format": "oneruler-export/1", "sources": {},
        "fixes": [{"name": "footnote_markers", "language": "pl", "source": "book", "count": 287, "characters": 1327,
                   "description": "removed footnote markers like [12]"},
                  {"name": "footnote_bodies", "language": "zh", "source": "book", "count": 13, "characters": 2000,
                   "description": "removed footnote texts"},
                  {"name": "cwe_korean_homograph_digits", "language": "ko", "source": "dictionary", "count": 1440, "characters": 0,
                   "description": "stripped homograph numbers"}],
        "books": {"pl": book(15_427), "ja": book(4_667), "zh": book(2_150)},
        "draws": {"mk_niah": {"draws": 400, "redrawn": 4, "rejected": 4}},
        "configs": configs,
    })


def bibtex(readme, key: str) -> str:
    """The ```-fenced block of a README that holds the BibTeX entry ``key`` (the upstream's own text)."""
    text = readme.read_text(encoding="utf-8")
    start = text.rindex("@", 0, text.index("{" + key))
    return text[start:text.index("```", start)].strip()


ENGLISH = {
    "en_ruler_niah_single_2_8192": entry("ruler_niah_single_2", "en", "en", 8192,
                                         deviations={"key_redraws": 1, "past_essays": 0}),
    "en_ruler_niah_multikey_1_8192": entry("ruler_niah_multikey_1", "en", "en", 8192,
                                           deviations={"key_redraws": 2, "past_essays": 0}),
    "en_ruler_vt_8192": entry("ruler_vt", "en", "en", 8192),
    "en_ruler_cwe_8192": entry("ruler_cwe", "en", "en", 8192),
}
XLING = {
    "pl-en_ruler_vt_8192": entry("ruler_vt", "pl", "en", 8192, deviations={"book_example_words": 50}),
    "ja-en_ruler_vt_8192": entry("ruler_vt", "ja", "en", 8192, deviations={"book_example_words": 0}),
    "de-en_ruler_qa_xquad_65536": entry("ruler_qa_xquad", "de", "en", 65536, qa_pool_size=240,
                                        pool_exhausted=7, pool_size=240, pool_what="document pool",
                                        pool_unit="documents", pool_shortfall_tokens_max=4000),
}
STANDARD = {"pl_s_niah_8k": entry("s_niah", "pl", "pl", 8000)}


def section(card: str, title: str) -> str:
    return card.split(f"\n## {title}\n", 1)[1].split("\n## ", 1)[0]


def test_template_blocks_keep_the_lines_of_their_true_branch():
    text = "a\n{% if x %}\nb\n{% if not y %}\nc\n{% else %}\nd\n{% endif %}\n{% else %}\ne\n{% endif %}\nf\n"
    assert keep_blocks(text, {"x": True, "y": False}) == "a\nb\nc\nf\n"
    assert keep_blocks(text, {"x": True, "y": True}) == "a\nb\nd\nf\n"
    assert keep_blocks(text, {"x": False, "y": False}) == "a\ne\nf\n"
    with pytest.raises(KeyError, match="unknown flag 'z'"):
        keep_blocks("{% if z %}\n{% endif %}\n", {"x": True})
    with pytest.raises(KeyError, match="never closed"):
        keep_blocks("{% if x %}\nb\n", {"x": True})
    with pytest.raises(KeyError, match="without an open"):
        keep_blocks("{% endif %}\n", {})
    with pytest.raises(KeyError, match="alone on its line"):
        keep_blocks("a {% if x %}\n", {"x": True})


def test_a_ruler_only_card_is_rulers(ruler_mirror):
    readme = render_readme(manifest(ENGLISH))
    meta, card = parse_front_matter(readme), readme.split("\n---\n", 1)[1]
    assert meta["pretty_name"] == "RULER's tasks, built by oneruler" and "multilingual" not in meta["tags"]
    assert card.lstrip().startswith("# RULER's tasks, built by oneruler\n\nThis dataset is the `oneruler` project's "
                                    "build of the tasks of RULER (Hsieh et al., 2024")
    assert "tasks of RULER's retrieval (RULER NIAH: `ruler_niah_multikey_1`, `ruler_niah_single_2`)" in card
    assert "All of them are in English, as RULER is." in card
    for onerulers in ("seven synthetic tasks", "## Position-controlled sweeps", "accepted \"none\" words", "## Books",
                      "### CWE pools", "## Deviations from the upstream release", "kim2025oneruler", "| `s_niah` |",
                      "numbers with at least two digits", "`oneruler_8k`", "MIT licence** (Copyright (c) 2025",
                      "952 configs", "haystack units (sentences)", "Data fixes", "Artetxe"):
        assert onerulers not in card, onerulers
    assert "`string_match_all` (NIAH, VT, CWE, FWE)" in section(card, "Use")
    assert "| `ruler` (RULER's Avg." in section(card, "Leaderboards")
    languages = section(card, "Languages")
    assert "| `en` | English |" in languages and languages.count("\n| `") == 1
    tasks = section(card, "Tasks")
    assert "| `ruler_vt` |" in tasks and "| `ruler_fwe` |" not in tasks and "**RULER FWE**" not in tasks
    assert "| `cwe_easy` |" not in tasks and "| `qa_pool_size` |" not in section(card, "Fields")
    assert "`ruler`" in section(card, "Config names") and "4 of its 78 configs here" in card
    citation = section(card, "Citation")
    assert bibtex(ruler_mirror / "README.md", "hsieh2024ruler") in citation and citation.count("```bibtex") == 1


def test_the_deviations_from_ruler_count_the_rows_they_touched():
    card = render_card(manifest({**ENGLISH, **XLING}))
    deviations = section(card, "Deviations from RULER")
    lines = {m.group(1): m.group(2) for m in re.finditer(r"^- \*\*(.+?)\.\*\* .*?Rows of this export touched: (.*)\.$",
                                                            deviations, re.M)}
    assert lines["Random draws per row"] == "350 of 350 rows (every row of these configs)"
    assert lines["Fixed shuffles"] == "200 of 200 rows (every row of these configs)"  # NIAH, CWE, QA; not VT
    assert lines["Distinct keys and values"] == "3 of 100 rows"
    assert lines["The essays"] == "0 of 100 rows"
    assert lines["XQuAD not repeated"] == "7 of 50 rows"
    assert lines["VT's in-context example in a book"] == "50 of 100 rows"
    assert lines["Distinct variable names"] == NOT_RECORDED
    assert "No distractor with a real key" not in lines  # no distractor-needle task here
    old = {n: dict(e, stats={k: v for k, v in e["stats"].items() if k != "deviations"}) for n, e in ENGLISH.items()}
    stale = section(render_card(manifest(old)), "Deviations from RULER")
    assert "0 of 100 rows (2 config(s) built before this count was recorded are not included" in stale


def test_a_ruler_xling_card_shows_the_books_languages_and_xquad_it_uses(xquad_mirror):
    card = render_card(manifest(XLING))
    assert "variable tracking in ONERULER's book of 2 languages (ja, pl); QA over XQuAD's paragraphs" in card
    books = section(card, "Books")
    assert [r.split(" | ")[0] for r in books.splitlines() if r.startswith("| `")] == ["| `ja`", "| `pl`"]
    assert "released file for 0 of 2 books" in books  # the books shown, not 26
    haystacks = section(card, "Tasks").split("The books of this export's configs:", 1)[1]
    assert "| `ja` | 4,667 |" in haystacks and "| `pl` | 15,427 |" in haystacks and "`zh`" not in haystacks
    fixes = section(card, "Data fixes of the books")
    assert "| `footnote_markers` |" in fixes and "footnote_bodies" not in fixes and "korean" not in fixes
    languages = [r.split(" | ")[0] for r in section(card, "Languages").splitlines() if r.startswith("| `")]
    assert languages == ["| `de`", "| `en`", "| `ja`", "| `pl`"]
    assert "ONERULER's books (the haystacks of variable tracking outside English)" in section(card, "Licences")
    assert "No leaderboard pools a config of this export." in section(card, "Leaderboards")
    citation = section(card, "Citation")
    assert bibtex(xquad_mirror / "README.md", "Artetxe:etal:2019") in citation and "hsieh2024ruler" in citation


def test_a_mixed_card_names_both_benchmarks_and_keeps_onerulers_sections():
    card = render_card(manifest({**STANDARD, **ENGLISH}))
    assert card.lstrip().startswith("# ONERULER and RULER\n\nONERULER (\"One ruler to measure them all\"")
    assert "This export also holds configs of RULER (Hsieh et al., 2024" in card
    for kept in ("## Position-controlled sweeps", "accepted \"none\" words", "## Books", "## Deviations from the "
                 "upstream release", "## Deviations from RULER", "numbers with at least two digits",
                 "`string_match_part` (QA)"):
        assert kept in card, kept
    citation = section(card, "Citation")
    assert citation.index("kim2025oneruler") < citation.index("hsieh2024ruler") and "Artetxe" not in citation


def test_a_standard_card_has_no_ruler_section():
    card = render_card(manifest(STANDARD))
    assert card.lstrip().startswith("# ONERULER\n\nONERULER (") and card.endswith("}\n```\n")
    for rulers in ("{%", "Deviations from RULER", "hsieh2024ruler", "RULER's tasks, built by", "ONERULER and RULER",
                   "This export also holds configs of RULER", "Data fixes of the books"):
        assert rulers not in card, rulers
    assert "This export holds no config made from RULER's or other third-party inputs." in card


def test_a_build_counts_key_redraws_into_the_manifest_and_the_card(tmp_path, source_cache, monkeypatch):
    """The count comes from the generator's own draw (here made to report a redraw in row 1 only)."""
    from builders.export import ruler_deviations
    from builders.export.build import build_dataset
    from builders.export.manifest import read_manifest
    from builders.export.request import BuildRequest

    real = ruler_deviations.draw_niah

    def one_redrawn(task, args, material, length, index, seed):
        return dataclasses.replace(real(task, args, material, length, index, seed), rejected=int(index == 1))

    monkeypatch.setattr(ruler_deviations, "draw_niah", one_redrawn)
    out = tmp_path / "export"
    build_dataset(BuildRequest(["en_ruler_niah_single_1_4096", "pl-en_ruler_vt_4096"], out, samples=3,
                               cache_dir=str(source_cache), progress=False))
    configs = read_manifest(out).configs
    assert configs["en_ruler_niah_single_1_4096"].stats.deviations == {"key_redraws": 1}  # noise haystack: no essays
    assert configs["pl-en_ruler_vt_4096"].stats.deviations == {"book_example_words": 0}
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "a repeat is drawn again here. Rows of this export touched: 1 of 3 rows." in card


def test_a_native_build_records_its_translation_and_verify_names_a_changed_one(tmp_path, source_cache, monkeypatch,
                                                                              ruler_sources):
    from translation_fixtures import pseudo_document, write_document  # artificial: every word a [[pl]] marker

    from builders.export.build import build_dataset
    from builders.export.manifest import read_manifest
    from builders.export.request import BuildRequest
    from builders.export.verify import verify_export

    folder = tmp_path / "translations"
    monkeypatch.setenv("ONERULER_TRANSLATIONS", str(folder))
    path = write_document(folder, pseudo_document(ruler_sources.tasks, "pl", ["variable_tracking"]))
    out = tmp_path / "export"
    request = BuildRequest(["pl_ruler_vt_4096", "pl-en_ruler_vt_4096"], out, samples=1, cache_dir=str(source_cache),
                           progress=False)
    build_dataset(request)
    configs = read_manifest(out).configs
    recorded = configs["pl_ruler_vt_4096"].translation
    assert recorded["file"] == str(path) and recorded["sha256"] == sha256_file(path)
    assert recorded["translators"] == ["test fixture (not a translator)"] and recorded["licence"] == "CC0-1.0"
    assert configs["pl-en_ruler_vt_4096"].translation is None  # RULER's English instruction
    card = (out / "README.md").read_text(encoding="utf-8")
    line = next(x for x in section(card, "Reproducibility").splitlines() if x.startswith(f"- `{path}`"))
    assert f"sha256 `{sha256_file(path)}`" in line and "licence CC0-1.0" in line
    assert "test fixture (not a translator)" in line and line.endswith("Built from it: 1 config: `pl_ruler_vt_4096`.")

    doc = pseudo_document(ruler_sources.tasks, "pl", ["variable_tracking"])
    write_document(folder, {**doc, "reviewers": ["a second reader"]})  # the same pieces, another file
    report = verify_export(str(out), cache_dir=str(source_cache), progress=False)
    problems = report.results["pl_ruler_vt_4096"].problems
    assert not report.ok and report.results["pl-en_ruler_vt_4096"].identical
    assert problems[0] == (f"translation {path} changed since the config was built: recorded sha256 "
                           f"{recorded['sha256'][:16]}…, the file now has {sha256_file(path)[:16]}…")
    summary = build_dataset(request)  # no longer up to date: rebuilt with the file's new digest
    assert summary.built == ["pl_ruler_vt_4096"] and summary.skipped == ["pl-en_ruler_vt_4096"]
    assert read_manifest(out).configs["pl_ruler_vt_4096"].translation["reviewers"] == ["a second reader"]
    assert verify_export(str(out), cache_dir=str(source_cache), progress=False).ok


def test_front_matter_licence_is_every_licence_of_the_rows_inputs():
    from builders.export.upstreams import HUB_LICENCES
    from builders.sources.ruler.pins import PINNED_UPSTREAMS

    assert set(HUB_LICENCES) == set(PINNED_UPSTREAMS)  # every upstream a config may read has its Hub id
    licence = lambda configs: parse_front_matter(render_readme(manifest(configs)))["license"]  # noqa: E731
    assert licence(STANDARD) == "mit"
    assert licence({"en_ruler_vt_8192": ENGLISH["en_ruler_vt_8192"]}) == ["apache-2.0"]
    assert licence(ENGLISH) == ["apache-2.0", "mit", "other"]  # essays (no one's licence), Punkt (MIT)
    assert licence({**STANDARD, **XLING}) == ["apache-2.0", "cc-by-sa-4.0", "mit"]  # XQuAD's share-alike


def test_a_field_several_families_share_is_one_line_naming_them():
    fields = section(render_card(manifest(ENGLISH)), "Fields")
    prefix = [line for line in fields.splitlines() if line.startswith("| `answer_prefix` |")]
    assert len(prefix) == 1 and "| RULER NIAH, RULER VT, RULER CWE |" in prefix[0]
    assert "128,000" in fields and "131072" in fields and "e.g. 30 NIAH" not in fields
