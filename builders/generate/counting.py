"""Exact token counts by construction: pre-tokenised pieces plus local re-tokenisation at the joins.

A text assembled from pieces (prompt frame, book sentences, needles, list items) is counted as the
sum of its pieces' own counts wherever the tokenizer is guaranteed to split at a join (a *cut*),
and by tokenising a small window around every other join: from the last cut inside the left piece
to the first cut inside the right one. Which joins are cuts, and why, is proved in
docs/generation.md ("Counting by construction"). A tokenizer outside that proof gets no cuts at
all, so every count falls back to tokenising the whole text: exact, only slower.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from .tokenizer import HFTokenizer, TiktokenTokenizer, Tokenizer

# GPT-style pre-tokenizer patterns analysed in the proof (tiktoken cl100k/o200k as shipped by
# tiktoken 0.7-0.14, Llama 3 and Qwen 2 tokenizer.json). Any other pattern: no cuts.
GPT_PATTERNS: frozenset[str] = frozenset({
    # cl100k_base, tiktoken >= 0.8 (possessive quantifiers)
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    # cl100k_base, tiktoken < 0.8; Llama 3 tokenizer.json
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # Qwen 2 / 2.5 tokenizer.json (single digits)
    r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
    # o200k_base
    "|".join([
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""", r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""", r"""\s*[\r\n]+""", r"""\s+(?!\S)""", r"""\s+""",
    ]),
})

# Unicode White_Space, plus characters some regex engines or older tables treat as spaces.
_SPACES = frozenset("\t\n\x0b\x0c\r \x85\xa0\u1680\u2028\u2029\u202f\u205f\u3000\u180e\u200b\u200c\u200d\u2060\ufeff"
                    + "".join(map(chr, range(0x2000, 0x200B))) + "".join(map(chr, range(0x1C, 0x20))))


def _space(c: str) -> bool:
    return c in _SPACES or c.isspace()


def gpt_cut(x: str, y: str) -> bool:
    """True if every pattern in GPT_PATTERNS splits between characters x and y (rules R1-R4 of the proof)."""
    if y == " ":
        return not _space(x)  # R1: a space after a non-space starts a new piece
    cy = unicodedata.category(y)
    if cy == "Cn":
        return False  # unassigned here, perhaps a letter in the engine's newer tables
    cx = unicodedata.category(x)
    if cx[0] == "L":
        return cy[0] not in "LM" and y != "'"  # R2: letters end before anything but letters, marks, '
    if cx[0] == "N":
        return cy[0] != "N"  # R3: digit runs end before a non-digit
    if x in "\r\n":
        return not _space(y) and y != "/"  # R4: newline runs end before a non-space
    return False


def _second_of_a_pair() -> frozenset[str]:
    """Characters NFC may compose onto the character before them (second of a canonical pair, Hangul V/T)."""
    seconds = set(map(chr, range(0x1161, 0x1176))) | set(map(chr, range(0x11A8, 0x11C3)))
    for cp in range(0x30000):  # no canonical pair beyond the first three planes
        d = unicodedata.decomposition(chr(cp))
        if d and not d.startswith("<") and len(d.split()) == 2:
            seconds.add(chr(int(d.split()[1], 16)))
    return frozenset(seconds)


class _Nfc:
    """Where NFC cannot change text across a boundary (proof: docs/generation.md)."""

    _seconds: frozenset[str] | None = None

    @classmethod
    def seconds(cls) -> frozenset[str]:
        if cls._seconds is None:
            cls._seconds = _second_of_a_pair()
        return cls._seconds

    @classmethod
    def stable(cls, y: str) -> bool:
        """NFC(a + y…) == NFC(a) + NFC(y…) for any a: y decomposes to a starter nothing composes onto."""
        if unicodedata.category(y) == "Cn":
            return False
        first = unicodedata.normalize("NFD", y)[0]
        return not unicodedata.combining(first) and first not in cls.seconds()

    @classmethod
    def kept_last(cls, x: str) -> bool:
        """NFC(…x) still ends with x: x has no decomposition and composes onto nothing."""
        return unicodedata.normalize("NFD", x) == x and x not in cls.seconds()


@dataclass(frozen=True)
class CountingProfile:
    """What a tokenizer allows: the cut rule, NFC handling, added-token pairs; ``cut`` None = no cuts."""

    cut: Callable[[str, str], bool] | None
    nfc: bool = False
    added_pairs: frozenset[str] = frozenset()
    reason: str = ""


def _hf_profile(config: dict) -> CountingProfile:
    model, pre, norm = config.get("model") or {}, config.get("pre_tokenizer") or {}, config.get("normalizer")
    if model.get("type") != "BPE" or model.get("dropout"):
        return CountingProfile(None, reason="model is not a plain BPE")
    steps = pre.get("pretokenizers") if pre.get("type") == "Sequence" else None
    if not steps or len(steps) != 2:
        return CountingProfile(None, reason="pre-tokenizer is not Split + ByteLevel")
    split, level = steps
    pattern = (split.get("pattern") or {}).get("Regex")
    if (split.get("type") != "Split" or split.get("behavior") != "Isolated" or split.get("invert")
            or pattern not in GPT_PATTERNS):
        return CountingProfile(None, reason="split pattern outside the proof")
    if level.get("type") != "ByteLevel" or level.get("add_prefix_space") or level.get("use_regex"):
        return CountingProfile(None, reason="byte-level step adds a prefix space or its own regex")
    nfc = norm is not None
    if nfc and norm != {"type": "NFC"}:
        return CountingProfile(None, reason="normalizer other than NFC")
    pairs: set[str] = set()
    for token in config.get("added_tokens") or []:
        if token.get("special"):
            continue  # encoded as plain text (encode_special_tokens)
        if token.get("lstrip") or token.get("rstrip") or token.get("single_word"):
            return CountingProfile(None, reason="an added token strips spaces around it")
        text = token.get("content", "")
        pairs.update(text[i:i + 2] for i in range(len(text) - 1))
    return CountingProfile(gpt_cut, nfc=nfc, added_pairs=frozenset(pairs))


def counting_profile(tokenizer: Tokenizer) -> CountingProfile:
    """The cut rules that provably hold for ``tokenizer`` (none for anything outside the proof)."""
    if type(tokenizer) is TiktokenTokenizer:
        if tokenizer.pattern in GPT_PATTERNS:
            return CountingProfile(gpt_cut)
        return CountingProfile(None, reason="tiktoken pattern outside the proof")
    if type(tokenizer) is HFTokenizer:
        return _hf_profile(tokenizer.config)
    return CountingProfile(None, reason=f"{type(tokenizer).__name__} is not analysed")


@dataclass(frozen=True)
class Piece:
    """A text with its own token count and its first/last internal cut (None: no cut inside)."""

    text: str
    count: int
    first: int | None = None
    last: int | None = None
    lead: int = 0  # tokens of text[:first]
    trail: int = 0  # tokens of text[last:]


class TokenCounter:
    """Counts texts for one tokenizer: whole (``count``) or assembled from pieces (``tally``)."""

    def __init__(self, tokenizer: Tokenizer, full_count: bool = False):
        self.tokenizer = tokenizer
        self.profile = CountingProfile(None, reason="full_count") if full_count else counting_profile(tokenizer)
        self.exact = self.profile.cut is not None

    def count(self, text: str) -> int:
        """Tokens of ``text`` (a full tokenisation)."""
        return self.tokenizer.count(text)

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        """Tokens of each text."""
        return self.tokenizer.count_batch(texts)

    def is_cut(self, x: str, y: str) -> bool:
        """True if the tokenizer splits between characters x and y in any text."""
        p = self.profile
        if p.cut is None or not p.cut(x, y) or (x + y) in p.added_pairs:
            return False
        # NFC: the boundary must survive normalisation, and the rule must hold on the normalised
        # characters (a space stays a space; other rules need x unchanged by NFC).
        return not p.nfc or (_Nfc.stable(y) and (y == " " or _Nfc.kept_last(x)))

    def cuts(self, text: str) -> tuple[int | None, int | None]:
        """(first, last) positions 0 < i < len(text) where ``text`` is cut between i-1 and i."""
        is_cut = self.is_cut
        first = next((i for i in range(1, len(text)) if is_cut(text[i - 1], text[i])), None)
        if first is None:
            return None, None
        last = next(i for i in range(len(text) - 1, first - 1, -1) if is_cut(text[i - 1], text[i]))
        return first, last

    def pieces(self, texts: Sequence[str], counts: Sequence[int] | None = None) -> list[Piece]:
        """Pieces for ``texts`` (their own counts given, or tokenised here)."""
        counts = list(counts) if counts is not None else self.count_batch(texts)
        cuts = [self.cuts(t) for t in texts]
        ends = [t[:f] for t, (f, _) in zip(texts, cuts) if f is not None]
        ends += [t[last:] for t, (f, last) in zip(texts, cuts) if f is not None]
        end_counts = iter(self.count_batch(ends)) if ends else iter(())
        leads = {i: next(end_counts) for i, (f, _) in enumerate(cuts) if f is not None}
        trails = {i: next(end_counts) for i, (f, _) in enumerate(cuts) if f is not None}
        return [Piece(t, c, f, last, leads.get(i, 0), trails.get(i, 0))
                for i, (t, c, (f, last)) in enumerate(zip(texts, counts, cuts))]

    def tally(self) -> "Tally":
        """A running exact count over pieces appended in text order."""
        return Tally(self)

    def total(self, pieces: Iterable[Piece]) -> int:
        """Exact tokens of the concatenation of ``pieces``."""
        tally = self.tally()
        for piece in pieces:
            tally.add(piece)
        return tally.result()


class Tally:
    """Sums segments between guaranteed cuts; joins that are not cuts are re-tokenised in a window.

    Written only through its methods: ``add`` (a piece), ``add_text`` (text without a cut inside), ``add_tokens``
    (a count already known between two cuts); ``result`` closes it.
    """

    def __init__(self, counter: TokenCounter):
        self._counter = counter
        self._total = 0
        self._pending: list[tuple[str, int | None]] = []  # the open window: texts since the last cut
        self._last_char = ""

    def _flush(self) -> None:
        """Close the window at a cut."""
        if len(self._pending) == 1 and self._pending[0][1] is not None:
            self._total += self._pending[0][1]
        elif self._pending:
            self._total += self._counter.count("".join(text for text, _ in self._pending))
        self._pending = []

    def add_text(self, text: str, tokens: int | None, close: bool = False) -> None:
        """Append text without a cut inside (its own tokens, None: unknown); ``close``: a cut follows it."""
        if not text:
            return
        if self._last_char and self._counter.is_cut(self._last_char, text[0]):
            self._flush()
        self._pending.append((text, tokens))
        if close:
            self._flush()
        self._last_char = text[-1]

    def add_tokens(self, tokens: int) -> None:
        """Add the tokens of text lying wholly between two cuts, the first closing what was added so far (a run of
        book units counted by their prefix sums, ``bookcount.py``); the text added next starts at the second cut."""
        self._flush()
        self._total += tokens

    def add(self, piece: Piece) -> None:
        """Append a piece (its text follows the text added so far)."""
        if piece.first is None:
            self.add_text(piece.text, piece.count)
            return
        self.add_text(piece.text[:piece.first], piece.lead, close=True)  # first >= 1: a non-empty head
        self._total += piece.count - piece.lead - piece.trail
        self._pending = [(piece.text[piece.last:], piece.trail)]
        self._last_char = piece.text[-1]

    def result(self) -> int:
        """The exact count of everything added."""
        self._flush()
        return self._total
