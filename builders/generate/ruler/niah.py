"""RULER's retrieval tasks (``scripts/data/synthetic/niah.py`` of NVIDIA/RULER), as RULER makes them.

A row of ``ruler_niah_*`` follows RULER's rules, its settings read from ``synthetic.yaml`` and its template,
answer prefix and ``tokens_to_generate`` from ``constants.py`` (``sources/ruler/``):

- keys and values of RULER's kinds (``keys.py``); ``max(num_needle_k, num_needle_q)`` keys, each with
  ``num_needle_v`` values, one needle per value, key by key, in niah.py's needle format (read from that file:
  ``sources/ruler/texts.py``); the needles then put in one fixed order for every row of a config (RULER's
  ``random.Random(seed).shuffle``: the same permutation for every sample);
- the haystack (``haystacks.py``): ``noise`` lines or distractor needles joined by newlines, each needle
  before a line drawn uniformly (RULER's ``random.sample(range(N), k)``), or the essays' sentences with needles
  at depths drawn from RULER's 40-point grid;
- ``num_needle_q`` keys queried in a random order, joined ``a, b, c, and d``; the answers their values, key by
  key; where one value is asked, RULER's template rewritten in the singular by niah.py's replacements (read from
  that file, in order) and the value's kind without its ``s``.

Where RULER's draws are left to chance the project's are not: keys are distinct, values are distinct, and a
distractor's key is never a real key (RULER draws each independently; docs/generation.md counts how rarely
that matters). Every draw comes from the project's stable RNG, per row (``StableRng``), so a row is a pure
function of (config, index, seed, sources, tokenizer).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...base.errors import OneRulerError
from ...sources.ruler.instructions import singular
from ...spec.configs import ConfigSpec
from ...spec.families.ruler import RulerTask
from ..material import RowMaterial
from ..niah import DEPTHS
from ..rng import StableRng
from .fit import fit_tight
from .frame import ruler_frame
from .haystacks import Haystack, make_haystack
from .keys import draw_distinct

def query_text(queries: list[str]) -> str:
    """RULER's join of the queried keys: ``a``, ``a, and b``, ``a, b, c, and d``."""
    return ", ".join(queries[:-1]) + ", and " + queries[-1] if len(queries) > 1 else queries[0]


@dataclass(frozen=True)
class NiahDraw:
    """The random part of one row: each key with its values (draw order), the needles in RULER's order (after its
    fixed shuffle) as (key, value, text), the queried keys' indices (query order), the grid depths drawn (one per
    needle, for the essay haystack) and the draws rejected as repeats."""

    keys: tuple[str, ...]
    values: tuple[tuple[str, ...], ...]
    needles: tuple[tuple[str, str, str], ...]
    queried: tuple[int, ...]
    depths: tuple[int, ...]
    rejected: int

    @property
    def answers(self) -> list[str]:
        """The values of the queried keys, key by key (RULER's ``outputs``)."""
        return [v for i in self.queried for v in self.values[i]]


def needle_order(task: str, length: int, seed: int, n: int) -> list[int]:
    """The fixed order RULER gives the needles of every row of a config (``random.Random(seed).shuffle``)."""
    return StableRng("ruler-niah-needle-order", seed, task, length).permutation(n)


def draw_niah(task: RulerTask, args: dict, material: RowMaterial, length: int, index: int, seed: int) -> NiahDraw:
    """Keys, values, needles, queries and grid depths of one row (``args``: the task's synthetic.yaml settings)."""
    rng = StableRng("ruler-niah", seed, task.name, length, index)
    niah_keys = material.ruler.niah_keys if "words" in (args["type_needle_k"], args["type_needle_v"]) else None
    needle = material.ruler.texts.needle
    n_keys = max(args["num_needle_k"], args["num_needle_q"])
    keys: list[str] = []
    values: list[tuple[str, ...]] = []
    needles: list[tuple[str, str, str]] = []
    taken_keys: set[str] = set()
    taken_values: set[str] = set()
    rejected = 0
    for _ in range(n_keys):
        key, redraws = draw_distinct(args["type_needle_k"], rng, niah_keys, taken_keys)
        rejected += redraws
        drawn = []
        for _ in range(args["num_needle_v"]):
            value, redraws = draw_distinct(args["type_needle_v"], rng, niah_keys, taken_values)
            rejected += redraws
            drawn.append(value)
            needles.append((key, value, needle.format(type_needle_v=args["type_needle_v"], key=key, value=value)))
        keys.append(key)
        values.append(tuple(drawn))
    order = needle_order(task.name, length, seed, len(needles))
    queried = tuple(rng.sample(n_keys, args["num_needle_q"]))
    depths = tuple(DEPTHS[i] for i in rng.sample(len(DEPTHS), len(needles))) if len(needles) <= len(DEPTHS) else ()
    return NiahDraw(tuple(keys), tuple(values), tuple(needles[i] for i in order), queried, depths, rejected)


def frame_of(task: RulerTask, args: dict, material: RowMaterial, draw: NiahDraw):
    """RULER's prompt around the haystack for this draw: singular when one value is asked."""
    tasks = material.ruler.tasks
    template = tasks.template(task.ruler_name)
    one = args["num_needle_q"] * args["num_needle_v"] == 1
    kind = args["type_needle_v"][:-1] if one else args["type_needle_v"]
    query = query_text([draw.keys[i] for i in draw.queried])
    return ruler_frame(template, {"type_needle_v": kind, "query": query},
                       (lambda text: singular(text, tasks.singular)) if one else None)


def ruler_niah_fields(spec: ConfigSpec, task: RulerTask, index: int, seed: int, material: RowMaterial) -> dict:
    """The content fields of one RULER NIAH row (those of the RULER NIAH family)."""
    setting = material.ruler.tasks.setting(task.ruler_name)
    args = dict(setting.args)
    if setting.family != "niah":
        raise OneRulerError(f"task {task.name!r}: RULER's {task.ruler_name} is a {setting.family} task, not niah")
    draw = draw_niah(task, args, material, spec.length, index, seed)
    frame = frame_of(task, args, material, draw)
    haystack: Haystack = make_haystack(args, spec, task, index, seed, draw, frame, material)
    fit = fit_tight(spec, task.reserve, haystack.estimate, haystack.measure, haystack.k_min, haystack.k_max(),
                    haystack.unit)
    context, needles = haystack.render(fit.payload)
    return {
        "input": frame.head + context + frame.tail,
        "answers": draw.answers,
        "num_tokens": fit.tokens,
        "needles": needles,
        "queries": [draw.keys[i] for i in draw.queried],
        "context_span": [len(frame.head), len(frame.head) + len(context)],
        "num_units": fit.units,
        "budget": spec.length - task.reserve,
        "reserve": task.reserve,
        "answer_prefix": frame.answer_prefix,
    }
