"""The named grids of configs, as records (``Grid``): ``standard`` (the paper's), ``depth`` (fixed-depth sweeps)
and ``evidence`` (multi-evidence). The CLI's ``--grid`` choices, the hints when a glob selects nothing, the
lm-eval groups and the Hub leaderboards' pools all read ``GRIDS``.

- ``depth``: s_niah with its needle at 0, 10, …, 100 % (``_at{D}``) for every language at 8k, 32k,
  64k and 128k (the NIAH heatmaps of Kamradt, NeedleBench, NoLiMa), then CROSS / mLongRR's five
  depths 0, 25, 50, 75, 100 for the six en/pl/ko cross-lingual pairs at the same lengths.
- ``evidence``: ``mv{K}e_niah``, K values evenly spaced (Counting-Stars), K ∈ {8, 16, 32, 64}, for
  every language at 32k and 128k.
- ``ruler``: RULER's 13 English tasks (Hsieh et al., 2024) in RULER's order × its six lengths, powers of two
  4096 … 131072, where its published table is measured (78 configs).
- ``ruler_xling``: RULER's categories across languages at the same six lengths, with RULER's English instruction:
  variable tracking in the 25 other languages' books (``pl-en_ruler_vt_32768``, 150), then QA over XQuAD in its
  six ONERULER languages and English (``de-en_ruler_qa_xquad_8192``, ``en_ruler_qa_xquad_8192``, 42): 192 configs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Iterator

from .configs import STANDARD_LENGTHS, ConfigNameError, ConfigSpec, cross_lingual_pairs, iter_standard_configs, render_length
from .families import ruler_cwe, ruler_fwe, ruler_niah, ruler_qa, ruler_vt
from .languages import LANGUAGE_CODES
from .tasks import MAIN_TASKS, TASKS

SWEEP_DEPTHS: tuple[int, ...] = tuple(range(0, 101, 10))
CROSS_DEPTHS: tuple[int, ...] = (0, 25, 50, 75, 100)
EVIDENCE_VALUES: tuple[int, ...] = (8, 16, 32, 64)
EVIDENCE_LENGTHS: tuple[int, ...] = (32_000, 128_000)
RULER_LENGTHS: tuple[int, ...] = (4096, 8192, 16384, 32768, 65536, 131072)
# RULER's 13 tasks in its order (synthetic.yaml): each family's tasks that are RULER's own (not ruler_qa_xquad).
RULER_TASKS: tuple[str, ...] = tuple(t.name for family in (ruler_niah, ruler_vt, ruler_cwe, ruler_fwe, ruler_qa)
                                     for t in family.TASKS if t.ruler_name is not None)

Groups = dict[str, list[ConfigSpec]]  # a grid's sub-pools by suffix ("": the grid's own pool)


@dataclass(frozen=True)
class Grid:
    """A named grid: its configs in order, its sub-pools, and what tells a user about it.

    ``groups`` are the grid's pools by suffix (``""``: the whole pool, ``pl``, ``xling``, ``k16``; lm-eval
    groups, the Hub leaderboards), ``group`` the name those carry (the standard grid's: none);
    ``summary`` is the ``--grid`` help's words, ``glob_examples`` the globs a hint suggests, ``holds``
    and ``marks`` what tells a glob meant for this grid (``_at50``) when it is read over the standard one.
    """

    name: str
    summary: str
    configs: Callable[[], Iterator[ConfigSpec]]
    groups: Callable[[list[ConfigSpec]], Groups]
    glob_examples: str
    group: str = ""
    holds: str = ""
    marks: re.Pattern[str] | None = None


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


def iter_ruler_configs() -> Iterator[ConfigSpec]:
    """RULER's grid: its 13 English tasks × 4096 … 131072 (78), task by task."""
    for task in RULER_TASKS:
        for length in RULER_LENGTHS:
            yield ConfigSpec("en", task, length)


# XQuAD's languages that are ONERULER's (ruler_qa_xquad's context languages), English last as in the issue.
XQUAD_LANGUAGES: tuple[str, ...] = ("de", "es", "hi", "ru", "vi", "zh", "en")


def iter_ruler_xling_configs() -> Iterator[ConfigSpec]:
    """RULER's categories across languages (192): VT in each of the 25 other languages' books, then QA over XQuAD in
    de, es, hi, ru, vi, zh and en; each × RULER's six lengths, with RULER's English instruction."""
    for lang in LANGUAGE_CODES:
        if lang != "en":
            for length in RULER_LENGTHS:
                yield ConfigSpec(lang, "ruler_vt", length, "en")
    for lang in XQUAD_LANGUAGES:
        for length in RULER_LENGTHS:
            yield ConfigSpec(lang, "ruler_qa_xquad", length, "en")


def is_main(spec: ConfigSpec) -> bool:
    """A config of the paper's main grid (7 tasks, same language for context and instructions)."""
    return not spec.is_cross_lingual and spec.task in MAIN_TASKS


def _standard_groups(specs: list[ConfigSpec]) -> Groups:
    """The main grid (""), a language's main configs, a task's monolingual configs, one length's main configs, the
    cross-lingual pairs."""
    main = [s for s in specs if is_main(s)]
    out: Groups = {"": main}
    out.update({lang: [s for s in main if s.context_language == lang] for lang in LANGUAGE_CODES})
    out.update({task: [s for s in specs if s.task == task and not s.is_cross_lingual] for task in TASKS})
    out.update({render_length(n): [s for s in main if s.length == n] for n in STANDARD_LENGTHS})
    out["xling"] = [s for s in specs if s.is_cross_lingual]
    return out


def _depth_groups(specs: list[ConfigSpec]) -> Groups:
    """All depths (""), a language's s_niah depths, CROSS's pairs."""
    out: Groups = {"": list(specs)}
    out.update({lang: [s for s in specs if s.languages == lang] for lang in LANGUAGE_CODES})
    out["xling"] = [s for s in specs if s.is_cross_lingual]
    return out


def _evidence_groups(specs: list[ConfigSpec]) -> Groups:
    """All of it (""), one K."""
    out: Groups = {"": list(specs)}
    out.update({f"k{k}": [s for s in specs if s.task == f"mv{k}e_niah"] for k in EVIDENCE_VALUES})
    return out


def _ruler_xling_groups(specs: list[ConfigSpec]) -> Groups:
    """All of it (""), one task (``vt``, ``qa_xquad``), one context language (``pl``), one length (``4096``)."""
    out: Groups = {"": list(specs)}
    out.update({task.removeprefix("ruler_"): [s for s in specs if s.task == task]
                for task in ("ruler_vt", "ruler_qa_xquad")})
    out.update({lang: [s for s in specs if s.context_language == lang] for lang in LANGUAGE_CODES})
    out.update({render_length(n): [s for s in specs if s.length == n] for n in RULER_LENGTHS})
    return out


def _ruler_groups(specs: list[ConfigSpec]) -> Groups:
    """All of it (""), one task (RULER's name: ``niah_single_1``), one length (``4096``)."""
    out: Groups = {"": list(specs)}
    out.update({task.removeprefix("ruler_"): [s for s in specs if s.task == task] for task in RULER_TASKS})
    out.update({render_length(n): [s for s in specs if s.length == n] for n in RULER_LENGTHS})
    return out


GRIDS: dict[str, Grid] = {grid.name: grid for grid in (
    Grid("standard", "the paper's 952 configs", iter_standard_configs, _standard_groups,
         "'pl_*' (one language), '*_s_niah_*' (one task), '*_128k' (one length), 'ko-*' (cross-lingual)"),
    Grid("depth", "fixed-depth sweeps", iter_depth_configs, _depth_groups,
         "'pl_*' (one language), '*_at50' (one depth), '*_32k_*' (one length), 'ko-*' (CROSS pairs)",
         group="depth", holds="fixed-depth", marks=re.compile(r"_at[0-9*?\[]")),
    Grid("evidence", "mv{K}e_niah", iter_evidence_configs, _evidence_groups,
         "'pl_*' (one language), '*_mv16e_*' (one K), '*_128k' (one length)",
         group="evidence", holds="multi-evidence", marks=re.compile(r"_mv[0-9*?\[]")),
    Grid("ruler", "RULER's 13 English tasks × 4096 … 131072 (78 configs)", iter_ruler_configs, _ruler_groups,
         "'*_niah_*' (retrieval), '*_ruler_vt_*' (one task), '*_131072' (one length)",
         group="ruler", holds="RULER", marks=re.compile(r"(?<!-en_)ruler_(?!qa_xquad)")),
    Grid("ruler_xling", "RULER's VT in 25 languages' books and QA over XQuAD in 7, English instructions × 4096 … "
         "131072 (192 configs)", iter_ruler_xling_configs, _ruler_xling_groups,
         "'pl-*' (one language), '*_ruler_vt_*' (one task), '*_131072' (one length)",
         group="ruler_xling", holds="RULER's cross-lingual", marks=re.compile(r"-en_ruler_|ruler_qa_xquad")),
)}
DEFAULT_GRID = "standard"


def get_grid(name: str) -> Grid:
    """The grid called ``name``; ConfigNameError naming the valid grids."""
    if name not in GRIDS:
        raise ConfigNameError(f"unknown grid {name!r}; valid: {', '.join(GRIDS)}")
    return GRIDS[name]


def grid_configs(name: str) -> list[ConfigSpec]:
    """The configs of a named grid, in grid order; ConfigNameError naming the valid grids."""
    return list(get_grid(name).configs())


def grid_groups(name: str) -> Groups:
    """A grid's non-empty sub-pools by suffix, in the grid's order (``""``: its own pool)."""
    return {suffix: specs for suffix, specs in get_grid(name).groups(grid_configs(name)).items() if specs}
