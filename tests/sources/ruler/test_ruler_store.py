"""``RulerSources``: each role fetched on first use from a temporary mirror with a test manifest; a missing role fails
alone, in one line, and the committed manifests (raw/ruler/*.json) agree with ../shared's mirrors."""

from __future__ import annotations

import importlib.util
import json
from dataclasses import replace
from pathlib import Path

import pytest

from builders.base.errors import SourceError
from builders.base.files import sha256_bytes, sha256_file
from builders.sources.manifest import Alternate, load_manifest
from builders.sources.mirror import MissingSource
from builders.sources.ruler.pins import PINNED_UPSTREAMS, entries_of_role, load_pinned, ruler_manifest, source_group
from builders.sources.ruler.store import RulerSources

REPO = Path(__file__).resolve().parents[3]


def test_each_kind_is_fetched_when_first_asked_for(tiny_mirror, tmp_path):
    folder, entries = tiny_mirror
    sources = RulerSources(mirror=str(folder), cache_dir=tmp_path / "cache", entries=entries)
    assert not (tmp_path / "cache" / "sha256").exists()  # nothing fetched yet
    assert sources.squad.files == (entries[0],)
    blobs = [p for p in (tmp_path / "cache" / "sha256").rglob("*") if p.is_file()]
    assert [sha256_file(p) for p in blobs] == [entries[0].sha256]
    assert sources.squad is sources.squad  # parsed once, kept


def test_a_missing_kind_fails_alone_and_names_the_file(tiny_mirror, tmp_path):
    folder, entries = tiny_mirror
    (folder / "hotpot_dev_distractor_v1.json").unlink()
    sources = RulerSources(mirror=str(folder), cache_dir=tmp_path / "cache", entries=entries)
    with pytest.raises(MissingSource, match=r"^hotpot_dev_distractor_v1.json: not found in the mirror \(looked in "):
        sources.hotpotqa
    assert len(sources.squad.questions) == 3 and sources.english_words.words  # the others still work
    with pytest.raises(SourceError, match="no pinned essay source in the manifest"):
        sources.essays


def test_a_parsed_value_records_the_bytes_read_an_alternates_when_it_was_that(tiny_mirror, tmp_path):
    folder, entries = tiny_mirror
    hotpot = entries[1]
    copy = json.dumps(json.loads((folder / hotpot.path).read_bytes())).encode()  # the same JSON, other bytes
    (folder / hotpot.path).write_bytes(copy)
    alternate = Alternate(sha256_bytes(copy), len(copy), ("https://example.invalid/copy.json",), "a test copy")
    primary = replace(hotpot, sha256="0" * 64, alternates=(alternate,))
    sources = RulerSources(mirror=str(folder), cache_dir=tmp_path / "cache", entries=[primary])
    (read,) = sources.hotpotqa.files
    assert (read.sha256, read.size, read.urls, read.alternates) == (alternate.sha256, len(copy), alternate.urls, ())
    assert read.facts["alternate_of"] == "0" * 64 and read.facts["digest_source"] == "a test copy"
    assert len(sources.hotpotqa.questions) == 2


def test_the_committed_manifests_match_the_mirrors(mirrors, shared):
    script = importlib.util.spec_from_file_location("make_ruler_manifests", REPO / "scripts" / "make_ruler_manifests.py")
    make_ruler_manifests = importlib.util.module_from_spec(script)
    script.loader.exec_module(make_ruler_manifests)
    assert make_ruler_manifests.main(["--check", "--shared", str(shared), "--punkt", mirrors]) == 0


def test_the_manifests_pin_what_rulers_tasks_read():
    entries = ruler_manifest()
    assert [len(load_pinned(name).files) for name in PINNED_UPSTREAMS] == [7, 49, 12, 1, 1, 1]
    assert len({e.path for e in entries}) == len(entries) == 71
    ruler = load_pinned("ruler")
    assert (ruler.upstream, ruler.commit, ruler.licence) == ("https://github.com/NVIDIA/RULER",
                                                             "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a", "Apache-2.0")
    words = entries_of_role(entries, "ruler_english_words")[0]
    assert (words.sha256, words.size) == ("affcd6d45fdf3cc843d585c99c97ad615094e760e6c4756b654bab6c73bc2eca", 8_564_991)
    assert words.upstream_urls() == ("https://media.githubusercontent.com/media/NVIDIA/RULER/"
                                     "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a/scripts/data/synthetic/json/english_words.json",)
    hotpot = entries_of_role(entries, "hotpotqa")[0]
    assert hotpot.upstream_urls() == ("http://curtis.ml.cmu.edu/datasets/hotpot/hotpot_dev_distractor_v1.json",)
    assert hotpot.alternates[0].urls[0].startswith("https://huggingface.co/datasets/namlh2004/hotpotqa/")
    squad = entries_of_role(entries, "squad")[0]
    assert squad.upstream_urls() == ("https://rajpurkar.github.io/SQuAD-explorer/dataset/dev-v2.0.json",)
    unverified = sorted(e.path for e in entries if not e.facts["verified_here"])
    assert unverified == ["dataset/dev-v2.0.json", "hotpot_dev_distractor_v1.json",
                          "scripts/data/synthetic/json/english_words.json"]
    assert all(e.facts["digest_source"] and e.licence for e in entries)


def test_source_groups():
    assert len(source_group("oneruler")) == len(load_manifest())
    assert len(source_group("all")) == len(load_manifest()) + len(ruler_manifest())
    assert source_group("ruler") == ruler_manifest()
    with pytest.raises(SourceError, match="unknown source group 'books'; valid: oneruler, ruler, all"):
        source_group("books")
    with pytest.raises(SourceError, match="no pinned upstream 'wiki'"):
        load_pinned("wiki")
