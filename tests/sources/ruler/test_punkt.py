"""NLTK's English Punkt from the pinned punkt_tab.zip splits exactly as ``nltk.sent_tokenize`` does with that zip
installed as nltk_data (``NLTK_DATA`` pointed at an extracted copy, in a fresh process): on RULER's whole essay
haystack, joined as RULER joins it, and on texts full of abbreviations."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import zipfile

import pytest

from builders.base.errors import SourceError
from builders.sources.ruler.punkt import punkt_parameters

SENT_TOKENIZE = "import json, sys, nltk; print(json.dumps([nltk.sent_tokenize(t) for t in json.load(sys.stdin)]))"
TRICKY = ["Mr. and Mrs. Smith met Dr. Jones at 5 p.m. on Jan. 3. They left.",
          "He said \"Stop.\" Then she (reluctantly) agreed... U.S.A. is big. e.g. this one.",
          "No full stop at the end", "", "  Leading spaces. And trailing.  "]


def nltk_sent_tokenize(texts: list[str], punkt_zip: bytes, tmp_path) -> list[list[str]]:
    """``nltk.sent_tokenize`` of each text in a new process whose only nltk_data is the extracted zip."""
    data = tmp_path / "nltk_data"
    zipfile.ZipFile(io.BytesIO(punkt_zip)).extractall(data / "tokenizers")
    env = {**os.environ, "NLTK_DATA": str(data), "HOME": str(tmp_path)}  # HOME: no ~/nltk_data of the user
    res = subprocess.run([sys.executable, "-c", SENT_TOKENIZE], input=json.dumps(texts), env=env, capture_output=True,
                         text=True, timeout=600, cwd=tmp_path)
    assert res.returncode == 0, res.stderr[-2000:]
    return json.loads(res.stdout)


def test_punkt_splits_the_essays_as_sent_tokenize(ruler_sources, punkt_mirror, tmp_path):
    tokenizer = ruler_sources.sentence_tokenizer
    haystack = " ".join(ruler_sources.essays.words).strip()  # niah.py: sent_tokenize(" ".join(haystack[:n]).strip())
    punkt_zip = (punkt_mirror / "packages/tokenizers/punkt_tab.zip").read_bytes()
    theirs = nltk_sent_tokenize([haystack, *TRICKY], punkt_zip, tmp_path)
    ours = [tokenizer.tokenize(text) for text in [haystack, *TRICKY]]
    assert ours == theirs
    assert len(ours[0]) > 5_000  # the whole haystack was split, not one sentence
    assert ruler_sources.sentence_tokenizer is tokenizer  # loaded once


def test_a_zip_without_the_english_model_or_no_zip_is_refused(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        z.writestr("punkt_tab/german/collocations.tab", "")
    with pytest.raises(SourceError, match="p.zip: no punkt_tab/english/collocations.tab"):
        punkt_parameters(buffer.getvalue(), "p.zip")
    with pytest.raises(SourceError, match="p.zip: not a readable punkt_tab zip"):
        punkt_parameters(b"not a zip", "p.zip")


def test_a_malformed_parameter_file_is_refused():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        for name, text in (("collocations.tab", "a\tb\n"), ("sent_starters.txt", "the\n"),
                           ("abbrev_types.txt", "dr\n"), ("ortho_context.tab", "the\tmany\n")):
            z.writestr(f"punkt_tab/english/{name}", text)
    with pytest.raises(SourceError, match="p.zip: a punkt_tab file of the 'english' model is malformed"):
        punkt_parameters(buffer.getvalue(), "p.zip")
