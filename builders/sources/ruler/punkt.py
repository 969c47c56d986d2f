"""NLTK's English Punkt sentence tokenizer, loaded from the pinned ``punkt_tab.zip`` in memory.

RULER splits its essay haystack into sentences with ``nltk.sent_tokenize`` (``niah.py``), which loads
the ``english`` model of NLTK's ``punkt_tab`` package from ``nltk_data`` and runs a
``PunktTokenizer``. Here the same four parameter files are read from the verified zip (never from
whatever ``nltk_data`` a machine has, never extracted), decoded exactly as
``nltk.tokenize.punkt.load_punkt_params`` decodes them (``nltk.tabdata.PunktDecoder``, UTF-8 text
mode) into ``PunktParameters``, and given to a ``PunktSentenceTokenizer``: the tokenizer
``sent_tokenize`` uses, with the same parameters (a test proves it splits the essays identically).
"""

from __future__ import annotations

import io
import zipfile

from ...base.errors import SourceError
from ..manifest import SourceFile

PUNKT_FILES = ("collocations.tab", "sent_starters.txt", "abbrev_types.txt", "ortho_context.tab")


def _text_files(data: bytes, where: str, language: str) -> dict[str, str]:
    """The model's four files as text (UTF-8, universal newlines, as ``open(..., encoding="utf-8")`` reads them)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        names = {name: f"punkt_tab/{language}/{name}" for name in PUNKT_FILES}
        absent = [member for member in names.values() if member not in archive.namelist()]
        if absent:
            raise SourceError(f"{where}: no {absent[0]} (not NLTK's punkt_tab package, or no {language!r} model)")
        return {name: io.TextIOWrapper(io.BytesIO(archive.read(member)), encoding="utf-8").read()
                for name, member in names.items()}
    except (zipfile.BadZipFile, UnicodeDecodeError) as exc:
        raise SourceError(f"{where}: not a readable punkt_tab zip ({exc})") from None


def punkt_parameters(data: bytes, where: str, language: str = "english"):
    """The ``nltk.tokenize.punkt.PunktParameters`` of one model of a ``punkt_tab.zip``, as ``load_punkt_params``
    builds them."""
    from nltk.tabdata import PunktDecoder
    from nltk.tokenize.punkt import PunktParameters

    texts = _text_files(data, where, language)
    lines = {name: io.StringIO(text) for name, text in texts.items()}
    decoder, params = PunktDecoder(), PunktParameters()
    try:
        params.collocations = set(decoder.tab2tups(lines["collocations.tab"]))
        params.sent_starters = decoder.txt2set(lines["sent_starters.txt"])
        params.abbrev_types = decoder.txt2set(lines["abbrev_types.txt"])
        params.ortho_context = decoder.tab2intdict(lines["ortho_context.tab"])
    except (ValueError, IndexError) as exc:
        raise SourceError(f"{where}: a punkt_tab file of the {language!r} model is malformed ({exc})") from None
    return params


def sentence_tokenizer(entry: SourceFile, data: bytes, language: str = "english"):
    """An ``nltk.tokenize.punkt.PunktSentenceTokenizer`` with the model's parameters: ``.tokenize(text)`` splits
    as ``nltk.sent_tokenize(text, language)`` does with this ``punkt_tab`` installed."""
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    return PunktSentenceTokenizer(punkt_parameters(data, entry.path, language))
