"""The console's notes on length-cut answers say what the paper's policy does family by family."""

from __future__ import annotations

from builders.report.render.notes import paper_truncation


def test_onerulers_cut_answers_are_treated_as_no_response():
    assert paper_truncation(["niah", "cwe"]) == "paper policy: treated as no response (NIAH dropped, CWE counted wrong)"


def test_rulers_cut_answers_are_scored_as_written_and_said_so():
    assert paper_truncation(["ruler_niah", "ruler_vt"]) == (
        "paper policy: RULER NIAH/RULER VT scored as written (RULER's rule)")
    mixed = paper_truncation(["niah", "ruler_cwe"])
    assert mixed == ("paper policy: treated as no response (NIAH dropped); RULER CWE scored as written (RULER's rule)")
