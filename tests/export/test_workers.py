"""Build jobs: a config whose pinned source is missing fails alone (the others are built and committed, one error line
names it, its source and how to get it); a pool that runs out (XQuAD's paragraphs) is warned about and listed in the
card, as CWE's word pools are."""

from __future__ import annotations

import pytest

from builders.export.build import build_dataset
from builders.export.manifest import read_manifest
from builders.export.request import BuildRequest
from builders.sources.mirror import MissingSource


def test_a_missing_source_fails_its_config_alone(tmp_path, source_cache, capsys):
    out = tmp_path / "export"
    names = ["en_ruler_qa_1_4096", "en_ruler_qa_xquad_65536", "en_ruler_fwe_4096"]  # SQuAD is not on this machine
    with pytest.raises(MissingSource) as caught:
        build_dataset(BuildRequest(names, out, samples=1, seed=42, cache_dir=str(source_cache), progress=False))
    message = str(caught.value)
    assert message.startswith("1 config not built for a missing source (2 others built): config en_ruler_qa_1_4096: "
                              "needs SQuAD v2.0 dev (RULER's qa_1): dataset/dev-v2.0.json: not found in the mirror")
    assert "\n" not in message and "oneruler fetch --sources all" in message
    manifest = read_manifest(out)
    assert sorted(manifest.configs) == ["en_ruler_fwe_4096", "en_ruler_qa_xquad_65536"]
    stats = manifest.configs["en_ruler_qa_xquad_65536"].stats
    assert (stats.pool_size, stats.pool_unit, stats.pool_exhausted) == (240, "documents", 1)
    assert f"warning: en_ruler_qa_xquad_65536: the document pool (240 documents) ran out: 1 of 1 example(s) are short, " \
           f"reaching {stats.num_tokens_min:,} of 65,504 tokens" in capsys.readouterr().err
    readme = (out / "README.md").read_text(encoding="utf-8")
    assert (f"- `en_ruler_qa_xquad_65536`: 1 of 1 examples use the whole pool of 240 documents and still fall short of "
            f"the budget by up to {65_504 - stats.num_tokens_min:,} tokens.") in readme
