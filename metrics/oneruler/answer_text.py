"""The text a rule scores: an output as text, its reasoning split off, the paper's clean(), whole-token search.

Standard library only, like every module of the scoring package (it is copied whole beside the
``evaluate`` metric: metrics/oneruler/).
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any, Sequence

ZWNJ = "\u200c"
_THINK_OPEN = re.compile(r"\s*<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_ANSWER_BLOCK = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)

# A whole-token term: its pattern, and whether its left and right ends need a boundary.
TokenTerm = tuple[re.Pattern[str], bool, bool]


def normalize(text: str) -> str:
    """Unicode NFKC, as the paper applies to NIAH outputs."""
    return unicodedata.normalize("NFKC", text)


def clean(text: str) -> str:
    """The paper's clean(): strip, lower-case, delete U+200C and every ASCII space."""
    return text.strip().lower().replace(ZWNJ, "").replace(" ", "")


def as_text(prediction: Any) -> str | None:
    """A prediction as text: None stays None (no response), bytes are decoded, others str()."""
    if prediction is None or isinstance(prediction, str):
        return prediction
    if isinstance(prediction, (bytes, bytearray, memoryview)):
        return bytes(prediction).decode("utf-8", errors="replace")
    return str(prediction)


def split_reasoning(text: str) -> tuple[str | None, str]:
    """(reasoning, answer) of an output: a leading ``<think>…</think>`` block is the reasoning.

    No leading block: (None, text). A block that opens but never closes is all reasoning and
    the answer is "" (the model never answered).
    """
    opened = _THINK_OPEN.match(text)
    if not opened:
        return None, text
    closed = _THINK_CLOSE.search(text, opened.end())
    if not closed:
        return text[opened.end():], ""
    return text[opened.end():closed.start()], text[closed.end():]


def extract_answer(prediction: Any, *, strip_think: bool = True, answer_tag: bool = False) -> str | None:
    """The part of an output the rules score (None stays None: no response).

    strip_think: drop a leading ``<think>…</think>`` block (an unclosed one leaves ""). answer_tag:
    keep only the text inside the last ``<Answer>…</Answer>`` block, case-insensitive ("" if none).
    """
    text = as_text(prediction)
    if text is not None and strip_think:
        text = split_reasoning(text)[1]
    if text is not None and answer_tag:
        blocks = _ANSWER_BLOCK.findall(text)
        text = blocks[-1] if blocks else ""
    return text


def is_word_char(char: str) -> bool:
    """Python's \\w plus combining marks (Devanagari/Tamil vowel signs are marks, not alnum)."""
    return char.isalnum() or char == "_" or unicodedata.category(char)[0] == "M"


def token_search(term: TokenTerm, text: str) -> bool:
    """Whether a term from token_pattern occurs in text as a whole token (no word character around it)."""
    pattern, left, right = term
    pos = 0
    while True:
        match = pattern.search(text, pos)
        if match is None:
            return False
        start, end = match.span()
        if not (left and start > 0 and is_word_char(text[start - 1])) and not (
            right and end < len(text) and is_word_char(text[end])
        ):
            return True
        pos = start + 1


def token_pattern(parts: Sequence[str]) -> TokenTerm:
    """A (possibly multi-word) term, any whitespace or none between its parts, plus which sides need a boundary."""
    body = r"\s*".join(re.escape(p) for p in parts)
    left, right = is_word_char(parts[0][0]), is_word_char(parts[-1][-1])
    # (?!\w) prunes most candidates inside the regex engine; marks are checked in Python.
    return re.compile(body + (r"(?!\w)" if right else "")), left, right
