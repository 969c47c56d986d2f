"""RULER's needle keys and values (generate/ruler/keys.py): the kinds of niah.py's ``generate_random``."""

from __future__ import annotations

import uuid

import pytest
from ruler_oracle import value_ok

from builders.generate.rng import StableRng
from builders.generate.ruler.keys import draw_distinct, draw_value


def test_each_kind_is_rulers(ruler_sources):
    rng = StableRng("test-keys")
    keys = ruler_sources.niah_keys
    numbers = [draw_value("numbers", rng, keys) for _ in range(2000)]
    assert all(value_ok("numbers", v, None) for v in numbers) and min(map(int, numbers)) < 1_100_000
    uuids = [draw_value("uuids", rng, keys) for _ in range(200)]
    assert all(str(uuid.UUID(u)) == u and uuid.UUID(u).version == 4 for u in uuids) and len(set(uuids)) == 200
    words = [draw_value("words", rng, keys) for _ in range(200)]
    assert all(value_ok("words", w, ruler_sources.wonderwords) for w in words) and len(set(words)) > 190
    with pytest.raises(ValueError, match="RULER has no needle kind 'names'"):
        draw_value("names", rng, keys)


def test_distinct_draws_reject_what_is_taken():
    rng = StableRng("test-distinct")
    taken = {draw_value("numbers", StableRng("test-distinct"), None)}
    value, rejected = draw_distinct("numbers", rng, None, taken)
    assert rejected == 1 and value in taken and len(taken) == 2
