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

Masking leaves a closing mark that follows a sentence stop at the start of the next piece
(``'Truth?' + '” “I hope so,”'``, da ``'Ja.' + '« »Nej.«'``, zh ``'…。' + '”他说'``): closing marks at
the start of a piece, with any punctuation attached to them, go back to the previous sentence, and
opening marks at the end of a piece go forward to the next one. Which marks close depends on the
language (``«`` closes in da/de/hu and opens in fr; ``builders/generate/quotes.py``); symmetric marks
(``"``) count as closing only when a space or the end follows them; in languages written with
spaces, a closing mark directly followed by a letter stays (es ``»Pusimos``: a continued quotation).
"""

from __future__ import annotations

import functools
import re

from sentencex import segment as _sentencex_segment

from ..spec.languages import get_language
from .quotes import quote_style

MAX_SENTENCE_CHARS = 1_000
# Secondary boundaries, best first: sentence stops the segmenter passed over (followed by an
# upper-case or non-Latin start; closing marks stay with the stop), clause punctuation (Latin and
# CJK), commas, then any whitespace.
_MISSED_STOP = r"[.!?…؟۔।॥]+[{closers}]*\s+(?=[^\s\w]{{0,4}}[^\W\d_a-z])|[。！？]+[{closers}]*"
_CLAUSE = (
    re.compile(r"[;:；：؛](?:\s|$)|[；：]"),
    re.compile(r"[,，、،]\s*"),
    re.compile(r"\s"),
)
_QUOTES = re.compile(r"[\"'«»‹›„“”‘’‚‛´「」『』()\[\]{}（）《》〈〉【】〔〕]")
# Punctuation that stays attached to a closing mark moved back (``»Ja«, sagte er`` → ``»Ja«,``).
_ATTACHED = ".,;:!?…，。、；：！？"


@functools.lru_cache(maxsize=None)
def _patterns(language: str) -> tuple[re.Pattern, re.Pattern, tuple[re.Pattern, ...]]:
    """(closing marks at the start of a piece, opening marks at its end, secondary boundaries).

    Where words are separated by spaces, a closing mark followed by a letter is not moved (es opens
    a continued quotation with ``»``; ``’Tisn’t`` is an apostrophe); in zh/ja it always is.
    """
    style = quote_style(language)
    closing, symmetric = re.escape(style.closing_marks), re.escape(style.symmetric)
    free = "" if get_language(language).no_space else r"(?![^\W_])"
    mark = rf"(?:[{closing}]{free}|[{symmetric}](?=\s|$|[{closing}{symmetric}]))"
    leading = re.compile(rf"^{mark}(?:\s*{mark})*[{re.escape(_ATTACHED)}]*")
    trailing = re.compile(rf"(?:(?<=\s)[{symmetric}]|[{re.escape(style.opening_marks)}])+$")
    missed_stop = re.compile(_MISSED_STOP.format(closers=closing + symmetric))
    return leading, trailing, (missed_stop,) + _CLAUSE


def split_sentences(language: str, text: str) -> list[str]:
    """Sentences of ``text`` (whitespace already collapsed), stripped, none empty, none overlong."""
    masked = _QUOTES.sub("*", text)
    pieces: list[str] = []
    start = 0
    for piece in _sentencex_segment(language, masked):
        pieces.append(text[start:start + len(piece)])
        start += len(piece)
    if start != len(text):  # sentencex must return a partition of its input
        raise RuntimeError(f"sentence segmentation of {language} lost characters ({start} of {len(text)})")
    out: list[str] = []
    for piece in _move_edge_marks(language, pieces):
        if piece.strip():
            out.extend(_cut_overlong(piece.strip(), _patterns(language)[2]))
    return out


def _move_edge_marks(language: str, pieces: list[str]) -> list[str]:
    """Closing marks at the start of a piece go back, opening marks at its end go forward.

    Pieces are exact slices of the text and stay a partition of it (whitespace included).
    """
    leading, trailing, _ = _patterns(language)
    out: list[str] = []
    carry = ""  # opening marks (and the space after them) moved on from the previous piece
    for piece in pieces:
        piece, carry = carry + piece, ""
        body = piece.lstrip()
        closers = leading.match(body)
        if closers and out:  # 'Truth? ' + '” “I hope so,”' → 'Truth? ”' + ' “I hope so,”'
            cut = len(piece) - len(body) + closers.end()
            out[-1] += piece[:cut]
            piece = piece[cut:]
        openers = trailing.search(piece.rstrip())
        if openers and piece[:openers.start()].strip():  # 'He said: »' + 'Come!«' → 'He said: ' + '»Come!«'
            piece, carry = piece[:openers.start()], piece[openers.start():]
        out.append(piece)
    if carry:
        out.append(carry)
    return out


def _cut_overlong(sentence: str, secondary: tuple[re.Pattern, ...], limit: int = MAX_SENTENCE_CHARS) -> list[str]:
    pieces = []
    while len(sentence) > limit:
        cut = 0
        for pattern in secondary:
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
