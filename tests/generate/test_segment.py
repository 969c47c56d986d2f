"""Segmentation rules on hand-made text (the 26 real books are covered in test_rows.py)."""

from __future__ import annotations

import re

import pytest

from builders.generate.segment import MAX_SENTENCE_CHARS, split_sentences


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("lang,text", [
    ("en", 'He said: "Truth?" "I hope so," she said. Next one here.'),
    ("de", "»Komm her!« rief er. Dann ging er. Und dann?"),
    ("pl", "To jest zdanie. A to drugie (z nawiasem). Trzecie!"),
    ("ru", "«Кто там?» — спросил он. Никто не ответил."),
])
def test_sentences_partition_the_text(lang, text):
    sentences = split_sentences(lang, text)
    assert len(sentences) >= 2
    assert squash("".join(sentences)) == squash(text)
    assert all(s == s.strip() and s for s in sentences)


def test_closing_quote_moves_back_to_its_sentence():
    assert split_sentences("en", 'He asked: "Truth?" "I hope so," she said.') == [
        'He asked: "Truth?"', '"I hope so," she said.']


def test_one_unbalanced_quote_does_not_switch_splitting_off():
    text = "» Ein Satz. " + " ".join(f"Satz Nummer {i} endet hier." for i in range(50))
    sentences = split_sentences("de", text)
    assert len(sentences) > 40 and max(map(len, sentences)) < 100


def test_overlong_sentences_are_cut_at_secondary_boundaries():
    clause = "und dann ging er weiter, ohne ein Wort zu sagen; "
    text = "Er sagte " + clause * 100 + "und blieb."
    sentences = split_sentences("de", text)
    assert max(map(len, sentences)) <= MAX_SENTENCE_CHARS
    assert all(s.endswith((";", ",", ".")) for s in sentences[:-1])  # cut after clause punctuation
    assert squash("".join(sentences)) == squash(text)


def test_cjk_text_splits_at_full_stops_without_spaces():
    sentences = split_sentences("zh", "我走了。你呢？他笑了。")
    assert sentences == ["我走了。", "你呢？", "他笑了。"]
