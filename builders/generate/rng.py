"""Version-independent randomness: sha256 in counter mode, keyed by the parts of a draw.

Python's ``random`` and numpy's generators may change algorithms between releases; a benchmark
that must be rebuilt byte for byte years later derives every draw from sha256 instead.
"""

from __future__ import annotations

import hashlib
import struct

import numpy as np


def stable_key(*parts: object) -> bytes:
    """A 32-byte key from the parts (joined unambiguously, never Python's salted hash())."""
    h = hashlib.sha256()
    for p in parts:
        b = str(p).encode("utf-8")
        h.update(len(b).to_bytes(4, "big") + b)
    return h.digest()


class StableRng:
    """A deterministic stream of 64-bit values with random access: ``u64(i)`` is the i-th value."""

    def __init__(self, *parts: object):
        self.key = stable_key(*parts)
        self._pos = 0
        self._block_index = -1
        self._block: tuple[int, ...] = ()

    def u64(self, i: int) -> int:
        """The ``i``-th 64-bit value of the stream (four per sha256 block)."""
        block, offset = divmod(i, 4)
        if block != self._block_index:
            digest = hashlib.sha256(self.key + block.to_bytes(8, "big")).digest()
            self._block = struct.unpack(">4Q", digest)
            self._block_index = block
        return self._block[offset]

    def u64_array(self, stream: str, count: int) -> np.ndarray:
        """``count`` 64-bit values of a named sub-stream (SHAKE-256 output: a longer call extends a shorter one)."""
        data = hashlib.shake_256(self.key + b"\x00" + stream.encode()).digest(8 * count)
        return np.frombuffer(data, dtype=">u8").astype(np.uint64)

    def next_u64(self) -> int:
        """The stream's next 64-bit value."""
        v = self.u64(self._pos)
        self._pos += 1
        return v

    def randbelow(self, n: int) -> int:
        """Uniform integer in [0, n) by rejection sampling (no modulo bias)."""
        if n <= 0:
            raise ValueError(f"randbelow({n}): n must be positive")
        limit = (1 << 64) - ((1 << 64) % n)
        while True:
            v = self.next_u64()
            if v < limit:
                return v % n

    def randint(self, a: int, b: int) -> int:
        """Uniform integer in [a, b]."""
        return a + self.randbelow(b - a + 1)

    def permutation(self, n: int) -> list[int]:
        """A uniformly random permutation of range(n) (Fisher-Yates)."""
        perm = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.randbelow(i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        return perm

    def sample(self, n: int, k: int) -> list[int]:
        """k distinct indices from range(n), in draw order (partial Fisher-Yates)."""
        if not 0 <= k <= n:
            raise ValueError(f"cannot sample {k} of {n}")
        pool = list(range(n))
        for i in range(k):
            j = i + self.randbelow(n - i)
            pool[i], pool[j] = pool[j], pool[i]
        return pool[:k]
