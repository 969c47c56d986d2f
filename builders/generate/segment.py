"""Sentence segmentation of the haystack books (choice and measurements: docs/segmentation.md).

``sentencex`` (Wikimedia; rule-based, covers all 26 languages through language fallbacks, no model
downloads) splits the whitespace-collapsed book. Overlong "sentences" (long dialogues without a
recognised stop, e.g. in ja and ru) are then cut at secondary boundaries so that no filling unit is
larger than MAX_SENTENCE_CHARS: a sentence is the budget's granularity, and one of 20,000 characters
would exceed a whole 8k budget.

sentencex never splits inside quotes or brackets, so one unbalanced quote (es ``»`` used as a
continuation mark, de ``‹``, nl ``'s``) suppresses every later boundary: 200,000-character
"sentences". Quote and bracket characters are therefore masked (replaced one-for-one by ``*``)
before segmenting; sentencex returns contiguous pieces whose concatenation is its input, so the
original text is recovered by offsets.
"""

from __future__ import annotations

import re

from sentencex import segment as _sentencex_segment

MAX_SENTENCE_CHARS = 1_000
# Secondary boundaries, best first: sentence stops the segmenter passed over (followed by an
# upper-case or non-Latin start), clause punctuation (Latin and CJK), commas, then any whitespace.
_SECONDARY = (
    re.compile(r"[.!?…؟۔।॥]+[\"'”’»›」』）)\]]*\s+(?=[^\s\w]{0,4}[^\W\d_a-z])|[。！？]+[”’」』）]*"),
    re.compile(r"[;:；：؛](?:\s|$)|[；：]"),
    re.compile(r"[,，、،]\s*"),
    re.compile(r"\s"),
)


_QUOTES = re.compile(r"[\"'«»‹›„“”‘’‚‛「」『』()\[\]{}（）《》〈〉【】]")


# Closing quotes that the masked segmenter may leave at the start of the next sentence.
_LEADING_CLOSERS = re.compile(r"^[\"'»›“”’」』)\]）》〉】]+(?=\s|$)")


def split_sentences(language: str, text: str) -> list[str]:
    """Sentences of ``text`` (whitespace already collapsed), stripped, none empty, none overlong."""
    masked = _QUOTES.sub("*", text)
    raw: list[str] = []
    start = 0
    for piece in _sentencex_segment(language, masked):
        end = start + len(piece)
        sentence = text[start:end].strip()
        start = end
        closers = _LEADING_CLOSERS.match(sentence)
        if closers and raw:  # 'Truth?' + '” “I hope so,”' → 'Truth?”' + '“I hope so,”'
            raw[-1] += closers.group(0)
            sentence = sentence[closers.end():].strip()
        if sentence:
            raw.append(sentence)
    out: list[str] = []
    for sentence in raw:
        out.extend(_cut_overlong(sentence))
    if start != len(text):  # sentencex must return a partition of its input
        raise RuntimeError(f"sentence segmentation of {language} lost characters ({start} of {len(text)})")
    return out


def _cut_overlong(sentence: str, limit: int = MAX_SENTENCE_CHARS) -> list[str]:
    pieces = []
    while len(sentence) > limit:
        cut = 0
        for pattern in _SECONDARY:
            ends = [m.end() for m in pattern.finditer(sentence, 0, limit)]
            if ends and ends[-1] > limit // 4:
                cut = ends[-1]
                break
        if not cut:
            cut = limit
        head, sentence = sentence[:cut].strip(), sentence[cut:].strip()
        if head:
            pieces.append(head)
    if sentence:
        pieces.append(sentence)
    return pieces
