"""The documented per-language fixes of the haystack books (SPEC §4, "Data defects").

Every fix is deterministic, counted, and listed in the dataset card (``DataFix``).
"""

from __future__ import annotations

import re

from ..base.errors import SourceError
from .parse import DataFix


def clean_book(text: str, language: str) -> tuple[str, list[DataFix]]:
    """Apply the documented per-language book fixes; return the text with whitespace collapsed."""
    fixes: list[DataFix] = []

    def fix(name: str, pattern: str, repl, description: str, flags: int = 0) -> None:
        nonlocal text
        text, n = re.subn(pattern, repl, text, flags=flags)
        if n:
            fixes.append(DataFix(name, language, n, description))

    if language == "sw":
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        fix("sw_form_feeds", r"\f", "\n", "replaced PDF form feeds by line breaks")
        end = text.find("\nKumbukumbu\n")
        if end < 0:
            raise SourceError("sw book: back-matter anchor 'Kumbukumbu' not found; the pinned file changed?")
        fixes.append(DataFix("sw_back_matter", language, len(text) - end,
                             "cut the library catalogue entry, back-cover blurb, ISBN and publisher address at the end (characters removed)"))
        text = text[:end]
        fix("sw_page_headers", r"^[ \t]*Maisha Yangu na Baada ya Miaka Hamsini[ \t]*$", "",
            "removed repeated running page headers", re.M)
        fix("sw_page_numbers", r"^[ \t]*\d{1,3}[ \t]*$", "", "removed page-number lines", re.M)
        fix("sw_letter_spacing", r"(?<!\S)(?:\w ){2,}\w(?!\S)", lambda m: m.group(0).replace(" ", ""),
            "joined letter-spaced words ('m w a n z o' → 'mwanzo'; runs of 3+ single letters)")
    if language == "de":
        fix("de_page_markers", r"\{\d+\}", "", "removed page markers like {12} inside words")
    if language in ("zh", "pl", "da", "sr"):
        fix("footnote_markers", r"\[\d+\]", "", "removed footnote markers like [12]")
    return re.sub(r"\s+", " ", text).strip(), fixes
