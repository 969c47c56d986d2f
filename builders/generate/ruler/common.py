"""What RULER's generators share beyond the prompt frame (``frame.py``) and the fit (``fit.py``).

- ``FixedOrder``: RULER's fixed-seed shuffle (``random.Random(seed).shuffle``: the same permutation for every
  sample of a config) as one order key per list slot, fixed per (task, seed, length); a list of n slots is listed
  in the order of its first n keys, so a longer list only inserts its new slots (the budget search stays
  monotone). RULER's permutation depends on the list's length alone, so a slot's place differs from one length
  to another: the generators key the order by the config's length too (else the gold document of QA would sit at
  the same depth at every length).
- ``random_order``: RULER's ``random.sample(population, k)`` as the first k of a row's random order.
- ``ruler_template``: a task's template, its ``tokens_to_generate`` checked against the task's reserve.
- ``source_for``: a missing source named for the config that needs it (one line: the config, the source, how to
  get it).
- ``NumberCosts``: the tokens of `` 1.``, `` 2.``, … (list markers, document numbers), kept per tokenizer.
"""

from __future__ import annotations

from dataclasses import replace
from itertools import accumulate
from typing import Callable, TypeVar

import numpy as np

from ...base.errors import OneRulerError
from ...sources.mirror import MissingSource
from ...sources.ruler.instructions import ruler_instructions
from ...sources.ruler.tasks import RulerTasks, RulerTemplate
from ...spec.configs import ConfigSpec
from ...spec.families.ruler import RulerTask
from ..rng import StableRng
from ..tokenizer import Tokenizer

T = TypeVar("T")


def ruler_template(tasks: RulerTasks, task: RulerTask, family: str | None = None) -> RulerTemplate:
    """A task's template in RULER's ``constants.py`` (its own RULER task's, else ``family``'s), checked to keep free
    the tokens RULER generates (the task record's reserve)."""
    template = tasks.template(task.ruler_name) if task.ruler_name is not None else tasks.templates[family]
    if template.tokens_to_generate != task.reserve:
        raise OneRulerError(f"task {task.name!r}: RULER's tokens_to_generate is {template.tokens_to_generate}, the "
                            f"task record reserves {task.reserve}")
    return template


def in_language(template: RulerTemplate, tasks: RulerTasks, language: str) -> RulerTemplate:
    """RULER's ``template`` with its instruction and answer prefix in ``language``: RULER's own for English, else the
    checked native-speaker translation of ``translations/ruler/`` (a config name in that language is valid only when
    one exists; a broken one is one line)."""
    if language == "en":
        return template
    said = ruler_instructions(tasks, template.family, language)
    if said.language != language:
        raise OneRulerError(f"RULER's {template.family} instructions have no checked translation in {language!r} "
                            f"(translations/ruler/{language}.yaml; docs/translating.md)")
    return replace(template, template=said.template(), answer_prefix=said.answer_prefix())


def source_for(spec: ConfigSpec, what: str, read: Callable[[], T]) -> T:
    """``read()``, with a missing pinned file named for the config that needs it (one line, the fetcher's advice)."""
    try:
        return read()
    except MissingSource as exc:
        raise MissingSource(f"config {spec.name}: needs {what}: {exc}") from None


class FixedOrder:
    """RULER's ``random.Random(seed).shuffle`` of a list, the same for every row: slot j of the list (its place
    before the shuffle) gets key j of a stream fixed per (``parts``: task, seed, which list); the listed order is
    the slots' in increasing key. Keys are drawn on demand (a longer stream extends a shorter one)."""

    def __init__(self, *parts: object):
        self._rng = StableRng("ruler-fixed-shuffle", *parts)
        self._keys = np.zeros(0, dtype=np.uint64)
        self._last = np.zeros(0, dtype=np.int64)

    def keys(self, n: int, stream: str = "slots") -> np.ndarray:
        """The keys of slots 0..n-1 of a named stream (``slots``: the list's own)."""
        if stream != "slots":
            return self._rng.u64_array(stream, n)
        if len(self._keys) < n:
            self._keys = self._rng.u64_array("slots", max(n, 2 * len(self._keys)))
            self._last = running_argmax(self._keys)
        return self._keys[:n]

    def order(self, n: int) -> np.ndarray:
        """The slots of a list of n in listed order (a permutation of range(n))."""
        return np.argsort(self.keys(n), kind="stable")

    def last_slot(self, n: int) -> int:
        """The slot listed last in a list of n."""
        self.keys(n)
        return int(self._last[n - 1])


def running_argmax(values: np.ndarray) -> np.ndarray:
    """``out[j]``: the index of the largest of ``values[:j + 1]`` (the first on a tie)."""
    if not len(values):
        return np.zeros(0, dtype=np.int64)
    best = np.maximum.accumulate(values)
    first = np.concatenate([[True], best[1:] != best[:-1]])
    return np.maximum.accumulate(np.where(first, np.arange(len(values)), 0))


def random_order(n: int, *parts: object) -> np.ndarray:
    """A uniformly random order of range(n) for one row (``parts``: what the draw depends on): its first k are
    RULER's ``random.sample(range(n), k)``, for every k at once."""
    return np.argsort(StableRng(*parts).u64_array("order", n), kind="stable")


class NumberCosts:
    """``prefix(n)[m]``: the tokens of ``f" {i}{suffix}"`` summed over i = 1..m, grown on demand (one per tokenizer
    and suffix: list markers `` 1.``, document numbers `` 1``)."""

    def __init__(self, tokenizer: Tokenizer, suffix: str):
        self.tokenizer, self.suffix = tokenizer, suffix
        self._prefix = [0]

    def prefix(self, n: int) -> list[int]:
        """The prefix sums up to at least n numbers."""
        if len(self._prefix) <= n:
            start = len(self._prefix)
            costs = self.tokenizer.count_batch([f" {i}{self.suffix}" for i in range(start, max(n, 2 * start) + 1)])
            self._prefix = self._prefix + list(accumulate(costs, initial=self._prefix[-1]))[1:]
        return self._prefix
