"""RULER's prompt frame (generate/ruler/frame.py): prepare.py's ``template + answer_prefix``, filled, cut where RULER
cuts its answer prefix (the last occurrence of its first 10 characters)."""

from __future__ import annotations

import pytest

from builders.base.errors import OneRulerError
from builders.generate.ruler.frame import ruler_frame
from builders.sources.ruler.tasks import RulerTemplate


def test_frames_of_every_family_rebuild_the_filled_template(ruler_sources):
    values = {"niah": {"type_needle_v": "numbers", "query": "k"}, "variable_tracking": {"query": "12345", "num_v": 5},
              "common_words_extraction": {"num_cw": 10, "query": ""}, "freq_words_extraction": {"query": ""},
              "qa": {"query": "Who?"}}
    for family, filled in values.items():
        template = ruler_sources.tasks.templates[family]
        frame = ruler_frame(template, filled)
        whole = (template.template + template.answer_prefix).format(**filled, context="CONTEXT")
        assert frame.head + "CONTEXT" + frame.tail + frame.answer_prefix == whole
        assert frame.answer_prefix == whole[whole.rfind(template.answer_prefix[:10]):]
        assert frame.closing == frame.tail + frame.answer_prefix


def test_the_last_occurrence_is_cut_and_a_rewrite_applies_first():
    template = RulerTemplate("toy", "Q: {query} Answer is no\n{context}\nAgain Answer is", " Answer is {query}", 5)
    frame = ruler_frame(template, {"query": "x"}, rewrite=lambda t: t.replace("Again", "Once more"))
    assert (frame.head, frame.tail, frame.answer_prefix) == ("Q: x Answer is no\n", "\nOnce more Answer is",
                                                             " Answer is x")
    with pytest.raises(OneRulerError, match="answer prefix"):
        ruler_frame(template, {"query": "x"}, rewrite=lambda t: t.replace(" Answer is", " Reply"))
