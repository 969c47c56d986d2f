"""``RulerSources``: RULER's inputs, each fetched, verified and parsed on first use, and kept.

Apart from ``Sources`` (ONERULER's inputs, all fetched when loaded): a RULER build needs only the
inputs of its tasks, so each role is fetched the first time it is asked for, from the mirror and into
the cache the object was made with. A role whose file is missing fails then, with one line naming
the file and how to get it (``MissingSource``); nothing fetched before is lost, and the other roles
still work. Every value is a pure parsed value that records the pinned files it came from.
"""

from __future__ import annotations

import importlib.resources
import os
from dataclasses import replace
from functools import cached_property
from pathlib import Path, PurePosixPath

from ...base.errors import IntegrityError, SourceError
from ...base.files import sha256_bytes
from ..fetch import fetch_sources
from ..manifest import SourceFile, load_packaged_wordlists
from .essays import EssayHaystack, parse_essays
from .pins import Fetched, entries_of_role, ruler_manifest
from .punkt import sentence_tokenizer
from .qa import QaDataset, parse_hotpotqa, parse_squad, parse_xquad
from .tasks import RulerTasks, parse_ruler_tasks
from .texts import RulerTexts, parse_ruler_texts
from .words import NiahKeys, WonderwordsLists, WordList, cwe_words, parse_english_words, parse_wonderwords


def verified(entry: SourceFile, path: Path) -> Fetched:
    """A cached blob's bytes, re-checked against the entry's pin or one of its alternates, with the entry of the
    bytes actually read (an alternate's pin and URLs in place of the primary's, so parsed values record them)."""
    data = path.read_bytes()
    digest = sha256_bytes(data)
    if not entry.accepts(digest, len(data)):
        raise IntegrityError(f"{entry.path}: cached copy no longer matches its sha256; run `oneruler fetch "
                             "--sources ruler` again")
    if digest == entry.sha256:
        return entry, data
    alternate = next(a for a in entry.alternates if a.sha256 == digest)
    facts = {**entry.facts, "alternate_of": entry.sha256, "digest_source": alternate.digest_source}
    return replace(entry, sha256=digest, size=len(data), urls=alternate.urls, alternates=(), facts=facts), data


def packaged_wonderwords() -> list[Fetched]:
    """wonderwords' three lists from the installed package, verified against the pinned 2.2.0 digests."""
    assets = importlib.resources.files("wonderwords") / "assets"
    out = []
    for entry in load_packaged_wordlists():
        data = (assets / PurePosixPath(entry.path).name).read_bytes()
        if not entry.accepts(sha256_bytes(data), len(data)):
            raise IntegrityError(f"{entry.path}: differs from the pinned {entry.facts.get('package')} list; "
                                 f"install that version (pip install {entry.facts.get('package')})")
        out.append((entry, data))
    return out


class RulerSources:
    """RULER's inputs, each parsed on first use and kept as long as this object:

    ``tasks`` (templates, the 13 task settings, metric names), ``texts`` (needle, noise lines, QA's document
    format), ``essays`` (the haystack text and words),
    ``wonderwords`` (RULER's reading of the three lists), ``niah_keys`` (the adjective-noun keys),
    ``cwe_words`` (sorted, not shuffled), ``english_words`` (``english_words.json``'s values), ``squad``,
    ``hotpotqa``, ``xquad(language)`` (RULER's QA structures) and ``sentence_tokenizer`` (NLTK's English
    Punkt). ``entries`` defaults to the committed manifests (``raw/ruler/*.json``).
    """

    def __init__(self, mirror: str | os.PathLike | None = None, cache_dir: str | os.PathLike | None = None,
                 progress: bool = False, entries: list[SourceFile] | None = None):
        self._mirror, self._cache_dir, self._progress = mirror, cache_dir, progress
        self.entries: list[SourceFile] = list(ruler_manifest() if entries is None else entries)
        self._xquad: dict[str, QaDataset] = {}

    def fetched(self, role: str, language: str | None = None) -> list[Fetched]:
        """The pinned files of one role (and language), fetched into the cache if needed, with their bytes (and the
        entry of the bytes read: an alternate's pin when the alternate was what could be fetched)."""
        entries = entries_of_role(self.entries, role, language)
        report = fetch_sources(entries, mirror=self._mirror, cache_dir=self._cache_dir, progress=self._progress)
        return [verified(entry, report.paths[entry.path]) for entry in entries]

    def _one(self, role: str, language: str | None = None) -> Fetched:
        return self.fetched(role, language)[0]

    @cached_property
    def tasks(self) -> RulerTasks:
        """RULER's templates, answer prefixes, tokens to generate, task settings and metric names."""
        return parse_ruler_tasks(self._one("ruler_templates"), self._one("ruler_task_settings"),
                                 self._one("ruler_metric"), self.texts)

    @cached_property
    def texts(self) -> RulerTexts:
        """RULER's needle format, noise lines and QA's document format, read from its generator scripts."""
        return parse_ruler_texts(self.fetched("ruler_generators"))

    @cached_property
    def essays(self) -> EssayHaystack:
        """The essay haystack: the 49 essays' text in sorted file order, and RULER's words of it."""
        return parse_essays(self.fetched("essay"))

    @cached_property
    def wonderwords(self) -> WonderwordsLists:
        """wonderwords 2.2.0's nouns, adjectives and verbs as RULER reads them."""
        return parse_wonderwords(packaged_wonderwords())

    @cached_property
    def niah_keys(self) -> NiahKeys:
        """RULER's NIAH key words (``sorted(set(adj-noun))``), built on demand (computed once, ~7 s)."""
        return NiahKeys(self.wonderwords)

    @cached_property
    def cwe_words(self) -> WordList:
        """RULER's CWE words before its shuffle: ``sorted(set(nouns + adjs + verbs))``."""
        return cwe_words(self.wonderwords)

    @cached_property
    def english_words(self) -> WordList:
        """``english_words.json``'s values in file order (RULER's CWE words past wonderwords')."""
        return parse_english_words(*self._one("ruler_english_words"))

    @cached_property
    def squad(self) -> QaDataset:
        """SQuAD v2.0 dev in RULER's structures (impossible questions skipped)."""
        return parse_squad(self._one("squad"))

    @cached_property
    def hotpotqa(self) -> QaDataset:
        """HotpotQA dev distractor in RULER's structures."""
        return parse_hotpotqa(self._one("hotpotqa"))

    @property
    def xquad_languages(self) -> tuple[str, ...]:
        """The languages XQuAD has (the pinned files')."""
        return tuple(e.language for e in self.entries if e.role == "xquad")

    def xquad(self, language: str) -> QaDataset:
        """One XQuAD language in RULER's structures (an unknown language is an error listing XQuAD's)."""
        if language not in self.xquad_languages:
            raise SourceError(f"XQuAD has no language {language!r}; it has {', '.join(self.xquad_languages)}")
        if language not in self._xquad:
            self._xquad[language] = parse_xquad(self._one("xquad", language))
        return self._xquad[language]

    @cached_property
    def sentence_tokenizer(self):
        """NLTK's ``PunktSentenceTokenizer`` with the English ``punkt_tab`` parameters (``nltk.sent_tokenize``'s)."""
        return sentence_tokenizer(*self._one("punkt"))

    @cached_property
    def file_hashes(self) -> dict[str, str]:
        """Upstream path → pinned sha256 of every input RULER's tasks may read (the primary pins; a parsed value's
        ``files`` name the bytes it was actually read from)."""
        hashes = {e.path: e.sha256 for e in self.entries}
        hashes.update({e.path: e.sha256 for e in load_packaged_wordlists()})
        return dict(sorted(hashes.items()))
