"""Which sentence boundaries lie outside every quotation and bracket, per quotation style (issue 10)."""

from __future__ import annotations

import pytest

from builders.generate.quotes import MAX_SPAN_CHARS, quote_spans, safe_boundaries
from builders.generate.segment import split_sentences


def safety(lang: str, text: str) -> list[tuple[bool, str]]:
    """(is the boundary before this sentence safe, sentence) for a hand-made text."""
    sentences = split_sentences(lang, text)
    safe = safe_boundaries(lang, sentences, "" if lang in ("zh", "ja") else " ")
    assert safe[0] and safe[-1] and len(safe) == len(sentences) + 1
    return list(zip(safe, sentences))


@pytest.mark.parametrize("lang,text,inside", [
    ("da", "Hun sagde: »Kom her. Nu!« Han kom. Slut.", ["Nu!«"]),
    ("de", "»Ja. ›Nein. Doch.‹ Gut.« Ende. Aus.", ["›Nein.", "Doch.‹", "Gut.«"]),
    ("fr", "Il dit : « Bonjour. Ça va ? » Elle sourit. Fin.", ["Ça va ? »"]),
    ("cs", "Řekl: „Pojď sem. Hned!“ A odešel. Konec.", ["Hned!“"]),
    ("pl", "Powiedział: „Chodź tu. Zaraz!” I poszedł. Koniec.", ["Zaraz!”"]),
    ("sv", "»Är det ditt? Ja.» Han gick. Slut.", ["Ja.»"]),
    ("en", "“Stop. Now!” he said. ‘We won’t. Ever.’ Done. End.", ["Now!”", "Ever.’"]),
    ("hi", "उसने कहा ‘मैं आया। तुम जाओ।’ फिर वह चला गया। अंत।", ["तुम जाओ।’"]),
    ("zh", "他说：“我来了。你呢？”他笑了。好。", ["你呢？”"]),
    ("ja", "「先生。行こう。」と言った。はい。", ["行こう。」"]),
    ("it", "Disse (non era vero. Affatto.) e andò. Fine.", ["Affatto.)"]),
    ("ko", '그가 "난수야. 어디 가니?" 하고 물었다. 끝.', ['어디 가니?"']),
    ("nl", "‘Ik ga ’s avonds. Echt.’ Hij ging. Klaar.", ["Echt.’"]),
])
def test_boundaries_inside_a_quotation_are_unsafe(lang, text, inside):
    unsafe = [s for ok, s in safety(lang, text) if not ok]
    assert unsafe == inside


def test_a_stray_quote_does_not_swallow_the_rest_of_the_book():
    filler = "Plain sentence here. "
    assert all(ok for ok, _ in safety("en", "“Stray opening. " + filler * 400 + "End."))  # never closed
    # closed within MAX_SPAN_CHARS: a long quotation, every boundary inside it is unsafe
    inside = safety("en", "“Long speech. " + filler * 50 + "The end.” Then more. And more.")
    assert [ok for ok, _ in inside] == [True] + [False] * 51 + [True, True]
    # closed after more than MAX_SPAN_CHARS: a stray opening mark and a stray closing one
    assert len(filler) * 400 > MAX_SPAN_CHARS
    assert all(ok for ok, _ in safety("en", "“Stray opening. " + filler * 400 + "A late close.” Then more."))


def test_a_stray_closer_is_ignored_and_nesting_closes_inner_marks():
    assert quote_spans("en", "He said.” Then “a (b” c.") == [(15, 20)]  # '(' never closed: dropped
    assert quote_spans("da", "»a ›b‹ c« «x»") == [(0, 8), (3, 5)]  # » opens in da; the last « is a stray closer
    assert quote_spans("fr", "« a » »") == [(0, 4)]
    assert quote_spans("sv", "»a» b »c d» ’e’ f’s") == [(0, 2), (6, 10), (12, 14)]
