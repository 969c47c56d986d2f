"""What a build is asked to do (``BuildRequest``): every setting of ``oneruler build``, checked once.

The command line makes one from its options, a Python caller from keyword arguments; either way
a bad value fails on construction, before anything is loaded or written, with an error naming the
setting (``samples must be at least 1 (got 0)``; the command line words it ``--samples``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping

from ..base.errors import OneRulerError, SettingError
from ..spec.configs import ConfigSpec
from ..spec.grids import DEFAULT_GRID
from ..spec.selection import match_configs
from ..spec.defaults import DEFAULT_SAMPLES, DEFAULT_SEED


@dataclass(frozen=True)
class BuildRequest:
    """The configs to build and where, with every setting of the build.

    ``patterns``: config names or globs over the named ``grid`` (``spec/grids.py``); ``out``: the
    export folder; ``samples``/``seed``: every config's; ``num_proc``: worker processes;
    ``tokenizers``: alias → location of the token-control tokenizers besides the built-ins;
    ``mirror``/``cache_dir``: where sources come from and are kept; ``force``: rebuild configs that
    are current (and, with other seed or samples than the export's, all of its configs); ``wait``:
    seconds to wait for another build writing into ``out`` (0: fail at once); ``full_count``:
    tokenise every candidate prompt whole (same rows, slower); ``progress``: progress bars.
    ``specs`` (not a parameter): the configs the patterns select, in order.
    """

    patterns: tuple[str, ...]
    out: Path
    grid: str = DEFAULT_GRID
    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED
    num_proc: int = 1
    tokenizers: Mapping[str, str] = field(default_factory=dict)
    mirror: str | None = None
    cache_dir: str | None = None
    force: bool = False
    wait: float = 0.0
    full_count: bool = False
    progress: bool = True
    specs: tuple[ConfigSpec, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _settle(self, "patterns", _strings("patterns", self.patterns))
        _settle(self, "out", Path(_path("out", self.out)))
        _settle(self, "tokenizers", MappingProxyType(_locations(self.tokenizers or {})))
        for name in ("samples", "seed", "num_proc"):
            _integer(name, getattr(self, name))
        if self.samples < 1:
            raise SettingError("samples", f"must be at least 1 (got {self.samples})")
        if self.num_proc < 1:
            raise SettingError("num_proc", f"must be at least 1 (got {self.num_proc})")
        if isinstance(self.wait, bool) or not isinstance(self.wait, (int, float)):
            raise SettingError("wait", f"must be a number of seconds (got {self.wait!r})")
        if self.wait < 0:
            raise SettingError("wait", f"must be 0 (fail at once) or a number of seconds (got {self.wait:g})")
        specs = match_configs(self.patterns, tuple(self.tokenizers), self.grid)
        if not specs:
            raise OneRulerError("no config to build: give at least one config name or glob, e.g. 'pl_*_8k'")
        _settle(self, "specs", tuple(specs))


def _settle(request: BuildRequest, name: str, value: object) -> None:
    """Set a field of the frozen request to its checked, normalised value."""
    object.__setattr__(request, name, value)


def _strings(name: str, value: object) -> tuple[str, ...]:
    items = (value,) if isinstance(value, str) else tuple(value) if isinstance(value, Iterable) else None
    if items is None or not all(isinstance(item, str) for item in items):
        raise SettingError(name, f"must be config names or globs (got {value!r})")
    return items


def _path(name: str, value: object) -> str | os.PathLike:
    if not isinstance(value, (str, os.PathLike)):
        raise SettingError(name, f"must be a folder path (got {value!r})")
    return value


def _locations(value: object) -> dict[str, str]:
    if not isinstance(value, Mapping) or not all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise SettingError("tokenizers", f"must map aliases to tokenizer locations (got {value!r})")
    return dict(value)


def _integer(name: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingError(name, f"must be an integer (got {value!r})")
