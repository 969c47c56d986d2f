#!/usr/bin/env python
"""Compare sentence segmenters on the 26 ONERULER books (SPEC §4 NIAH rule 1).

The NIAH haystack is a book with whitespace collapsed (``re.sub(r"\\s+", " ", text)``) and
split into sentences.  This script measures, for every segmenter x language:

* ``n``        number of (stripped, non-empty) sentences,
* ``med``/``max``  median / maximum sentence length in characters,
* ``>2000``    sentences over 2,000 characters,
* ``maxtok``   the longest sentence in cl100k tokens (only if tiktoken and its cache are available),
* ``sec``      wall time of the segmentation alone,
* failure indicators (see ``probe``): ``abbr`` sentence ends on a known abbreviation or an
  initial, ``low`` sentence begins in lower case right after a sentence ending in ``.``/``…``
  (false split at an abbreviation or an ellipsis), ``punct`` sentence without any letter or digit
  (a stray quote or ``…``), ``inner`` sentence-internal strong boundaries that were not split
  (``。！？।۔؟!?`` or ``.`` followed by a space and an upper-case letter), ``lossless`` whether the
  sentences contain exactly the non-space characters of the book in order.

the effect of the recommended post-processing ``postprocess`` (``+pp`` pieces added, ``pp_max``,
``pp_maxtok``, ``pp_sec``), a table of targeted probes (abbreviations, quotes after a stop,
ellipses, danda, CJK stops: how often each segmenter splits where it should), and with
``--gaps`` the tokens left unused when a haystack of N cl100k tokens is filled with whole
sentences.  See docs/segmentation.md for the results.

Segmenters (optional ones are reported as skipped when not importable):

* ``regex``     upstream fallback ``re.split(r'(?<=[?.!])\\s+', book.strip())``
* ``sentencex`` ``sentencex.segment(lang, text)`` (Wikimedia, pure rules)
* ``icu``       ICU sentence BreakIterator via ``icu4py`` or ``PyICU``, plain locale
* ``icu_ss``    the same with ICU's abbreviation suppressions (``<lang>@ss=standard``)
* ``pysbd``     pySBD; languages it lacks fall back to English (marked ``*``); about 35 minutes
                for the 26 books, so only when asked for (``--libs ...,pysbd``)
* ``sentencex+pp``, ``icu+pp``  the same followed by ``postprocess`` (``split_overlong`` at
  ``--limit`` characters), i.e. what the generator would use

Usage::

    python benchmarks/segmentation.py                   # all libraries but pysbd, 26 books
    python benchmarks/segmentation.py --libs pysbd      # pysbd alone (slow)
    python benchmarks/segmentation.py --gaps 8000,32000 # budget gaps (needs the cl100k cache)
    python benchmarks/segmentation.py --libs regex,sentencex --langs ja,ru,hi
    python benchmarks/segmentation.py --samples ja      # print sentences around tricky spots
    python benchmarks/segmentation.py --markdown        # tables as Markdown

Books are read from ``$ONERULER_MIRROR`` (a folder with the upstream layout), defaulting to
``../shared/oneruler-upstream`` relative to the repository root.  Nothing is downloaded.
"""
from __future__ import annotations

import argparse
import glob
import os
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Callable, Iterable

REPO_ROOT = Path(__file__).resolve().parent.parent
LANGS = [
    "cs", "da", "de", "en", "es", "fa", "fi", "fr", "hi", "hu", "it", "ja", "ko",
    "nl", "no", "pl", "pt", "ru", "sr", "st", "sv", "sw", "ta", "uk", "vi", "zh",
]
NO_SPACE_LANGS = {"zh", "ja"}  # joined with "" by the generator
OVER = 2000  # the ">2000" column: sentences longer than this many characters
LONG = 1000  # post-processing limit (recommended in docs/segmentation.md); --limit changes it

# ---------------------------------------------------------------------------------------------
# post-processing: split overlong sentences (the rule recommended in docs/segmentation.md)
# ---------------------------------------------------------------------------------------------
_CLOSERS = "\"'”’»«›‹」』）)]】"
# Level 1: a strong sentence end (optionally followed by closing quotes/brackets) and a space;
# for CJK full-width terminators and the danda no space is needed.
# Level 2: ; : and their full-width forms.  Level 3: commas (Latin, CJK, ideographic, Arabic).
# Level 4: any space.  Level 5: a hard cut (only for text without any of the above).
_LEVELS = [
    re.compile(r"(?:[.!?…؟۔।॥]+[" + re.escape(_CLOSERS) + r"]*\s+|[。！？]+[" + re.escape(_CLOSERS) + r"]*\s*)"),
    re.compile(r"[;:；：؛]+\s*"),
    re.compile(r"[,，、،]+\s*"),
    re.compile(r"\s+"),
]


_SKIP = " \"'“”„«»‘’‹›—–-([（「『"


def _level0_ok(text: str, start: int, end: int) -> bool:
    """Guards for level 0 (a strong stop inside an overlong sentence): do not split
    (a) before a lower-case continuation, looking past quotes, dashes and brackets
        ("…» — сказал он", "... und dann"), nor
    (b) after a one-letter token followed by a full stop (initials and one-letter abbreviations:
        "M. Myriel", "z. B.", "т. е.")."""
    j = end
    while j < len(text) and j < end + 4 and text[j] in _SKIP:
        j += 1
    if j < len(text) and text[j].islower():
        return False
    if (text[start] == "." and start >= 1 and text[start - 1].isalpha()
            and (start == 1 or not text[start - 2].isalnum())):
        return False
    return True


def _cut(text: str, pattern: re.Pattern, guard: bool = False) -> list[str]:
    """Split ``text`` after every match of ``pattern`` (the delimiter stays with the left part)."""
    out, start = [], 0
    for m in pattern.finditer(text):
        if m.end() <= start or m.end() >= len(text):
            continue
        if guard and not _level0_ok(text, m.start(), m.end()):
            continue
        out.append(text[start:m.end()])
        start = m.end()
    out.append(text[start:])
    return out


def _pack(atoms: list[str], limit: int) -> list[str]:
    """Greedily concatenate consecutive atoms while the result stays <= limit characters."""
    out: list[str] = []
    for a in atoms:
        if out and len(out[-1]) + len(a) <= limit:
            out[-1] += a
        else:
            out.append(a)
    return out


def split_overlong(sentence: str, limit: int | None = None, level: int = 0) -> list[str]:
    """Split a sentence longer than ``limit`` characters; shorter ones are returned unchanged.

    Level 0 splits at *every* strong sentence end inside the sentence (these are real
    sentences that the segmenter kept together, typically because of quotation marks); the
    resulting pieces that are still too long are split at the next level, whose atoms are packed
    greedily back up to ``limit`` so as few artificial cuts as possible are made.  Deterministic,
    lossless (``"".join(pieces) == sentence`` before stripping).
    """
    limit = LONG if limit is None else limit
    if len(sentence) <= limit:
        return [sentence]
    if level >= len(_LEVELS):
        return [sentence[i:i + limit] for i in range(0, len(sentence), limit)]
    atoms = _cut(sentence, _LEVELS[level], guard=(level == 0))
    if level > 0:
        atoms = _pack(atoms, limit)
    out: list[str] = []
    for a in atoms:
        out.extend(split_overlong(a, limit, level + 1) if len(a) > limit else [a])
    return out


def postprocess(sentences: list[str], limit: int | None = None, joiner: str = " ") -> list[str]:
    """The recommended post-processing: (1) strip, drop empty; (2) split every sentence longer
    than ``limit`` characters with ``split_overlong``; (3) append a piece without any letter or
    digit (a stray quote, "…") to the previous piece with ``joiner`` -- the haystack text, which
    joins sentences with ``joiner``, is unchanged by (3)."""
    limit = LONG if limit is None else limit
    out: list[str] = []
    for s in sentences:
        s = s.strip()
        pieces = [s] if len(s) <= limit else [p.strip() for p in split_overlong(s, limit)]
        for p in pieces:
            if not p:
                continue
            if out and not any(c.isalnum() for c in p):
                out[-1] = out[-1] + joiner + p
            else:
                out.append(p)
    return out


# ---------------------------------------------------------------------------------------------
# segmenters
# ---------------------------------------------------------------------------------------------
def seg_regex(lang: str, text: str) -> list[str]:
    return re.split(r"(?<=[?.!])\s+", text.strip())


def _make_sentencex() -> Callable[[str, str], list[str]]:
    from sentencex import segment

    return lambda lang, text: list(segment(lang, text))


def _icu_backend() -> tuple[str, Callable[[str, str], list[str]]]:
    try:
        from icu4py.breakers import SentenceBreaker  # wheel bundles ICU

        return "icu4py", lambda text, loc: list(SentenceBreaker(text, loc))
    except ImportError:
        pass
    import icu  # PyICU

    def run(text: str, loc: str) -> list[str]:
        bi = icu.BreakIterator.createSentenceInstance(icu.Locale(loc))
        bi.setText(text)
        # PyICU boundaries are UTF-16 offsets; convert through an encoded copy.
        u16 = text.encode("utf-16-le")
        out, prev = [], 0
        for b in bi:
            out.append(u16[2 * prev:2 * b].decode("utf-16-le"))
            prev = b
        return out

    return "PyICU", run


def _make_icu(suppress: bool) -> Callable[[str, str], list[str]]:
    _, run = _icu_backend()
    if suppress:
        return lambda lang, text: run(text, f"{lang}@ss=standard")
    return lambda lang, text: run(text, lang)


PYSBD_FALLBACK: set[str] = set()


PYSBD_CHUNK = 20_000


def _chunks(text: str, size: int) -> Iterable[str]:
    start = 0
    while start < len(text):
        end = start + size
        if end < len(text):
            m = re.compile(r"[.!?。！？।]\s").search(text, end)
            end = m.end() if m else len(text)
        yield text[start:end]
        start = end


def _make_pysbd() -> Callable[[str, str], list[str]]:
    import pysbd
    from pysbd.languages import LANGUAGE_CODES

    cache: dict[str, object] = {}

    def run(lang: str, text: str) -> list[str]:
        code = lang if lang in LANGUAGE_CODES else "en"
        if code != lang:
            PYSBD_FALLBACK.add(lang)
        if code not in cache:
            cache[code] = pysbd.Segmenter(language=code, clean=False)
        # pySBD is super-linear on long inputs (measured on en: 100K chars 13.7 s, 200K chars
        # 39 s), so it is fed chunks of ~PYSBD_CHUNK characters cut after a regex sentence end.
        out: list[str] = []
        for chunk in _chunks(text, PYSBD_CHUNK):
            out.extend(cache[code].segment(chunk))
        return out

    return run


FACTORIES: dict[str, Callable[[], Callable[[str, str], list[str]]]] = {
    "regex": lambda: seg_regex,
    "sentencex": _make_sentencex,
    "icu": lambda: _make_icu(False),
    "icu_ss": lambda: _make_icu(True),
    "pysbd": _make_pysbd,
}


def joiner_for(lang: str) -> str:
    return "" if lang in NO_SPACE_LANGS else " "


def _with_pp(base: str) -> Callable[[], Callable[[str, str], list[str]]]:
    """``base`` followed by ``postprocess`` (split sentences over --limit characters)."""
    def factory():
        fn = FACTORIES[base]()
        return lambda lang, text: postprocess(fn(lang, text), LONG, joiner_for(lang))
    return factory


FACTORIES["sentencex+pp"] = _with_pp("sentencex")
FACTORIES["icu+pp"] = _with_pp("icu")


def lib_version(name: str) -> str:
    name = name.split("+")[0]
    try:
        from importlib.metadata import version

        if name == "sentencex":
            return version("sentencex")
        if name == "pysbd":
            return version("pysbd")
        if name.startswith("icu"):
            backend, _ = _icu_backend()
            if backend == "icu4py":
                import icu4py._version as v

                return f"icu4py {version('icu4py')} (ICU {getattr(v, 'icu_version', '?')})"
            import icu

            return f"PyICU {icu.VERSION} (ICU {icu.ICU_VERSION})"
    except Exception:  # pragma: no cover - informative only
        return "?"
    return "-"


# ---------------------------------------------------------------------------------------------
# books and probes
# ---------------------------------------------------------------------------------------------
def mirror_root() -> Path:
    env = os.environ.get("ONERULER_MIRROR")
    if env and env.startswith("file://"):
        return Path(env[7:])
    if env:  # several folders (os.pathsep): the one holding ONERULER's release
        folders = [Path(p) for p in env.split(os.pathsep) if p]
        return next((f for f in folders if (f / "OneRuler").is_dir()), folders[0])
    return (REPO_ROOT / ".." / "shared" / "oneruler-upstream").resolve()


def book_file(root: Path, lang: str) -> Path | None:
    for base in (root / "data" / "books", root / "OneRuler" / "data" / "books"):
        hits = sorted(glob.glob(str(base / lang / "*.txt")))
        if hits:
            return Path(hits[0])
    return None


def load_book(path: Path) -> str:
    return re.sub(r"\s+", " ", path.read_text(encoding="utf-8"))


ABBREV = {
    "en": ["Mr.", "Mrs.", "Dr.", "St.", "Jr.", "Messrs."],
    "de": ["z.", "d.", "u.", "Dr.", "Hr.", "Fr.", "Nr.", "bzw.", "vgl.", "ca."],
    "fr": ["M.", "MM.", "Mme.", "Mlle.", "St.", "cf."],
    "es": ["Sr.", "Sra.", "D.", "Dña.", "Ud.", "Vd.", "V."],
    "it": ["Sig.", "Dott.", "Prof.", "S."],
    "pt": ["Sr.", "Sra.", "D.", "Dr.", "V."],
    "nl": ["bijv.", "dhr.", "mevr.", "enz.", "d.", "z."],
    "ru": ["т.", "е.", "д.", "см.", "ст.", "гг."],
    "uk": ["т.", "д.", "ст.", "напр."],
    "pl": ["np.", "tzw.", "dr.", "p.", "ks.", "św."],
    "cs": ["tj.", "např.", "p.", "pí.", "sv."],
    "sv": ["t.", "ex.", "d.", "s.", "bl.", "a."],
    "da": ["f.", "ex.", "hr.", "fru.", "d."],
    "no": ["f.", "eks.", "hr.", "d."],
    "fi": ["esim.", "ns.", "mm.", "jne."],
    "hu": ["pl.", "stb.", "ú.", "dr."],
    "sr": ["г.", "гђа.", "тј.", "нпр."],
}
_INITIAL = re.compile(r"(?:^|\s)[A-ZÀ-ÖØ-ÞА-ЯЁЂ-Џ]\.$")
_LOWER_START = re.compile(r"^[\W_]*([^\W\d_])")
_OPEN = "\"'“„«»‘‹›(["
_INNER_CJK = re.compile(r"[。！？]+[" + re.escape(_CLOSERS) + r"]*(?=[^\W\d_])")
_INNER_SP = re.compile(r"[.!?।۔؟]+[" + re.escape(_CLOSERS) + r"]*\s+[" + re.escape(_OPEN) + r"]*([^\W\d_])")


def count_inner(body: str) -> int:
    """Strong boundaries inside a sentence: a CJK stop followed by a letter, or a stop and a space
    followed by an upper-case or uncased (Devanagari, Arabic, Tamil, Hangul, ...) letter."""
    n = len(_INNER_CJK.findall(body))
    for m in _INNER_SP.finditer(body):
        c = m.group(1)
        if c.isupper() or not c.islower():
            n += 1
    return n


def probe(lang: str, sents: list[str]) -> dict[str, int]:
    abbr = tuple(ABBREV.get(lang, []))
    n_abbr = n_low = n_punct = n_inner = 0
    prev = ""
    for s in sents:
        last = s.rsplit(" ", 1)[-1]
        if (abbr and last in abbr) or _INITIAL.search(s[-3:] if len(s) >= 3 else s):
            n_abbr += 1
        m = _LOWER_START.match(s)
        if m and m.group(1).islower() and prev.endswith((".", "…")):
            n_low += 1
        if not any(c.isalnum() for c in s):
            n_punct += 1
        body = s.rstrip(_CLOSERS + " .!?。！？।۔؟…")
        n_inner += count_inner(body)
        prev = s
    return {"abbr": n_abbr, "low": n_low, "punct": n_punct, "inner": n_inner}


def lossless(text: str, sents: Iterable[str]) -> bool:
    squash = lambda x: re.sub(r"\s+", "", x)  # noqa: E731
    return squash("".join(sents)) == squash(text)


# ---------------------------------------------------------------------------------------------
def measure(name: str, fn, lang: str, text: str, enc) -> dict:
    t0 = time.perf_counter()
    raw = fn(lang, text)
    sents = [s.strip() for s in raw]
    sents = [s for s in sents if s]
    dt = time.perf_counter() - t0
    lens = [len(s) for s in sents]
    row = {
        "lib": name, "lang": lang, "n": len(sents), "med": statistics.median(lens),
        "max": max(lens), "over": sum(1 for x in lens if x > OVER), "sec": dt,
        "lossless": lossless(text, sents),
    }
    row.update(probe(lang, sents))
    row["_probes"] = run_probes(lang, text, sents)
    if enc is not None:
        longest = sorted(sents, key=len, reverse=True)[:5]
        row["maxtok"] = max(len(enc.encode(s, disallowed_special=())) for s in longest)
    t1 = time.perf_counter()
    post = postprocess(sents, LONG, joiner_for(lang))
    row["post_sec"] = time.perf_counter() - t1
    row["post_added"] = len(post) - len(sents)
    row["post_max"] = max(len(s) for s in post)
    row["post_lossless"] = lossless(text, post)
    if enc is not None:
        longest = sorted(post, key=len, reverse=True)[:5]
        row["post_maxtok"] = max(len(enc.encode(s, disallowed_special=())) for s in longest)
    row["_sents"] = sents
    return row


def get_encoder():
    if not os.environ.get("TIKTOKEN_CACHE_DIR"):
        cache = REPO_ROOT / ".." / "shared" / "tokenizers" / "tiktoken"
        if cache.is_dir():
            os.environ["TIKTOKEN_CACHE_DIR"] = str(cache.resolve())
    try:
        import tiktoken

        return tiktoken.get_encoding("cl100k_base")
    except Exception as exc:  # no tiktoken or no cache and no network
        print(f"(token columns skipped: {exc.__class__.__name__})", file=sys.stderr)
        return None


def budget_gaps(sents: list[str], lang: str, enc, lengths: list[int]) -> dict[int, int]:
    """Fill a haystack from the start of the book (cycling) with whole sentences, as the NIAH
    generator does, and return for each length the tokens left unused (length - tokens), i.e.
    how far below the bound the "one sentence" granularity leaves the haystack."""
    joiner = "" if lang in NO_SPACE_LANGS else " "
    toks = [len(t) for t in enc.encode_ordinary_batch([joiner + x for x in sents])]
    book = sum(toks)
    out: dict[int, int] = {}
    for length in lengths:
        reps = length // max(book, 1) + 2
        seq_t = toks * reps
        # approximate prefix sums, then correct with exact counts of the joined text
        k, acc = 0, 0
        while k < len(seq_t) and acc + seq_t[k] <= length:
            acc += seq_t[k]
            k += 1
        seq = (sents * reps)
        exact = lambda m: len(enc.encode_ordinary(joiner.join(seq[:m])))  # noqa: E731
        n = exact(k)
        while n > length and k > 0:
            k -= 1
            n = exact(k)
        while k < len(seq):
            m = exact(k + 1)
            if m > length:
                break
            k, n = k + 1, m
        out[length] = length - n
    return out


# Targeted probes: (language, label, pattern, expected).  A match is "split" when a sentence
# starts strictly inside it or right at its end.  expected=True means a boundary belongs there.
PROBES = [
    ("en", "Mr./Mrs. + name", r"\bMrs?\. (?=[A-Z])", False),
    ("en", "[.!?]” + capital", r"[.!?]” (?=[A-Z])", True),
    ("en", "ellipsis + lower", r"(?:\.\.\.|…) (?=[a-z])", False),
    ("fr", "M. + name", r"\bM\. (?=[A-Z])", False),
    ("fr", "ellipsis + lower", r"(?:\.\.\.|…) (?=[a-z])", False),
    ("fr", "[.!?] » + capital", r"[.!?] » (?=[A-Z])", True),
    ("de", "z. B.", r"\bz\. ?B\.", False),
    ("de", "Dr. + name", r"\bDr\. (?=[A-Z])", False),
    ("de", "[.!?]« + capital", r"[.!?]« (?=[A-Z])", True),
    ("de", "ellipsis + lower", r"(?:\.\.\.|…) (?=[a-z])", False),
    ("ru", "т. е./т. д./т. п.", r"\bт\. ?[едп]\.", False),
    ("ru", "[.!?»] — + lower", r"[.!?»] — (?=[а-я])", False),
    ("ru", "ellipsis + lower", r"(?:\.\.\.|…) (?=[а-я])", False),
    ("ru", "[.!?]» + capital", r"[.!?]» (?=[А-Я])", True),
    ("hi", "danda ।", r"। (?=\S)", True),
    ("hi", "? + text", r"\? (?=\S)", True),
    ("fa", "[.؟!] + letter", r"[.؟!] (?=[^\W\d_])", True),
    ("ja", "。 (not before 」)", r"。(?=[^」』）\s])", True),
    ("zh", "[。！？] (not before ”)", r"[。！？](?=[^”」』）\s])", True),
]


def sentence_starts(text: str, sents: list[str]) -> set[int]:
    starts, off = set(), 0
    for x in sents:
        j = text.find(x, off)
        if j < 0:  # a segmenter that altered the text: skip this sentence
            continue
        starts.add(j)
        off = j + len(x)
    return starts


def run_probes(lang: str, text: str, sents: list[str]) -> list[tuple[str, bool, int, int]]:
    """(label, expected, matches behaving as expected, matches) for this language's probes."""
    out = []
    probes = [p for p in PROBES if p[0] == lang]
    if not probes:
        return out
    starts = sentence_starts(text, sents)
    for _, label, pat, expected in probes:
        ms = list(re.finditer(pat, text))
        good = sum(
            1 for m in ms
            if any(b in starts for b in range(m.start() + 1, m.end() + 1)) == expected
        )
        out.append((label, expected, good, len(ms)))
    return out


COLS = ["lang", "n", "med", "max", "over", "maxtok", "sec", "abbr", "low", "punct", "inner",
        "lossless", "post_added", "post_max", "post_maxtok", "post_sec"]
HEAD = {"over": f">{OVER}", "post_added": "+pp", "post_max": "pp_max",
        "post_maxtok": "pp_maxtok", "post_sec": "pp_sec", "lossless": "lossless"}


def fmt(row: dict, col: str) -> str:
    v = row.get(col, "")
    if col == "lang" and row["lib"] == "pysbd" and row["lang"] in PYSBD_FALLBACK:
        return v + "*"
    if isinstance(v, bool):
        return "yes" if v else "NO"
    if isinstance(v, float):
        return f"{v:.2f}" if col.endswith("sec") else f"{v:g}"
    return str(v)


def print_table(lib: str, rows: list[dict], markdown: bool) -> None:
    cols = [c for c in COLS if any(c in r for r in rows)]
    head = [HEAD.get(c, c) for c in cols]
    body = [[fmt(r, c) for c in cols] for r in rows]
    tot = {"lib": lib, "lang": "ALL", "n": sum(r["n"] for r in rows),
           "max": max(r["max"] for r in rows), "over": sum(r["over"] for r in rows),
           "sec": sum(r["sec"] for r in rows), "post_added": sum(r["post_added"] for r in rows),
           "post_sec": sum(r["post_sec"] for r in rows),
           "post_max": max(r["post_max"] for r in rows)}
    for k in ("abbr", "low", "punct", "inner"):
        tot[k] = sum(r[k] for r in rows)
    if all("maxtok" in r for r in rows):
        tot["maxtok"] = max(r["maxtok"] for r in rows)
        tot["post_maxtok"] = max(r["post_maxtok"] for r in rows)
    body.append([fmt(tot, c) for c in cols])
    print(f"\n### {lib}  ({lib_version(lib)})\n")
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---:" if c != "lang" else "---" for c in cols) + "|")
        for b in body:
            print("| " + " | ".join(b) + " |")
    else:
        w = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
        print("  ".join(h.rjust(w[i]) for i, h in enumerate(head)))
        for b in body:
            print("  ".join(x.rjust(w[i]) for i, x in enumerate(b)))


def print_probe_table(probe_rows: dict, markdown: bool) -> None:
    if not probe_rows:
        return
    libs = list(dict.fromkeys(k for v in probe_rows.values() for k in v))
    print("\n### targeted probes: matches where the segmenter behaves as expected "
          "(split = a boundary belongs there; keep = it does not)\n")
    head = ["lang", "probe", "want", "matches"] + libs
    rows = [[lang, label, "split" if exp else "keep", str(n)]
            + [f"{v[lib] / n:.0%}" if n and lib in v else "" for lib in libs]
            for (lang, label, exp, n), v in probe_rows.items()]
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|---|---|---|" + "---:|" * (len(head) - 3))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        w = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
        for r in [head] + rows:
            print("  ".join(x.ljust(w[i]) if i < 3 else x.rjust(w[i]) for i, x in enumerate(r)))


def print_gaps(gaps: dict, lengths: list[int], langs: list[str], markdown: bool) -> None:
    print(f"\n### unused tokens when filling {', '.join(map(str, lengths))} cl100k tokens with whole "
          f"sentences (+pp = after split_overlong at {LONG} chars)\n")
    tags = list(gaps)
    head = ["lang"] + [f"{t}@{L // 1000}k" for t in tags for L in lengths]
    rows = []
    for lang in langs + ["max", "mean"]:
        r = [lang]
        for t in tags:
            for L in lengths:
                vals = [gaps[t][x][L] for x in langs if x in gaps[t]]
                if lang == "max":
                    r.append(str(max(vals)))
                elif lang == "mean":
                    r.append(f"{sum(vals) / len(vals):.0f}")
                else:
                    r.append(str(gaps[t].get(lang, {}).get(L, "")))
        rows.append(r)
    if markdown:
        print("| " + " | ".join(head) + " |")
        print("|---|" + "---:|" * (len(head) - 1))
        for r in rows:
            print("| " + " | ".join(r) + " |")
    else:
        w = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(head)]
        print("  ".join(h.rjust(w[i]) for i, h in enumerate(head)))
        for r in rows:
            print("  ".join(x.rjust(w[i]) for i, x in enumerate(r)))


def print_samples(lang: str, results: dict[str, dict], k: int = 3) -> None:
    """Print the sentences around a few tricky spots for each library."""
    print(f"\n=== samples for {lang} ===")
    pats = [r"\b(Mr|Mrs|Dr|M|Mme|z|т|Sr|D)\.", r"[.!?][”»\"’]", r"\.\.\.|…", r"[।۔؟。]"]
    for name, row in results.items():
        sents = row["_sents"]
        print(f"\n--- {name}: longest sentence {row['max']} chars: "
              f"{sorted(sents, key=len)[-1][:160]!r}...")
        shown = 0
        for pat in pats:
            rx = re.compile(pat)
            for i, s in enumerate(sents[:-1]):
                if rx.search(s[-6:]):
                    print(f"  [{i}] {s[-90:]!r}\n  [{i + 1}] {sents[i + 1][:90]!r}")
                    shown += 1
                    break
            if shown >= k + 1:
                break


def main(argv: list[str] | None = None) -> int:
    global LONG
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--libs", default=",".join(k for k in FACTORIES if k != "pysbd"),
                    help=f"comma list from {', '.join(FACTORIES)} (default: all but pysbd)")
    ap.add_argument("--langs", default=",".join(LANGS), help="comma list (default: all 26)")
    ap.add_argument("--samples", default="", help="comma list of languages to print samples for")
    ap.add_argument("--markdown", action="store_true", help="print Markdown tables")
    ap.add_argument("--no-tokens", action="store_true", help="skip the cl100k token columns")
    ap.add_argument("--limit", type=int, default=LONG,
                    help=f"overlong threshold in characters for the post-processing (default {LONG})")
    ap.add_argument("--gaps", default="",
                    help="comma list of lengths (e.g. 8000,32000): print the tokens left unused when "
                         "a haystack of that many cl100k tokens is filled with whole sentences")
    args = ap.parse_args(argv)
    LONG = args.limit

    root = mirror_root()
    langs = [x for x in args.langs.split(",") if x]
    books: dict[str, str] = {}
    for lang in langs:
        p = book_file(root, lang)
        if p is None:
            print(f"missing book for {lang!r} under {root}", file=sys.stderr)
            continue
        books[lang] = load_book(p)
    if not books:
        print(f"no books found under {root} (set ONERULER_MIRROR)", file=sys.stderr)
        return 2
    enc = None if args.no_tokens else get_encoder()

    print(f"books: {root}  ({len(books)} languages, "
          f"{sum(len(t) for t in books.values()):,} characters after whitespace collapse)")
    segmenters = {}
    for name in [x for x in args.libs.split(",") if x]:
        if name not in FACTORIES:
            print(f"unknown library {name!r}; choose from {', '.join(FACTORIES)}", file=sys.stderr)
            return 2
        try:
            segmenters[name] = FACTORIES[name]()
        except Exception as exc:  # missing optional library
            print(f"\n### {name}: SKIPPED ({exc.__class__.__name__}: {exc})")

    sample_langs = {x for x in args.samples.split(",") if x}
    per_lang: dict[str, dict[str, dict]] = {lang: {} for lang in books}
    gap_lengths = [int(x) for x in args.gaps.split(",") if x]
    gaps: dict[str, dict[str, dict[int, int]]] = {}
    probe_rows: dict[tuple, dict[str, int]] = {}
    for name, fn in segmenters.items():
        rows = []
        for lang, text in books.items():
            try:
                row = measure(name, fn, lang, text, enc)
            except Exception as exc:
                print(f"{name}/{lang}: FAILED ({exc.__class__.__name__}: {exc})", file=sys.stderr)
                continue
            rows.append(row)
            for label, expected, good, total in row.pop("_probes"):
                probe_rows.setdefault((lang, label, expected, total), {})[name] = good
            if gap_lengths and enc is not None:
                sents = row["_sents"]
                variants = [(name, sents)]
                if not name.endswith("+pp"):
                    variants.append((f"{name}+pp", postprocess(sents, LONG, joiner_for(lang))))
                for tag, ss in variants:
                    gaps.setdefault(tag, {})[lang] = budget_gaps(ss, lang, enc, gap_lengths)
            if lang in sample_langs:
                per_lang[lang][name] = row
            else:
                row.pop("_sents")
        if rows:
            print_table(name, rows, args.markdown)
        if name == "pysbd" and PYSBD_FALLBACK:
            print(f"* pysbd has no rules for {', '.join(sorted(PYSBD_FALLBACK))}: English rules used")
    print_probe_table(probe_rows, args.markdown)
    if gaps:
        print_gaps(gaps, gap_lengths, list(books), args.markdown)
    for lang in sorted(sample_langs & set(per_lang)):
        print_samples(lang, per_lang[lang])
    return 0


if __name__ == "__main__":
    sys.exit(main())
