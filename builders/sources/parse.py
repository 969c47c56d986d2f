"""Pure parsers of the pinned sources: NIAH/CWE templates, the noun table, CWE word pools.

Each is a function of (bytes, where) so that bad input can be tested in isolation; each returns
the data fixes it applied (with counts) so the dataset card can list every deviation.
"""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import dataclass

from ..base.errors import SourceError
from ..spec.languages import LANGUAGE_CODES

NIAH_KEYS: tuple[str, ...] = (
    "task", "needle_words", "needle_numbers", "question_single_numbers", "question_single_words",
    "question_multi_numbers", "question_multi_words", "please_list", "if_no_numbers", "if_no_words",
    "answer_prefix", "answer_words", "answer_numbers", "none",
)
_REQUIRED_PLACEHOLDERS: dict[str, tuple[str, ...]] = {
    "task": ("{context}",),
    "needle_words": ("{key}", "{value}"),
    "needle_numbers": ("{key}", "{value}"),
    "question_single_numbers": ("{query1}",),
    "question_single_words": ("{query1}",),
    "question_multi_numbers": ("{query1}", "{query2}"),
    "question_multi_words": ("{query1}", "{query2}"),
}
_CLOSING_TAG = re.compile(r"</[^<>]+>\s*$")
POS_KEEP = frozenset({"noun", "adjective", "verb"})
# Chinese tag names found in the Chinese dictionary.
_POS_ALIASES = {"名词": "noun", "动词": "verb", "形容词": "adjective", "副词": "adverb", "其他": "other"}


BOOK_SOURCE = "book"  # the manifest's kind of the books, and the ``source`` of their fixes


@dataclass(frozen=True)
class DataFix:
    """One deterministic correction of upstream data, with how many places it touched and the role of the source
    file it corrected (``source``: ``book``, ``dictionary``, ``cwe_prompt``, the manifest's kinds)."""

    name: str
    language: str
    source: str
    count: int
    description: str
    characters: int = 0  # characters removed from the source text (layout whitespace included)


@dataclass(frozen=True)
class NiahTemplate:
    """The 14 translated NIAH instruction pieces of one language."""

    language: str
    pieces: dict

    def __getitem__(self, key: str) -> str:
        return self.pieces[key]

    @property
    def none_word(self) -> str:
        """The word that answers "none" in this language's instructions."""
        return self.pieces["none"].strip()

    @property
    def closing_tag(self) -> str:
        """The question's closing tag (and trailing newlines) that upstream stores in if_no_numbers."""
        return _CLOSING_TAG.search(self.pieces["if_no_numbers"]).group(0)


@dataclass(frozen=True)
class CweTemplate:
    """The translated CWE prompt of one language, with exactly one ``{context}``."""

    language: str
    text: str

    @property
    def frame(self) -> tuple[str, str]:
        """The prompt before and after ``{context}`` (split, never str.format)."""
        head, tail = self.text.split("{context}")
        return head, tail

    def render(self, context: str) -> tuple[str, tuple[int, int]]:
        """The prompt with the list inserted, and the list's [start, end) span (no str.format)."""
        head, tail = self.frame
        return head + context + tail, (len(head), len(head) + len(context))


@dataclass(frozen=True)
class NounTable:
    """The 100 translated nouns: ``rows[i][lang]`` is noun i in language lang (stripped)."""

    languages: tuple[str, ...]
    rows: tuple[dict, ...]

    def noun(self, index: int, language: str) -> str:
        """Noun ``index`` (0-based row of the table) in ``language``."""
        return self.rows[index][language]


@dataclass(frozen=True)
class WordPool:
    """CWE candidate words of one language, de-duplicated and sorted."""

    language: str
    words: tuple[str, ...]


def decode_utf8(data: bytes, where: str) -> str:
    """UTF-8 text of a source file, or a SourceError naming it."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise SourceError(f"{where}: not valid UTF-8 ({exc})") from None


def parse_niah_template(data: bytes, where: str, language: str) -> NiahTemplate:
    """Parse ``prompt/<lang>/niah.txt`` (JSON with exactly the 14 keys and their placeholders)."""
    try:
        doc = json.loads(decode_utf8(data, where))
    except json.JSONDecodeError as exc:
        raise SourceError(f"{where}: not valid JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise SourceError(f"{where}: expected a JSON object with keys {', '.join(NIAH_KEYS)}")
    absent = [k for k in NIAH_KEYS if k not in doc]
    extra = sorted(set(doc) - set(NIAH_KEYS))
    if absent or extra:
        raise SourceError(f"{where}: missing keys {absent} / unexpected keys {extra}; expected exactly {list(NIAH_KEYS)}")
    for key, value in doc.items():
        if not isinstance(value, str) or not value.strip():
            raise SourceError(f"{where}: key {key!r} must be a non-empty string")
    for key, needed in _REQUIRED_PLACEHOLDERS.items():
        for ph in needed:
            n = doc[key].count(ph)
            if n != 1:
                raise SourceError(f"{where}: key {key!r} must contain {ph} exactly once (found {n})")
    if not _CLOSING_TAG.search(doc["if_no_numbers"]):
        raise SourceError(f"{where}: key 'if_no_numbers' must end with the question's closing tag like </Question>")
    return NiahTemplate(language, dict(doc))


def parse_cwe_template(data: bytes, where: str, language: str) -> tuple[CweTemplate, list[DataFix]]:
    """Parse ``prompt/<lang>/cwe.txt``; removes vi's leftover ``\\n{context}\\n`` line (documented fix)."""
    text = decode_utf8(data, where)
    fixes = []
    # vi: the first line carries a leftover of an older template with a literal "\n{context}\n"
    # (backslash-n as text), which would print the list twice; cut the line at that fragment.
    leftover = re.compile(r"\\n\{context\}\\n[^\n]*")
    if text.count("{context}") > 1 and leftover.search(text):
        text, n = leftover.subn("", text)
        fixes.append(DataFix("cwe_template_duplicate_context", language, "cwe_prompt", n,
                             "removed a leftover line fragment with a literal '\\n{context}\\n' that would print the word list twice"))
    n = text.count("{context}")
    if n != 1:
        raise SourceError(f"{where}: must contain {{context}} exactly once (found {n})")
    return CweTemplate(language, text), fixes


def parse_noun_table(data: bytes, where: str, languages: tuple[str, ...] = LANGUAGE_CODES) -> NounTable:
    """Parse the tab-separated 100-noun table (columns ``en``, ``definition``, then 25 language codes)."""
    text = decode_utf8(data, where)
    reader = csv.reader(io.StringIO(text), delimiter="\t")
    try:
        header = [h.strip() for h in next(reader)]
    except StopIteration:
        raise SourceError(f"{where}: empty file") from None
    known = set(languages) | {"definition"}
    unknown = [h for h in header if h not in known]
    if unknown:
        raise SourceError(f"{where}: unknown language column(s) {unknown}; valid: {', '.join(sorted(known))}")
    absent = [lang for lang in languages if lang not in header]
    if absent:
        raise SourceError(f"{where}: missing language column(s) {absent}")
    if len(set(header)) != len(header):
        raise SourceError(f"{where}: duplicate columns in header {header}")
    rows = []
    for lineno, fields in enumerate(reader, start=2):
        if not any(f.strip() for f in fields):
            continue
        if len(fields) != len(header):
            raise SourceError(f"{where}: line {lineno} has {len(fields)} fields, expected {len(header)}")
        row = {h: f.strip() for h, f in zip(header, fields) if h in languages}
        empty = [lang for lang, v in row.items() if not v]
        if empty:
            raise SourceError(f"{where}: line {lineno} has no noun for {empty}")
        rows.append(row)
    if len(rows) != 100:
        raise SourceError(f"{where}: expected 100 nouns, found {len(rows)}")
    return NounTable(tuple(languages), tuple(rows))


def _map_pos(tag: str) -> set[str]:
    return {_POS_ALIASES.get(t.strip(), t.strip()) for t in tag.split(",") if t.strip()}


def parse_word_pool(data: bytes, where: str, language: str) -> tuple[WordPool, list[DataFix]]:
    """Parse ``dictionaries/<Language>/<Language>.csv`` (columns ``words,pos``) into a CWE pool."""
    text = decode_utf8(data, where)
    reader = csv.DictReader(io.StringIO(text))
    if reader.fieldnames is None or [f.strip() for f in reader.fieldnames] != ["words", "pos"]:
        raise SourceError(f"{where}: expected header 'words,pos', found {reader.fieldnames}")
    words: set[str] = set()
    multi_tag = homographs = 0
    for row in reader:
        word = (row.get("words") or "").strip()
        tags = _map_pos(row.get("pos") or "")
        if not word or not (tags & POS_KEEP):
            continue
        if len(tags) > 1 or (row.get("pos") or "").strip() not in POS_KEEP:
            multi_tag += 1
        if language == "ko" and re.search(r"\d+$", word) and not re.fullmatch(r"\d+", word):
            word = re.sub(r"\d+$", "", word)  # homograph numbers (가격03): keep the word
            homographs += 1
        if re.search(r"\d", word):
            continue
        words.add(word)
    if not words:
        raise SourceError(f"{where}: the word pool is empty (no noun/adjective/verb entries)")
    fixes = []
    if multi_tag:
        fixes.append(DataFix("cwe_pos_tag_mapping", language, "dictionary", multi_tag,
                             "kept entries with messy POS tags (e.g. 'verb,noun', '形容词') that include noun/adjective/verb; upstream kept only exact tags"))
    if homographs:
        fixes.append(DataFix("cwe_korean_homograph_digits", language, "dictionary", homographs,
                             "stripped homograph numbers (가격03 → 가격) instead of dropping the word"))
    return WordPool(language, tuple(sorted(words))), fixes
