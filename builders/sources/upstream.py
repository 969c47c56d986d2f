"""Upstream's own rules, re-applied to the pinned sources so the card can compare (issue 10).

``upstream_word_pool`` is the CWE pool ``OneRuler/synthetic/common_words_extraction.py`` builds from
the same dictionary: ``pandas.read_csv(dtype=str)`` (so pandas' default missing-value strings such
as ``NA`` or ``null`` drop a row), rows without a word dropped, words containing a digit dropped,
only rows whose tag is exactly ``noun``, ``adjective`` or ``verb`` kept, then de-duplicated. English
uses wonderwords' three lists as read by ``_get_words_from_text_file`` (lines right-stripped, no
digit filter). The standard library ``csv`` module reads the file; a test checks the result
against pandas running upstream's code.
"""

from __future__ import annotations

import csv
import io
import re

from .parse import POS_KEEP, decode_utf8

# pandas.read_csv's default na_values (pandas 1.x–3.x): such a cell is NaN, not a string.
PANDAS_NA_STRINGS = frozenset({
    "", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A",
    "NA", "NULL", "NaN", "None", "n/a", "nan", "null",
})


def upstream_word_pool(data: bytes, where: str) -> tuple[str, ...]:
    """The sorted CWE pool upstream's code derives from a ``words,pos`` dictionary file."""
    reader = csv.reader(io.StringIO(decode_utf8(data, where)))
    header = next(reader, [])
    col = {name: i for i, name in enumerate(header)}
    words = set()
    for row in reader:
        if not row:
            continue  # pandas skips blank lines
        word = row[col["words"]] if col["words"] < len(row) else ""
        pos = row[col["pos"]] if col["pos"] < len(row) else ""
        if word in PANDAS_NA_STRINGS or re.search(r"\d", word) or pos not in POS_KEEP:
            continue
        words.add(word)
    return tuple(sorted(words))


def upstream_english_pool(lists: list[str]) -> tuple[str, ...]:
    """wonderwords' noun, adjective and verb files as upstream reads them (right-stripped lines)."""
    return tuple(sorted({line.rstrip() for text in lists for line in text.splitlines(keepends=True)}))
