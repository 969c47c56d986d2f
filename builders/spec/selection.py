"""Config globs over the named grids: ``match_configs`` (what ``build``, ``list`` and the tasks select) and,
for a glob that selects nothing, a message saying why and what would select something."""

from __future__ import annotations

import dataclasses
import fnmatch
from typing import Iterable

from ..base.errors import named_setting
from .configs import (MAX_LENGTH, MIN_BARE_LENGTH, STANDARD_LENGTHS, ConfigNameError, ConfigSpec, did_you_mean,
                      parse_config_name, parse_length, render_length, too_long)
from .defaults import BUILTIN_ALIASES
from .grids import DEFAULT_GRID, GRIDS, get_grid, grid_configs
from .languages import CROSS_LINGUAL_LANGUAGES, LANGUAGE_CODES, LANGUAGES


def is_glob(pattern: str) -> bool:
    """Whether a config pattern has wildcards (``*``, ``?``, ``[``); one without any is a config name."""
    return any(ch in pattern for ch in "*?[")


def glob_matches(pattern: str, names: Iterable[str]) -> list[str]:
    """The names a config glob selects, in their order (``fnmatch``, case-sensitive): the one matcher of config
    globs, over a grid here and over a dataset's configs in ``dataset/source.py``."""
    return [name for name in names if fnmatch.fnmatchcase(name, pattern)]


def match_configs(patterns: Iterable[str], aliases: Iterable[str] | None = None, grid_name: str = DEFAULT_GRID) -> list[ConfigSpec]:
    """Expand glob patterns over a named grid (``spec/grids.py``: standard, depth, evidence); a pattern
    without wildcards is parsed as a name.

    A concrete name outside the grid (``pl_s_niah_256k``, ``en_s_niah_8k_llama3``) is accepted if valid.
    A glob that matches nothing is an error.
    """
    grid = grid_configs(grid_name)
    by_name = {c.name: c for c in grid}
    known_aliases = set(BUILTIN_ALIASES) | set(aliases or ())
    out: dict[str, ConfigSpec] = {}
    for pattern in patterns:
        if is_glob(pattern):
            # A glob ending in _{alias} selects the token-control twins of the matching grid configs.
            base, _, last = pattern.rpartition("_")
            alias = last if base and last in known_aliases else None
            glob = base if alias else pattern
            hits = [by_name[name] for name in glob_matches(glob, by_name)]
            if not hits:
                raise ConfigNameError(no_match_message(pattern, glob, alias, grid, grid_name))
            for c in hits:
                if alias:
                    c = dataclasses.replace(c, tokenizer_alias=alias)
                out.setdefault(c.name, c)
        else:
            c = parse_config_name(pattern, aliases)
            out.setdefault(c.name, c)
    return list(out.values())


def _length_hint(glob: str, alias: str | None, grid: list[ConfigSpec]) -> str | None:
    """The hint for a glob whose last part is a literal length outside the standard grid."""
    head, _, last = glob.rpartition("_")
    if not head or is_glob(last):
        return None
    try:
        length = parse_length(last)
    except ConfigNameError:
        return None
    if length in STANDARD_LENGTHS:
        return None
    if length > MAX_LENGTH:
        return too_long(length)
    suffix = f"_{alias}" if alias else ""
    if last.isdigit() and length < MIN_BARE_LENGTH:
        return f"{last} means {length} tokens; did you mean '{head}_{last}k{suffix}'?"
    standard = ", ".join(render_length(n) for n in STANDARD_LENGTHS)
    example = next(iter(glob_matches(f"{head}_8k", (c.name for c in grid))), None)
    by_name = f", e.g. `oneruler build {example[:-3]}_{last}{suffix}`" if example else ""
    return (f"{last} is not a standard length ({standard}) but any length can be built by name{by_name}; "
            f"globs select from the grid, e.g. '{head}_128k{suffix}'")


def _language_hint(glob: str) -> str | None:
    """The hint for a glob whose language part is literal and not a language of the benchmark."""
    head = glob.split("_", 1)[0]
    if is_glob(head):
        return None
    codes = head.split("-")
    unknown = next((code for code in codes if code not in LANGUAGES), None)
    if unknown is not None:
        return f"unknown language {unknown!r}{did_you_mean(unknown, LANGUAGE_CODES)}; valid: {', '.join(LANGUAGE_CODES)}"
    if len(codes) == 2 and codes[0] == codes[1]:
        return f"context and instruction language are both {codes[0]!r}; write '{codes[0]}_{glob.partition('_')[2]}'"
    if len(codes) == 2:
        return (f"the grid's cross-lingual configs pair {', '.join(CROSS_LINGUAL_LANGUAGES)} only; "
                f"other pairs can be built by name, e.g. {head}_s_niah_8k")
    return None


def _sweep_hint(glob: str) -> str | None:
    """The hint for a glob written for another grid (a depth part, a K-value task) but read over the standard grid."""
    for grid in GRIDS.values():
        if grid.marks is not None and grid.marks.search(glob):
            return (f"{grid.holds} configs are in the {grid.name} grid: add {named_setting('grid')} {grid.name} "
                    f"(`oneruler list --grid {grid.name}` lists them)")
    return None


def no_match_message(pattern: str, glob: str, alias: str | None, grid: list[ConfigSpec], grid_name: str = DEFAULT_GRID) -> str:
    """Why a glob selects nothing, and globs that would select something: an error's message, the settings it names
    marked (``named_setting``)."""
    hint = (_sweep_hint(glob) or _length_hint(glob, alias, grid) or _language_hint(glob)) if grid_name == DEFAULT_GRID \
        else None
    if hint is None:
        hint = (f"globs select from the {grid_name} grid, e.g. {get_grid(grid_name).glob_examples}; "
                f"`oneruler list {'' if grid_name == DEFAULT_GRID else f'--grid {grid_name} '}GLOB` shows what a glob selects")
    return f"pattern {pattern!r} matches no config of the {grid_name} grid: {hint}"
