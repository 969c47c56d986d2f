"""The documented per-language fixes of the haystack books (SPEC §4, "Data defects"; issue 10).

Every fix is deterministic, counted (places touched and characters removed), and listed in the
dataset card (``DataFix``). The Swahili book, a PDF extraction, has a module of its own
(``swahili.py``).
"""

from __future__ import annotations

import re

from .cleaner import TextCleaner
from .parse import BOOK_SOURCE, DataFix
from .swahili import clean_swahili

_CYRILLIC = re.compile(r"[\u0400-\u04FF]")
_LATIN = re.compile(r"[A-Za-z]")
# Latin letters that look like Cyrillic ones; inside a Cyrillic word they are the Cyrillic letter.
_HOMOGLYPHS = str.maketrans("iIeoacpxyEOACPXHKMTB", "іІеоасрхуЕОАСРХНКМТВ")


def clean_book(text: str, language: str) -> tuple[str, list[DataFix]]:
    """Apply the documented per-language book fixes; return the text with whitespace collapsed."""
    book = TextCleaner(text, language, BOOK_SOURCE)
    if language == "sw":
        clean_swahili(book)
    if language == "de":
        book.sub("de_page_markers", r"\{\d+\}", "", "removed page markers like {12} inside words")
    remove_notes(book)
    if language == "fi":
        book.sub("fi_table_pipes", r"[ \t]+\|", "", "removed the table pipes of the cast list ('KARIN LÖFBERG, |')")
    if language == "cs":
        book.sub("cs_heading_accents", r"^((?:DÍL[ \t]+)?\d+)´", r"\1",
                 "removed a stray '´' after chapter numbers ('DÍL 3´', '1´ PŘES UHRY')", re.M)
    if language == "uk":
        cyrillic_homoglyphs(book)
    return re.sub(r"\s+", " ", book.text).strip(), book.fixes


def remove_notes(book: TextCleaner) -> None:
    """Footnote and endnote texts, then the markers that point to them (zh, pl, da, no, sr)."""
    bodies = "removed footnote/endnote texts (zh endnote list, da note lines, no 'Fotnoter' blocks, sr [*: …])"
    if book.language in ("zh", "da"):  # '[1] 洋钱：指银元…' / '[1] Knoppen.' on lines of their own
        book.sub("footnote_bodies", r"^\* \* \*\n(?=\[\d+\] )", "", bodies, re.M)
        book.sub("footnote_bodies", r"^\[\d+\] [^\n]*(?:\n|$)", "", bodies, re.M)
    if book.language == "no":  # 'Fotnoter\n[7]\n<text>' up to the next chapter number (III)
        book.sub("footnote_bodies", r"^Fotnoter\n\[\d+\]\n(?:[^\n]*\n){1,8}?(?=[IVXLC]+\n)", "", bodies, re.M)
    markers = "removed footnote markers like [12] ([*], [**] in sr)"
    if book.language == "sr":
        book.sub("footnote_bodies", r"\[\*+:[^\]]*\]", "", bodies)
        book.sub("footnote_markers", r"\[\*+\]", "", markers)
    if book.language in ("zh", "pl", "da", "no"):
        book.sub("footnote_markers", r"\[\d+\]", "", markers)


def cyrillic_homoglyphs(book: TextCleaner) -> None:
    """uk: Latin ``i`` (and other look-alikes) typed for Cyrillic letters, inside Cyrillic words and
    as the conjunction і between Cyrillic words; Latin words and chapter numbers (``I``, ``XII``) stay."""
    in_words = 0

    def word(m: re.Match) -> str:
        nonlocal in_words
        w = m.group(0)
        if not (_CYRILLIC.search(w) and _LATIN.search(w)):
            return w
        fixed = w.translate(_HOMOGLYPHS)
        in_words += sum(a != b for a, b in zip(w, fixed))
        return fixed

    book.text = re.sub(r"[^\W\d_]+", word, book.text)
    book.record("uk_latin_letters", in_words, 0,
                "Latin letters inside Cyrillic words replaced by the Cyrillic ones (mostly i → і: 'менi' → 'мені')")

    text, standalone = book.text, 0

    def conjunction(m: re.Match) -> str:
        nonlocal standalone
        line_start = text.rfind("\n", 0, m.start()) + 1
        line_end = text.find("\n", m.end()) % (len(text) + 1)
        before = re.search(r"([^\W\d_]+)[^\w\n]*$", text[line_start:m.start()])
        after = re.match(r"[^\w\n]*([^\W\d_]+)", text[m.end():line_end])
        if (before and _CYRILLIC.match(before.group(1)[-1])) or (after and _CYRILLIC.match(after.group(1)[0])):
            standalone += 1
            return m.group(0).translate(_HOMOGLYPHS)
        return m.group(0)  # a chapter number alone on its line

    book.text = re.sub(r"(?<![^\W\d_])[iI](?![^\W\d_])", conjunction, text)
    book.record("uk_latin_conjunction", standalone, 0,
                "the conjunction і/І typed as Latin i/I next to Cyrillic words replaced by the Cyrillic letter")
