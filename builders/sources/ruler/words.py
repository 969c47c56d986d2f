"""RULER's word sources: wonderwords' lists as RULER reads them, NIAH's adjective-noun keys, CWE's words.

RULER reads wonderwords' ``nounlist.txt``, ``adjectivelist.txt`` and ``verblist.txt`` with
``wonderwords.random_word._get_words_from_text_file``: the file's lines in text mode, each
right-stripped, in file order (the project pins wonderwords 2.2.0's lists by sha256:
``load_packaged_wordlists``). From them:

- NIAH keys (``niah.py``): ``sorted(set(f"{adj}-{noun}" for adj in adjs for noun in nouns))``,
  6,175,260 strings. ``NiahKeys`` holds that list's order as two small index arrays and builds the
  i-th key on demand, instead of RULER's list of strings (about 700 MB);
- CWE words (``common_words_extraction.py``): ``sorted(set(nouns + adjs + verbs))``. RULER then
  shuffles the list with ``random.Random(seed).shuffle``; the generator shuffles the sorted list with
  the project's own stable RNG instead, so the shuffle is not done here;
- ``english_words.json`` (RULER's CWE words past wonderwords' when a list needs more): the JSON
  object's values in file order (``list(json.load(f).values())``).
"""

from __future__ import annotations

import json
from array import array
from dataclasses import dataclass
from pathlib import PurePosixPath

import numpy as np

from ...base.errors import SourceError
from ..manifest import SourceFile
from ..parse import decode_utf8
from .essays import text_mode
from .pins import Fetched

WONDERWORDS_FILES = ("nounlist.txt", "adjectivelist.txt", "verblist.txt")


@dataclass(frozen=True)
class WonderwordsLists:
    """wonderwords' three lists as RULER reads them (right-stripped lines, file order) and their files."""

    nouns: tuple[str, ...]
    adjectives: tuple[str, ...]
    verbs: tuple[str, ...]
    files: tuple[SourceFile, ...]


@dataclass(frozen=True)
class WordList:
    """A list of words in a stated order and the pinned files it was read from."""

    words: tuple[str, ...]
    files: tuple[SourceFile, ...]


def text_file_lines(data: bytes, where: str) -> tuple[str, ...]:
    """``_get_words_from_text_file``: ``readlines()`` of the file in text mode, each line ``rstrip()``-ed."""
    pieces = text_mode(data, where).split("\n")
    if pieces[-1] == "":
        pieces.pop()
    return tuple(line.rstrip() for line in pieces)


def parse_wonderwords(files: list[Fetched]) -> WonderwordsLists:
    """The three lists from their files, matched by name (``nounlist.txt``, ``adjectivelist.txt``, ``verblist.txt``)."""
    by_name = {PurePosixPath(entry.path).name: (entry, data) for entry, data in files}
    if sorted(by_name) != sorted(WONDERWORDS_FILES):
        raise SourceError(f"wonderwords lists: got {sorted(by_name)}; expected {list(WONDERWORDS_FILES)}")
    nouns, adjs, verbs = (text_file_lines(by_name[n][1], by_name[n][0].path) for n in WONDERWORDS_FILES)
    return WonderwordsLists(nouns, adjs, verbs, tuple(by_name[n][0] for n in WONDERWORDS_FILES))


def cwe_words(lists: WonderwordsLists) -> WordList:
    """RULER's CWE word list before its shuffle: ``sorted(set(nouns + adjs + verbs))``."""
    return WordList(tuple(sorted(set(lists.nouns + lists.adjectives + lists.verbs))), lists.files)


def parse_english_words(entry: SourceFile, data: bytes) -> WordList:
    """``english_words.json``'s values in file order (a JSON object of strings; anything else is refused)."""
    try:
        doc = json.loads(decode_utf8(data, entry.path))
    except json.JSONDecodeError as exc:
        raise SourceError(f"{entry.path}: not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or not doc:
        raise SourceError(f"{entry.path}: expected a non-empty JSON object of words")
    words = tuple(doc.values())
    bad = next((w for w in words if not isinstance(w, str)), None)
    if bad is not None:
        raise SourceError(f"{entry.path}: every value must be a word (a string); found {bad!r}")
    return WordList(words, (entry,))


class NiahKeys:
    """RULER's NIAH key words, ``sorted(set(f"{adj}-{noun}" ...))``, as a sequence built on demand.

    The order is computed once, one first character of the key at a time (every key starting with ``c`` sorts
    after every key starting with a lower character, so each slice is sorted on its own), and kept as two index
    arrays: ``keys[i]`` (an int) is ``f"{adjectives[a[i]]}-{nouns[n[i]]}"``.
    """

    def __init__(self, lists: WonderwordsLists):
        self.adjectives, self.nouns, self.files = lists.adjectives, lists.nouns, lists.files
        width = len(self.nouns)
        codes = array("q")  # adjective index * len(nouns) + noun index, in key order
        for first in sorted({(adj + "-")[0] for adj in self.adjectives}):
            keys: dict[str, int] = {}
            for a, adj in enumerate(self.adjectives):
                if (adj + "-")[0] == first:
                    for n, noun in enumerate(self.nouns):
                        keys.setdefault(f"{adj}-{noun}", a * width + n)
            codes.extend(keys[key] for key in sorted(keys))
        adj, noun = np.divmod(np.frombuffer(codes, dtype=np.int64), width)
        self._adj, self._noun = adj.astype(np.int32), noun.astype(np.int32)

    def __len__(self) -> int:
        return len(self._adj)

    def __getitem__(self, i: int) -> str:
        return f"{self.adjectives[self._adj[i]]}-{self.nouns[self._noun[i]]}"

    def __iter__(self):
        return (f"{self.adjectives[a]}-{self.nouns[n]}" for a, n in zip(self._adj.tolist(), self._noun.tolist()))
