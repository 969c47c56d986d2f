"""The none words the paper accepts per instruction language, and whether an output mentions one (SPEC §5)."""

from __future__ import annotations

import functools
from typing import Any

from .answer_text import ZWNJ, TokenTerm, as_text, clean, normalize, token_pattern, token_search

# The none words the paper's scorer accepts, per instruction language (upstream eval/evaluate.py).
NONE_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("none",), "ko": ("없음",), "pl": ("brak",), "zh": ("无",), "vi": ("Không có",),
    "ja": ("なし", "数字はありません"), "ta": ("ஏதுமில்லை",), "hu": ("nincs",), "fr": ("aucun",),
    "no": ("ingen",), "uk": ("немає", "Нема"), "ru": ("нет",), "de": ("Keine vorhanden",),
    "es": ("ninguno",), "sv": ("inga",), "fi": ("ei mikään",), "cs": ("žádné", "žádná"),
    "sr": ("nema",), "pt": ("nenhum",), "it": ("nessuno",), "fa": ("هیچ کدام",), "sw": ("hakuna",),
    "nl": ("geen",), "st": ("ha ho letho",), "hi": ("कोई नहीं",), "da": ("ingen",),
}


def none_words(language: str) -> tuple[str, ...]:
    """The none words the paper accepts for an instruction language."""
    if language not in NONE_WORDS:
        raise ValueError(f"unknown instruction language {language!r}; valid: {', '.join(sorted(NONE_WORDS))}")
    return NONE_WORDS[language]


@functools.lru_cache(maxsize=None)
def _strict_none_patterns(language: str) -> tuple[TokenTerm, ...]:
    return tuple(token_pattern(word.lower().replace(ZWNJ, "").split()) for word in none_words(language))


def mentions_none(prediction: Any, language: str, strict: bool = False) -> bool:
    """Whether an output contains a none word of the instruction language.

    Paper: `w` or `clean(w)` is a substring of NFKC(output), case-sensitive (so "none" counts
    in English, "None" does not). Strict: NFKC, lower-cased, U+200C removed, then any none word
    as a whole token (no letter, digit, mark or "_" on either side), its words separated by any
    whitespace or none.
    """
    text = as_text(prediction)
    if not text:
        return False
    out = normalize(text)
    if not strict:
        return any(w in out or clean(w) in out for w in none_words(language))
    out = out.lower().replace(ZWNJ, "")
    return any(token_search(term, out) for term in _strict_none_patterns(language))
