"""RULER's needle keys and values (``niah.py``'s ``generate_random``), drawn from the project's stable RNG.

- ``words``: one of RULER's adjective-noun keys, uniformly (``random.choice(words)``, ``sources.niah_keys``);
- ``numbers``: a 7-digit number, uniformly from 1,000,000 to 9,999,999 (``random.randint``);
- ``uuids``: ``uuid.UUID(int=random.getrandbits(128), version=4)``: 128 random bits with the version and variant
  bits then set, as RULER's call does.
"""

from __future__ import annotations

import uuid
from ...sources.ruler.words import NiahKeys
from ..rng import StableRng

NUMBER_MIN, NUMBER_MAX = 10 ** 6, 10 ** 7 - 1
KINDS = ("words", "numbers", "uuids")


def draw_value(kind: str, rng: StableRng, keys: NiahKeys) -> str:
    """One key or value of RULER's kind ``words``, ``numbers`` or ``uuids`` (ValueError for another)."""
    if kind == "numbers":
        return str(rng.randint(NUMBER_MIN, NUMBER_MAX))
    if kind == "words":
        return keys[rng.randbelow(len(keys))]
    if kind == "uuids":
        return str(uuid.UUID(int=(rng.next_u64() << 64) | rng.next_u64(), version=4))
    raise ValueError(f"RULER has no needle kind {kind!r}; it has {', '.join(KINDS)}")


def draw_distinct(kind: str, rng: StableRng, keys: NiahKeys, taken: set[str]) -> tuple[str, int]:
    """(a value not in ``taken``, how many draws were rejected first); the value is added to ``taken``."""
    rejected = 0
    value = draw_value(kind, rng, keys)
    while value in taken:
        rejected += 1
        value = draw_value(kind, rng, keys)
    taken.add(value)
    return value, rejected
