"""Quotations and brackets in the haystack books: which sentence boundaries lie outside all of them.

A needle is a sentence of its own; put between two sentences of someone's speech (``»Komm! [needle]
Geh!«``) or inside a parenthesis it reads as part of the quotation. Each book is scanned once for
its quotation marks and brackets, following the conventions its language's book actually uses
(measured on the 26 books: ``»…«`` in da/de/hu, ``«…»`` in fr/it/es/no/ru/fa, ``„…“`` in cs/ru,
``„…”`` in pl, ``»…»`` in fi/sv, ``“…”``/``‘…’`` in en/nl/pt/ta/hi/zh, ``「…」``/``『…』`` in ja, the ASCII
``"`` everywhere). Openers and closers are matched with a stack:

- a closer closes the nearest open mark of its kind and drops the marks opened after it (they were
  never closed); a closer with no open mark of its kind is a stray and ignored;
- a mark left open for more than ``MAX_SPAN_CHARS`` characters is a stray too (books carry
  unbalanced quotes, and with whitespace collapsed there are no paragraph ends to reset at), so one
  stray quote cannot make the rest of the book "inside a quotation";
- a symmetric mark (ASCII ``"``, the fi/sv ``»``) opens when it follows a space and precedes a
  non-space, closes when it follows a non-space and precedes a space or punctuation, and otherwise
  closes an open mark of its own kind or opens one (sv also uses ``’…’``); ``’`` between two letters,
  or before a letter where ``’`` is no opening mark, is an apostrophe (won’t, ’s avonds).

A boundary (the start of a sentence) is safe when no matched pair has its opener before the
boundary and its closer at or after it, the sentence after it does not open with a closing mark
(es marks a quotation continued in a new paragraph with ``»``) and the one before it does not end
with an opening mark.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

MAX_SPAN_CHARS = 2_500

_BRACKETS = (("(", ")"), ("[", "]"), ("{", "}"), ("（", "）"), ("【", "】"), ("〈", "〉"), ("《", "》"), ("〔", "〕"))
_CURLY = (("“", "”"), ("‘", "’"))
_LOW_NINE = (("„", "“”"), ("‚", "‘´"))
_GUILLEMETS_OUT = (("«", "»"), ("‹", "›"))  # « opens (fr, it, es, no, ru, fa, pl)
_GUILLEMETS_IN = (("»", "«"), ("›", "‹"))  # » opens (da, de, hu)
_CORNER = (("「", "」"), ("『", "』"), ("“", "”"))

# Per language: the (opener, closers) pairs its book uses besides brackets, and its symmetric marks.
_PAIRS: dict[str, tuple] = {
    "cs": _LOW_NINE, "da": _GUILLEMETS_IN, "de": _GUILLEMETS_IN + _LOW_NINE, "hu": _GUILLEMETS_IN,
    "es": _GUILLEMETS_OUT + _CURLY, "fa": _GUILLEMETS_OUT, "fr": _GUILLEMETS_OUT + _CURLY,
    "it": _GUILLEMETS_OUT + _CURLY, "no": _GUILLEMETS_OUT + _CURLY, "pl": (("„", "”"),) + _GUILLEMETS_OUT,
    "ru": _GUILLEMETS_OUT + _LOW_NINE, "fi": _CURLY, "sv": _CURLY, "ja": _CORNER, "zh": _CORNER + (("‘", "’"),),
    "uk": _GUILLEMETS_OUT + _LOW_NINE, "sr": _GUILLEMETS_OUT + _LOW_NINE,
}
_SYMMETRIC: dict[str, str] = {"fi": '"»', "sv": '"»’'}
_DEFAULT_PAIRS = _CURLY
_DEFAULT_SYMMETRIC = '"'


@dataclass(frozen=True)
class QuoteStyle:
    """The quotation marks and brackets of one language's book."""

    opens: dict[str, str] = field(default_factory=dict)  # opener -> its kind (the opener itself)
    closes: dict[str, frozenset[str]] = field(default_factory=dict)  # closer -> kinds it can close
    symmetric: str = _DEFAULT_SYMMETRIC

    @property
    def closing_marks(self) -> str:
        """Every character that only closes (symmetric marks excluded)."""
        return "".join(sorted(c for c in self.closes if c not in self.opens and c not in self.symmetric))

    @property
    def opening_marks(self) -> str:
        """Every character that only opens (symmetric marks excluded)."""
        return "".join(sorted(c for c in self.opens if c not in self.closes and c not in self.symmetric))


def quote_style(language: str) -> QuoteStyle:
    """The quotation conventions of a language's book (brackets are shared by all)."""
    opens: dict[str, str] = {}
    closes: dict[str, set[str]] = {}
    for opener, closers in _BRACKETS + _PAIRS.get(language, _DEFAULT_PAIRS):
        opens[opener] = opener
        for closer in closers:
            closes.setdefault(closer, set()).add(opener)
    return QuoteStyle(opens, {c: frozenset(k) for c, k in closes.items()}, _SYMMETRIC.get(language, _DEFAULT_SYMMETRIC))


def _is_space(ch: str) -> bool:
    return ch == "" or ch.isspace()


def _is_apostrophe(text: str, i: int, symmetric: bool) -> bool:
    """``’`` between two letters (won’t, l’homme), or before a letter where it cannot open (’s avonds)."""
    before = text[i - 1] if i else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    return after.isalnum() and (before.isalnum() or not symmetric)


def _symmetric_role(text: str, i: int, open_kinds: set[str]) -> str:
    """'open' or 'close' for a symmetric mark at text[i], from its neighbours."""
    before = text[i - 1] if i else ""
    after = text[i + 1] if i + 1 < len(text) else ""
    if (_is_space(before) or before in "([{—–-") and not _is_space(after):
        return "open"
    if not _is_space(before) and (_is_space(after) or not after.isalnum()):
        return "close"
    return "close" if text[i] in open_kinds else "open"


def quote_spans(language: str, text: str) -> list[tuple[int, int]]:
    """(opener offset, closer offset) of every matched quotation or bracket pair in ``text``."""
    style = quote_style(language)
    marks = re.compile("[" + re.escape("".join(set(style.opens) | set(style.closes) | set(style.symmetric))) + "]")
    stack: list[tuple[str, int]] = []  # (kind, offset) of open marks, innermost last
    spans: list[tuple[int, int]] = []
    for m in marks.finditer(text):
        i, ch = m.start(), m.group()
        while stack and i - stack[0][1] > MAX_SPAN_CHARS:  # strays expire
            stack.pop(0)
        if ch == "’" and _is_apostrophe(text, i, ch in style.symmetric):
            continue
        if ch in style.symmetric:
            kinds = {ch}
            role = _symmetric_role(text, i, {k for k, _ in stack})
        elif ch in style.closes and (ch not in style.opens or any(k in style.closes[ch] for k, _ in stack)):
            kinds, role = set(style.closes[ch]), "close"
        else:
            kinds, role = {style.opens[ch]}, "open"
        if role == "open":
            stack.append((next(iter(kinds)), i))
            continue
        for depth in range(len(stack) - 1, -1, -1):
            if stack[depth][0] in kinds:
                spans.append((stack[depth][1], i))
                del stack[depth:]
                break
    return sorted(spans)


def safe_boundaries(language: str, sentences: list[str], joiner: str) -> list[bool]:
    """safe[i]: the boundary before sentence i (i = 0 … n) lies outside every quotation and bracket.

    The book is scanned as the haystack shows it (sentences joined by ``joiner``); the boundary
    before sentence 0 and after the last one are always safe (the book starts and ends there).
    """
    starts, offset = [], 0
    for s in sentences:
        starts.append(offset)
        offset += len(s) + len(joiner)
    text = joiner.join(sentences)
    inside = [0] * (len(sentences) + 2)
    for opened, closed in quote_spans(language, text):
        first = bisect.bisect_right(starts, opened)  # first sentence starting after the opener
        last = bisect.bisect_right(starts, closed)  # sentences starting at or before the closer
        if first < last:
            inside[first] += 1
            inside[last] -= 1
    style = quote_style(language)
    safe, depth = [], 0
    for i in range(len(sentences) + 1):
        depth += inside[i]
        edge = 0 < i < len(sentences) and (_starts_with_closer(sentences[i], style)
                                           or sentences[i - 1][-1] in style.opening_marks)
        safe.append((depth == 0 and not edge) or i in (0, len(sentences)))
    return safe


def _starts_with_closer(sentence: str, style: QuoteStyle) -> bool:
    """A sentence opening with a closing mark continues a quotation (es ``»`` at a new paragraph)."""
    first = sentence[0]
    return first in style.closing_marks and not _is_apostrophe(sentence, 0, first in style.symmetric)
