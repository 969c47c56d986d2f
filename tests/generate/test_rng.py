"""Version-independent randomness: values derived from sha256/SHAKE-256 by hand, and stream properties."""

from __future__ import annotations

import hashlib
import struct
from collections import Counter

import numpy as np
import pytest

from builders.generate.rng import StableRng, stable_key


def reference_key(*parts) -> bytes:
    h = hashlib.sha256()
    for p in parts:
        b = str(p).encode("utf-8")
        h.update(len(b).to_bytes(4, "big") + b)
    return h.digest()


def test_values_are_sha256_counter_blocks():
    rng = StableRng("oneruler-niah", 42, "s_niah", 8000, 3, "mono")
    key = reference_key("oneruler-niah", 42, "s_niah", 8000, 3, "mono")
    assert rng.key == key == stable_key("oneruler-niah", 42, "s_niah", 8000, 3, "mono")
    for i in (0, 1, 3, 4, 9):
        block, offset = divmod(i, 4)
        expected = struct.unpack(">4Q", hashlib.sha256(key + block.to_bytes(8, "big")).digest())[offset]
        assert rng.u64(i) == expected


def test_named_streams_are_shake256_and_extend():
    rng = StableRng("x", 1)
    long, short = rng.u64_array("order", 10), rng.u64_array("order", 4)
    data = hashlib.shake_256(rng.key + b"\x00order").digest(80)
    assert long.tolist() == list(struct.unpack(">10Q", data))
    assert short.tolist() == long[:4].tolist() and long.dtype == np.uint64
    assert rng.u64_array("other", 4).tolist() != short.tolist()


def test_keys_are_unambiguous_and_independent_of_python_hash():
    assert stable_key("ab", "c") != stable_key("a", "bc")
    assert stable_key(1, 2) == stable_key("1", "2")  # parts are their str(): documented, deterministic


def test_randbelow_is_uniform_enough_and_rejects_bad_bounds():
    rng = StableRng("uniform", 7)
    counts = Counter(rng.randbelow(6) for _ in range(12_000))
    assert set(counts) == set(range(6)) and all(1800 < c < 2200 for c in counts.values())
    with pytest.raises(ValueError):
        rng.randbelow(0)
    assert all(10 <= rng.randint(10, 12) <= 12 for _ in range(100))


def test_sample_and_permutation():
    rng = StableRng("perm", 3)
    perm = rng.permutation(50)
    assert sorted(perm) == list(range(50)) and perm != list(range(50))
    pick = rng.sample(40, 5)
    assert len(set(pick)) == 5 and all(0 <= i < 40 for i in pick)
    with pytest.raises(ValueError):
        rng.sample(3, 4)
    # the same parts give the same stream in a fresh object
    assert StableRng("perm", 3).permutation(50) == perm
