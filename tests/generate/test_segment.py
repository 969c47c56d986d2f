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


# One case per quotation style: a closing mark the masked segmenter leaves at the start of the next
# piece goes back to its sentence, with or without a space after it.
@pytest.mark.parametrize("lang,text,expected", [
    ("da", "»Ja, det er rigtigt.« »Var det ham?« spurgte hun.",  # » … « (da, de, hu)
     ["»Ja, det er rigtigt.«", "»Var det ham?« spurgte hun."]),
    ("de", "Er rief: »Komm her! Sofort!« Dann ging er.", ["Er rief: »Komm her!", "Sofort!«", "Dann ging er."]),
    ("hu", "»Jó napot. Hogy van?« kérdezte. Ment.", ["»Jó napot.", "Hogy van?«", "kérdezte.", "Ment."]),
    ("fr", "Il dit : « Bonjour. Comment allez-vous ? » Elle sourit.",  # « … » (fr, it, es, no, ru, fa)
     ["Il dit : « Bonjour.", "Comment allez-vous ? »", "Elle sourit."]),
    ("ru", "«Кто там? Это я.» — спросил он. Тишина.", ["«Кто там?", "Это я.»", "— спросил он.", "Тишина."]),
    ("cs", "Řekl: „Pojď sem. Hned!“ A odešel.", ["Řekl: „Pojď sem.", "Hned!“", "A odešel."]),  # „ … “
    ("cs", "Řekl: ‚Pojď sem. Hned!‘ „Tedy hrajeme?“", ["Řekl: ‚Pojď sem.", "Hned!‘", "„Tedy hrajeme?“"]),
    ("pl", "Powiedział: „Chodź tu. Zaraz!” I poszedł.", ["Powiedział: „Chodź tu.", "Zaraz!”", "I poszedł."]),
    ("sv", "»Är det ditt? Ja.» Han gick. »Nej.»", ["»Är det ditt?", "Ja.»", "Han gick.", "»Nej.»"]),  # » … »
    ("en", "“Christmas won’t be Christmas. Oh!” grumbled Jo. ‘Fine. Yes.’ Done.",
     ["“Christmas won’t be Christmas.", "Oh!”", "grumbled Jo.", "‘Fine.", "Yes.’", "Done."]),
    ("hi", "उसने कहा ‘मैं आया। तुम जाओ।’ फिर वह चला गया।", ["उसने कहा ‘मैं आया।", "तुम जाओ।’", "फिर वह चला गया।"]),
    ("zh", "“女王”的魔法数字。”他仍然笑着说。", ["“女王”的魔法数字。”", "他仍然笑着说。"]),  # no space after ”
    ("ja", "「先生。」と私は言った。『こころ。』", ["「先生。」", "と私は言った。", "『こころ。』"]),
    ("it", "Disse (non era vero. Affatto.) e andò.", ["Disse (non era vero.", "Affatto.)", "e andò."]),
    ("ko", '"난수야. 어디 가니?" 하고 물었다.', ['"난수야.', '어디 가니?"', '하고 물었다.']),
])
def test_closing_marks_stay_with_their_sentence(lang, text, expected):
    assert split_sentences(lang, text) == expected


def test_marks_that_open_or_are_apostrophes_are_not_moved():
    # es opens a continued quotation with », ’Tis is an apostrophe: neither goes back
    assert split_sentences("es", "Así fue. »Pusimos centinelas.")[-1] == "»Pusimos centinelas."
    assert split_sentences("en", "It is a dangerous book.’ ’Tisn’t!")[-1] == "’Tisn’t!"


def test_an_opening_mark_left_at_the_end_of_a_piece_goes_forward():
    from builders.generate.segment import _move_edge_marks

    pieces = ["Han sagde: »", "Kom her!« ", "Slut."]
    assert _move_edge_marks("da", pieces) == ["Han sagde: ", "»Kom her!« ", "Slut."]
    assert "".join(_move_edge_marks("da", pieces)) == "".join(pieces)
