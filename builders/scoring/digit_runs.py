"""Numbers in an output: runs of Unicode decimal digits read as integers, and which gold values occur."""

from __future__ import annotations

import functools
import re
import unicodedata
from typing import Any, Iterable, Mapping, Sequence

from .answer_text import normalize

NUMBER = re.compile(r"\d{2,}")  # the paper's \d+ minus the length-1 runs it drops
_DIGITS = re.compile(r"\d+")


def digit_key(digits: str) -> str:
    """The integer value of a run of Unicode decimal digits, as canonical ASCII (int() without its size limit)."""
    if not digits.isascii():
        digits = "".join(str(unicodedata.decimal(c)) for c in digits)
    return digits.lstrip("0") or "0"


def gold_keys(values: Iterable[Any], what: str) -> list[str]:
    """The canonical keys of gold numbers (``what`` names them in the error when one is not a number)."""
    keys = []
    for value in values:
        text = str(value).strip()
        if not _DIGITS.fullmatch(text):
            raise ValueError(f"{what} {value!r} is not a number")
        keys.append(digit_key(text))
    return keys


@functools.lru_cache(maxsize=1)
def _to_ascii_digits() -> dict[int, str]:
    everything = "".join(map(chr, range(0x110000)))
    return {ord(c): str(unicodedata.decimal(c)) for c in re.findall(r"\d", everything) if not c.isascii()}


def found_values(out: str, keys: Iterable[str]) -> set[str]:
    """Which canonical numbers occur in out as a whole digit run of length >= 2 (any script, leading zeros)."""
    if not out.isascii():
        out = out.translate(_to_ascii_digits())  # 1:1 per character, so positions and runs are kept
    found = set()
    for key in set(keys):
        pos = out.find(key)
        while pos != -1:
            start, end = pos, pos + len(key)
            while start > 0 and out[start - 1] == "0":
                start -= 1
            if (start == 0 or not out[start - 1].isdecimal()) and (end == len(out) or not out[end].isdecimal()):
                if end - start >= 2:
                    found.add(key)
                    break
            pos = out.find(key, pos + 1)
    return found


def values_found(text: str, values: Sequence[Any]) -> list[bool]:
    """Per gold number in ``values``: whether it occurs in NFKC(``text``) as a whole digit run (recall's test)."""
    keys = gold_keys(values, "gold value")
    found = found_values(normalize(text), keys) if text else set()
    return [key in found for key in keys]


def numbers_pass(out: str, gold: Sequence[str]) -> bool:
    """The paper's number rule: the distinct runs of two or more digits in ``out`` are exactly the gold values."""
    seen: set[str] = set()
    for match in NUMBER.finditer(out):
        seen.add(match.group())
        if len(seen) > len(gold):  # the count can only grow: fail early on huge outputs
            return False
    return len(seen) == len(gold) and {digit_key(s) for s in seen} == set(gold)


def needle_values(needles: Iterable[Any] | None) -> list[str]:
    """The canonical values of a row's needles (records with a ``value``, or the values themselves)."""
    if not needles:
        return []
    values = [n["value"] if isinstance(n, Mapping) else n for n in needles]
    return gold_keys(values, "needle value")
