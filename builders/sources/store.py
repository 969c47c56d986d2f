"""All pinned sources, fetched and verified, parsed lazily per language and role (``Sources``, ``ParsedSource``)."""

from __future__ import annotations

import importlib.resources
import re
from functools import cached_property
from pathlib import Path
from typing import Callable, Generic, TypeVar

from ..base.errors import IntegrityError, SourceError
from ..base.files import sha256_bytes
from ..spec.languages import LANGUAGE_CODES, LANGUAGES
from .books import clean_book
from .fetch import fetch_sources
from .manifest import WONDERWORDS_VERSION, SourceFile, load_manifest, load_packaged_wordlists
from .ruler.store import RulerSources
from .parse import (
    BOOK_SOURCE,
    CweTemplate,
    DataFix,
    NiahTemplate,
    NounTable,
    WordPool,
    decode_utf8,
    parse_cwe_template,
    parse_niah_template,
    parse_noun_table,
    parse_word_pool,
)
from .upstream import upstream_english_pool, upstream_word_pool


T = TypeVar("T")


class ParsedSource(Generic[T]):
    """One role of source (books, templates, word pools) parsed per language on first use, and kept: its value and the data fixes applied."""

    def __init__(self, load: Callable[[str], tuple[T, list[DataFix]]]):
        self._load = load
        self._parsed: dict[str, tuple[T, list[DataFix]]] = {}

    def parsed(self, language: str) -> tuple[T, list[DataFix]]:
        """(value, data fixes) of a language (an unknown language is an error listing the valid ones)."""
        if language not in self._parsed:
            if language not in LANGUAGES:
                raise SourceError(f"unknown language {language!r}; valid: {', '.join(LANGUAGE_CODES)}")
            self._parsed[language] = self._load(language)
        return self._parsed[language]

    def value(self, language: str) -> T:
        """The parsed value of a language."""
        return self.parsed(language)[0]

    def fixes(self, language: str) -> list[DataFix]:
        """The data fixes applied while parsing a language's source."""
        return self.parsed(language)[1]


class Sources:
    """All pinned sources, fetched and verified; each role parsed lazily per language and kept (``ParsedSource``):
    ``books`` (cleaned, whitespace collapsed), ``niah``/``cwe`` (templates), ``pools`` (CWE words here) and
    ``upstream_pools`` (under upstream's rules); ``ruler``: RULER's inputs (``RulerSources``, each fetched from the
    same mirror into the same cache when first read; default: ``ONERULER_MIRROR`` and the default cache)."""

    def __init__(self, paths: dict[str, Path], entries: list[SourceFile], ruler: RulerSources | None = None):
        self.ruler = ruler if ruler is not None else RulerSources()
        self._paths = paths
        self._entries = entries
        self._by_role = {(e.role, e.language): e for e in entries}
        self.books: ParsedSource[str] = ParsedSource(self._load_book)
        self.niah: ParsedSource[NiahTemplate] = ParsedSource(self._load_niah)
        self.cwe: ParsedSource[CweTemplate] = ParsedSource(self._load_cwe)
        self.pools: ParsedSource[WordPool] = ParsedSource(self._load_pool)
        self.upstream_pools: ParsedSource[tuple[str, ...]] = ParsedSource(self._load_upstream_pool)

    def _bytes(self, role: str, language: str) -> tuple[bytes, str]:
        entry = self._by_role.get((role, language))
        if entry is None:
            raise SourceError(f"no {role} source for language {language!r}")
        data = self._paths[entry.path].read_bytes()
        if sha256_bytes(data) != entry.sha256:
            raise IntegrityError(f"{entry.path}: cached copy no longer matches its sha256; run `oneruler fetch` again")
        return data, entry.path

    @cached_property
    def file_hashes(self) -> dict[str, str]:
        """Upstream path (or package asset) → sha256 of every source the benchmark reads."""
        hashes = {e.path: e.sha256 for e in self._entries}
        hashes.update({e.path: e.sha256 for e in load_packaged_wordlists()})
        return dict(sorted(hashes.items()))

    def _load_book(self, language: str) -> tuple[str, list[DataFix]]:
        return clean_book(self.released_book_text(language), language)

    def _load_niah(self, language: str) -> tuple[NiahTemplate, list[DataFix]]:
        data, where = self._bytes("niah_prompt", language)
        return parse_niah_template(data, where, language), []

    def _load_cwe(self, language: str) -> tuple[CweTemplate, list[DataFix]]:
        data, where = self._bytes("cwe_prompt", language)
        return parse_cwe_template(data, where, language)

    def _load_pool(self, language: str) -> tuple[WordPool, list[DataFix]]:
        if language == "en":
            return english_pool(), []
        data, where = self._bytes("dictionary", language)
        return parse_word_pool(data, where, language)

    def _load_upstream_pool(self, language: str) -> tuple[tuple[str, ...], list[DataFix]]:
        if language == "en":
            return upstream_english_pool(english_lists()), []
        data, where = self._bytes("dictionary", language)
        return upstream_word_pool(data, where), []

    def released_book_text(self, language: str) -> str:
        """The book exactly as upstream released it (before any fix or whitespace collapse)."""
        data, where = self._bytes(BOOK_SOURCE, language)
        return decode_utf8(data, where)

    def book_text(self, language: str) -> str:
        """The cleaned book of a language with whitespace collapsed to single spaces."""
        return self.books.value(language)

    def niah_template(self, language: str) -> NiahTemplate:
        """The 14 NIAH instruction pieces of a language."""
        return self.niah.value(language)

    def cwe_template(self, language: str) -> CweTemplate:
        """The CWE prompt of a language (vi's duplicated ``{context}`` removed)."""
        return self.cwe.value(language)

    def word_pool(self, language: str) -> WordPool:
        """The CWE candidate words of a language."""
        return self.pools.value(language)

    def upstream_word_pool(self, language: str) -> tuple[str, ...]:
        """The CWE pool upstream's code builds for a language (for the card's comparison)."""
        return self.upstream_pools.value(language)

    @cached_property
    def nouns(self) -> NounTable:
        """The 100 translated nouns (NIAH keys)."""
        data, where = self._bytes("noun_table", "*")
        return parse_noun_table(data, where)

    @property
    def fixes(self) -> list[DataFix]:
        """Every data fix applied across all 26 languages (loads everything once)."""
        out: list[DataFix] = []
        for lang in LANGUAGE_CODES:
            for parsed in (self.books, self.cwe, self.pools):
                out += parsed.fixes(lang)
        return out


def english_lists() -> list[str]:
    """wonderwords' noun, adjective and verb lists as text (the pinned version, verified by sha256)."""
    assets = importlib.resources.files("wonderwords") / "assets"
    texts = []
    for entry in load_packaged_wordlists():
        name = entry.path.rsplit("/", 1)[-1]
        data = (assets / name).read_bytes()
        if sha256_bytes(data) != entry.sha256:
            raise IntegrityError(
                f"wonderwords {name}: sha256 differs from the pinned wonderwords=={WONDERWORDS_VERSION} list; "
                f"install that version (pip install wonderwords=={WONDERWORDS_VERSION})"
            )
        texts.append(data.decode("utf-8"))
    return texts


def english_pool() -> WordPool:
    """wonderwords' noun, adjective and verb lists, stripped, without words containing digits."""
    words = {w.strip() for text in english_lists() for w in text.splitlines() if w.strip()}
    words = {w for w in words if not re.search(r"\d", w)}
    return WordPool("en", tuple(sorted(words)))


def load_sources(mirror=None, cache_dir=None, progress: bool = False) -> Sources:
    """Fetch (or reuse cached) pinned sources, verify them, and return a lazy Sources view (RULER's inputs are
    fetched from the same mirror and into the same cache when a RULER config first reads them)."""
    entries = load_manifest()
    report = fetch_sources(entries, mirror=mirror, cache_dir=cache_dir, progress=progress)
    return Sources(report.paths, entries, RulerSources(mirror, cache_dir, progress))
