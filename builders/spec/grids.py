"""The named grids of configs: ``standard`` (the paper's), ``depth`` (fixed-depth sweeps) and ``evidence``.

- ``depth``: s_niah with its needle at 0, 10, …, 100 % (``_at{D}``) for every language at 8k, 32k,
  64k and 128k (the NIAH heatmaps of Kamradt, NeedleBench, NoLiMa), then CROSS / mLongRR's five
  depths 0, 25, 50, 75, 100 for the six en/pl/ko cross-lingual pairs at the same lengths.
- ``evidence``: ``mv{K}e_niah``, K values evenly spaced (Counting-Stars), K ∈ {8, 16, 32, 64}, for
  every language at 32k and 128k.
"""

from __future__ import annotations

from typing import Callable, Iterator

from .configs import STANDARD_LENGTHS, ConfigNameError, ConfigSpec, cross_lingual_pairs, iter_standard_configs
from .languages import LANGUAGE_CODES

SWEEP_DEPTHS: tuple[int, ...] = tuple(range(0, 101, 10))
CROSS_DEPTHS: tuple[int, ...] = (0, 25, 50, 75, 100)
EVIDENCE_VALUES: tuple[int, ...] = (8, 16, 32, 64)
EVIDENCE_LENGTHS: tuple[int, ...] = (32_000, 128_000)


def iter_depth_configs() -> Iterator[ConfigSpec]:
    """The depth sweep: 26 languages × 11 depths × 4 lengths, then 6 pairs × 5 depths × 4 lengths (1,264)."""
    for lang in LANGUAGE_CODES:
        for length in STANDARD_LENGTHS:
            for depth in SWEEP_DEPTHS:
                yield ConfigSpec(lang, "s_niah", length, depth=depth)
    for ctx, inst in cross_lingual_pairs():
        for length in STANDARD_LENGTHS:
            for depth in CROSS_DEPTHS:
                yield ConfigSpec(ctx, "s_niah", length, inst, depth=depth)


def iter_evidence_configs() -> Iterator[ConfigSpec]:
    """The multi-evidence sweep: 26 languages × K ∈ {8, 16, 32, 64} evenly spaced × 32k, 128k (208)."""
    for lang in LANGUAGE_CODES:
        for length in EVIDENCE_LENGTHS:
            for values in EVIDENCE_VALUES:
                yield ConfigSpec(lang, f"mv{values}e_niah", length)


GRIDS: dict[str, Callable[[], Iterator[ConfigSpec]]] = {
    "standard": iter_standard_configs,
    "depth": iter_depth_configs,
    "evidence": iter_evidence_configs,
}


def grid_configs(name: str) -> list[ConfigSpec]:
    """The configs of a named grid, in grid order; ConfigNameError naming the valid grids."""
    if name not in GRIDS:
        raise ConfigNameError(f"unknown grid {name!r}; valid: {', '.join(GRIDS)}")
    return list(GRIDS[name]())
