"""The generators take RULER's needle format, noise lines and document format from the pinned scripts, not from
their own code: with scripts whose texts differ (a temporary mirror, pinned by a test manifest), the rows carry the
new texts, still counted exactly."""

from __future__ import annotations

import copy
import os

import pytest

from builders.base.files import sha256_bytes
from builders.generate.rows import RowGenerator
from builders.sources.manifest import SourceFile
from builders.sources.ruler.pins import ruler_manifest
from builders.sources.ruler.store import RulerSources
from builders.sources.ruler.texts import NIAH_SCRIPT, QA_SCRIPT, VT_SCRIPT
from builders.spec.configs import parse_config_name

NEEDLE = "Remember: the hidden {type_needle_v} of {key} equals {value}."
NIAH_NOISE = "Rain falls on the quiet hills."
VT_NOISE = "Boats drift across the lake."
REWRITES = {
    NIAH_SCRIPT: [('"One of the special magic {type_needle_v} for {key} is: {value}."', f'"{NEEDLE}"'),
                  ('"The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."',
                   f'"{NIAH_NOISE}"')],
    VT_SCRIPT: [('"The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."',
                 f'"{VT_NOISE}"')],
    QA_SCRIPT: [('DOCUMENT_PROMPT = "Document {i}:\\n{document}"', 'DOCUMENT_PROMPT = "Passage {i} ::\\n{document}"'),
                ("context = '\\n\\n'.join([DOCUMENT_PROMPT", "context = '\\n~~\\n'.join([DOCUMENT_PROMPT")],
}


@pytest.fixture(scope="module")
def rewritten(sources, mirrors, ruler_mirror, tmp_path_factory):
    """A row generator whose RULER scripts are the mirror's with other texts."""
    folder = tmp_path_factory.mktemp("texts") / "mirror"
    entries = [e for e in ruler_manifest() if e.role != "ruler_generators"]
    for path, pairs in REWRITES.items():
        text = (ruler_mirror / path).read_text(encoding="utf-8")
        for old, new in pairs:
            assert text.count(old) >= 1, (path, old)
            text = text.replace(old, new)
        data = text.encode()
        (folder / path).parent.mkdir(parents=True, exist_ok=True)
        (folder / path).write_bytes(data)
        entries.append(SourceFile(path, sha256_bytes(data), len(data), "ruler_generators", "en", "test",
                                  urls=(f"https://example.invalid/{path}",)))
    mine = copy.copy(sources)
    mine.ruler = RulerSources(mirror=os.pathsep.join([str(folder), mirrors]), cache_dir=folder.parent / "cache",
                              entries=entries)
    return RowGenerator(mine)


def exact(row, cl100k) -> None:
    assert cl100k.count(row["input"] + row["answer_prefix"]) == row["num_tokens"] <= row["budget"]


@pytest.mark.parametrize("task", ["niah_single_1", "niah_multikey_2"])  # noise, distractor-needle haystacks
def test_niah_rows_take_the_scripts_needle_and_noise(rewritten, cl100k, task):
    row = rewritten.example(parse_config_name(f"en_ruler_{task}_4096"), 0)
    lines = row["input"][slice(*row["context_span"])].split("\n")
    assert not any("special magic" in line or "grass" in line for line in lines)
    assert all(NEEDLE.format(type_needle_v="numbers", key=n["key"], value=n["value"]) in lines for n in row["needles"])
    assert len(lines) == row["num_units"] + len(row["needles"])
    if task == "niah_single_1":
        assert lines.count(NIAH_NOISE) == row["num_units"]
    else:
        assert all(line.startswith(NEEDLE.split("{")[0]) for line in lines)
    exact(row, cl100k)


def test_vt_rows_take_the_scripts_noise(rewritten, cl100k):
    row = rewritten.example(parse_config_name("en_ruler_vt_4096"), 0)
    lines = row["input"][slice(*row["context_span"])].split("\n")
    assert lines.count(VT_NOISE) == row["num_units"] and "grass" not in row["input"]
    assert VT_NOISE in row["input"][: row["context_span"][0]]  # the in-context example's haystack too
    exact(row, cl100k)


def test_qa_rows_take_the_scripts_document_format(rewritten, cl100k):
    row = rewritten.example(parse_config_name("en_ruler_qa_xquad_4096"), 0)
    context = row["input"][slice(*row["context_span"])]
    blocks = context.split("\n~~\n")
    assert len(blocks) == row["num_units"] and all(b.startswith(f"Passage {i} ::\n") for i, b in enumerate(blocks, 1))
    assert [n["value"] for n in row["needles"]] == [f"Passage {n['key'].split()[-1]} ::" for n in row["needles"]]
    assert "Document 1:" not in context
    exact(row, cl100k)
