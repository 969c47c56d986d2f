"""The per-language book fixes on the real upstream books (issue 10): the junk is gone, and the
characters each fix removed are exactly the junk's characters, found here by plain string search."""

from __future__ import annotations

import re
from collections import Counter

from builders.sources.books import clean_book


def raw_book(sources, lang: str) -> str:
    entry = sources._by_role[("book", lang)]
    return sources._paths[entry.path].read_bytes().decode("utf-8")


def chars(text: str) -> Counter:
    """The non-whitespace characters of a text (whitespace is collapsed anyway)."""
    return Counter(re.sub(r"\s+", "", text))


def lost(sources, lang: str) -> Counter:
    """Non-whitespace characters of the upstream file missing from the cleaned book."""
    return chars(raw_book(sources, lang)) - chars(sources.book_text(lang))


def fixes_of(sources, lang: str) -> dict:
    """The book fixes of a language (word-pool and template fixes left out)."""
    return {f.name: f for f in sources.fixes if f.language == lang and not f.name.startswith("cwe_")}


def between(text: str, start: str, end: str) -> str:
    i = text.index(start)
    return text[i:text.index(end, i)]


def test_zh_endnotes_and_markers_are_all_that_is_removed(sources):
    raw, book = raw_book(sources, "zh"), sources.book_text("zh")
    endnotes = between(raw, "* * *\n[1] 洋钱", "\n明天")
    markers = re.findall(r"\[\d+\]", raw.replace(endnotes, ""))
    assert "洋钱：指银元" not in book and "[1]" not in book and "* * *" not in book
    assert lost(sources, "zh") == chars(endnotes + "".join(markers))
    fixes = fixes_of(sources, "zh")
    assert fixes["footnote_markers"].count == len(markers) == 126
    assert fixes["footnote_markers"].characters == len("".join(markers))
    assert fixes["footnote_bodies"].count == 6  # five endnote lines and the '* * *' above them
    assert fixes["footnote_bodies"].characters == len(endnotes) + 1  # with its last line end


def test_da_footnote_lines_no_longer_spliced_into_prose(sources):
    raw, book = raw_book(sources, "da"), sources.book_text("da")
    notes = ["[1] Knoppen.", "[2] Courage."]
    assert all(n in raw for n in notes)
    assert "Knoppen" not in book and "Courage" not in book and "Knaabi," in book
    assert lost(sources, "da") == chars("".join(notes) + "[1][2]")


def test_no_fotnoter_blocks_and_markers(sources):
    raw, book = raw_book(sources, "no"), sources.book_text("no")
    blocks = [between(raw, f"Fotnoter\n[{n}]", nxt) for n, nxt in
              [(7, "\nIII\nDE SÅ"), (4, "\nV\nTIENDE"), (8, "\nII\nHUSABY"), (5, "\nVIII\nKRISTIN"), (6, "\nIII\nERLEND")]]
    assert "Fotnoter" not in book and not re.search(r"\[\d+\]", book)
    assert "Ordet er blitt kjød" not in book and "Salme 51" not in book
    assert lost(sources, "no") == chars("".join(blocks) + "[7][4][8][5][6]")
    fixes = fixes_of(sources, "no")
    assert fixes["footnote_bodies"].characters == sum(len(b) + 1 for b in blocks)  # each with its line end
    assert (fixes["footnote_bodies"].count, fixes["footnote_markers"].count) == (5, 5)


def test_sr_star_notes(sources):
    raw, book = raw_book(sources, "sr"), sources.book_text("sr")
    bodies = [raw[m.start(): raw.index("]", m.start()) + 1] for m in re.finditer(r"\[\*+:", raw)]
    assert len(bodies) == 3 and "[*" not in book and "**:" not in book
    assert lost(sources, "sr") == chars("".join(bodies) + "[*]" * 3 + "[**]")
    fixes = fixes_of(sources, "sr")
    assert fixes["footnote_bodies"].characters == len("".join(bodies))
    assert fixes["footnote_markers"].characters == len("[*]" * 3 + "[**]")


def test_pl_markers_fi_pipes_cs_heading_accents(sources):
    assert lost(sources, "pl") == chars("".join(re.findall(r"\[\d+\]", raw_book(sources, "pl"))))
    assert "|" not in sources.book_text("fi") and lost(sources, "fi") == Counter("|" * 5)
    assert sources.book_text("fi").startswith("SYLVI Näytelmä neljässä näytöksessä HENKILÖT: AKSEL VAHL")
    cs = sources.book_text("cs")
    assert cs.startswith("DÍL 3 SLAVNÝ VÝPRASK 1 PŘES UHRY Konečně") and "2 V BUDAPEŠTI" in cs
    assert lost(sources, "cs") == Counter("´" * 5)  # ´ closing ‚…´ quotations stay
    assert cs.count("´") == 6


def test_uk_latin_i_only_becomes_cyrillic(sources):
    raw, book = raw_book(sources, "uk"), sources.book_text("uk")
    gone, new = chars(raw) - chars(book), chars(book) - chars(raw)
    assert set(gone) <= set("iIe") and set(new) <= set("іІе")  # Latin → Cyrillic, nothing else
    assert sum(gone.values()) == sum(new.values()) == 2033 + 266
    assert not re.search(r"[\u0400-\u04FF][A-Za-z]|[A-Za-z][\u0400-\u04FF]", book)
    assert not re.search(r"(?<!\w)i(?!\w)", book)
    assert set(re.findall(r"[A-Za-z]+", book)) <= set(re.findall(r"\b[IVXL]+\b", raw))  # chapter numbers stay
    assert "менi" in raw and "мені" in book and "менi" not in book


def test_other_books_lose_nothing(sources):
    for lang in ("en", "fr", "ja", "ko", "hi", "ru", "vi", "st", "ta"):
        assert not lost(sources, lang) and not fixes_of(sources, lang), lang


def test_de_page_markers(sources):
    markers = re.findall(r"\{\d+\}", raw_book(sources, "de"))
    assert lost(sources, "de") == chars("".join(markers))
    assert fixes_of(sources, "de")["de_page_markers"].characters == len("".join(markers))
    assert len(markers) == 1074


def test_clean_book_is_deterministic_and_other_languages_keep_text():
    text, fixes = clean_book("A  {12}b\n\nc [3]", "en")
    assert text == "A {12}b c [3]" and not fixes
    assert clean_book("Кінь i вiз\nI\nI хата", "uk")[0] == "Кінь і віз I І хата"
