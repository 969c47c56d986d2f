"""The Swahili book's page furniture, glossary and letter-spaced words (issue 10), on the real file."""

from __future__ import annotations

import re
from collections import Counter

from builders.sources.books import clean_book
from builders.sources.swahili import SPACED_PHRASES


def raw_book(sources, lang: str) -> str:
    entry = sources._by_role[("book", lang)]
    return sources._paths[entry.path].read_bytes().decode("utf-8")


def chars(text: str) -> Counter:
    return Counter(re.sub(r"\s+", "", text))


def test_glossary_and_back_matter_are_cut(sources):
    raw, book = raw_book(sources, "sw"), sources.book_text("sw")
    glossary = raw[raw.index("KIELELEZO"):]
    assert len(re.findall(r"(?m)^\w[\w ]*:\s", glossary)) > 250  # word: definition lines
    for junk in ("KIELELEZO", "MSAMIATI", "abadan:", "zumaridi:", "ISBN", "Kumbukumbu"):
        assert junk not in book
    assert book.endswith("kutokea kwa amani siku moja.")
    fixes = {f.name: f for f in sources.fixes if f.language == "sw"}
    assert fixes["sw_glossary"].count == 1 and fixes["sw_glossary"].characters > 15_000
    assert fixes["sw_page_headers"].count == 73  # 82 in the file, 9 of them inside the glossary


def test_letter_spacing_joins_words_and_splits_known_phrases(sources):
    book = sources.book_text("sw")
    assert "m w a n z o" not in book and " mwanzo " in book
    assert "walikuwatayarikunipasahihi" not in book and "walikuwa tayari kunipa sahihi" in book
    assert "marakwamara" not in book.lower() and "mara kwa mara" in book.lower()
    assert not re.search(r"(?<!\S)N a(?!\S)", book) and "Na wanyonge" in book
    assert not re.search(r"(?<!\S)(?:[^\W\d_] )+[^\W\d_](?!\S)", book)  # no letter-spaced run is left
    assert all(phrase in book for phrase in SPACED_PHRASES)  # every table entry is used
    assert all(p.replace(" ", "") != p for p in SPACED_PHRASES)


def test_only_page_furniture_and_glossary_characters_are_lost(sources):
    raw = raw_book(sources, "sw")
    body = raw[: raw.index("KIELELEZO")]
    cut = raw[raw.index("KIELELEZO"):]
    headers = "Maisha Yangu na Baada ya Miaka Hamsini" * body.count("Maisha Yangu na Baada ya Miaka Hamsini")
    numbers = "".join(re.findall(r"(?m)^[ \t\f]*(\d{1,3})[ \t]*\r?$", body))
    assert chars(raw) - chars(sources.book_text("sw")) == chars(cut + headers + numbers)
    assert chars(sources.book_text("sw")) - chars(raw) == Counter()


def test_letter_spacing_on_hand_made_text():
    text = "Kichwa kilikuwa b a d o kuota.\nN a dunia ngumu.\nm a r a k w a m a r a , m w e m a .\nK. 1 2 3"
    assert clean_book(text, "en")[0] == re.sub(r"\s+", " ", text)
    from builders.sources.cleaner import TextCleaner
    from builders.sources.swahili import join_letter_spacing

    book = TextCleaner(text, "sw", "book")
    join_letter_spacing(book)
    assert book.text == "Kichwa kilikuwa bado kuota.\nNa dunia ngumu.\nmara kwa mara, mwema.\nK. 1 2 3"
    assert {(f.name, f.count) for f in book.fixes} == {("sw_letter_spacing", 3), ("sw_letter_spacing_phrases", 1)}
