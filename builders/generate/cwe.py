"""Common-words-extraction examples (SPEC §4 CWE).

Words: a seeded permutation of the language's pool; the first 10 are the common words. Item order:
every occurrence (word slot s, repetition r) gets a random key from a stream that depends only on
(task, length, index, seed, s, r); items are listed in key order. So the arrangement of the common
words is the same in every language, and adding a word only inserts its own occurrences — which
keeps the token count monotone in the number of words for the budget search.
"""

from __future__ import annotations

import numpy as np

from ..spec.configs import ConfigSpec
from ..spec.families.cwe import CweTask
from .budget import fit_units, last_true
from .material import RowMaterial
from .prepared import PreparedCache
from .rng import StableRng
from .tokenizer import Tokenizer


def item_order(task: CweTask, length: int, index: int, seed: int, n_words: int) -> np.ndarray:
    """Word slot of each list item for the first n_words slots, in list order.

    Occurrence r of common slot c has key ``common[c * f_cw + r]``, occurrence r of uncommon slot s
    has key ``uncommon[(s - 10) * f_ucw + r]``; items are sorted by key. The keys do not depend on the
    language or on n_words, so the list for fewer words is the same list with some items removed.
    """
    f_cw, f_ucw = task.frequencies(length)
    rng = StableRng("oneruler-cwe-positions", seed, task.name, length, index)
    n_common = min(n_words, task.num_common)
    n_uncommon = max(0, n_words - task.num_common)
    keys = np.concatenate([rng.u64_array("common", task.num_common * f_cw)[: n_common * f_cw],
                           rng.u64_array("uncommon", n_uncommon * f_ucw)])
    slots = np.concatenate([np.repeat(np.arange(n_common), f_cw),
                            task.num_common + np.repeat(np.arange(n_uncommon), f_ucw)])
    return slots[np.argsort(keys, kind="stable")]


def list_items(task: CweTask, length: int, n: int) -> int:
    """List items of a CWE list of n words at ``length``: the common words repeat f_cw times, the others f_ucw."""
    f_cw, f_ucw = task.frequencies(length)
    return min(n, task.num_common) * f_cw + max(0, n - task.num_common) * f_ucw


class CweList:
    """The word list of one CWE example: a shuffled pool, costs per word, and the list for n words.

    ``room``: the tokens the list may take (the budget minus the template's), which bounds how far the item
    order is computed."""

    def __init__(self, spec: ConfigSpec, task: CweTask, index: int, seed: int, prepared: PreparedCache,
                 tokenizer: Tokenizer, room: int):
        self.spec, self.task, self.index, self.seed, self.room = spec, task, index, seed, room
        self.f_cw, self.f_ucw = task.frequencies(spec.length)
        pool = prepared.pool(spec.context_language, tokenizer)
        # A uniformly random order of the pool: sort by keys from the draw's stream (vectorised).
        keys = StableRng("oneruler-cwe-words", seed, task.name, spec.length, index).u64_array("order", len(pool.words))
        perm = np.argsort(keys, kind="stable")
        self.words = [pool.words[i] for i in perm.tolist()]
        self.costs = np.asarray(pool.costs, dtype=np.int64)[perm]
        self.n_max = len(self.words)
        self.numbering = prepared.numbering_prefix(tokenizer, self.n_items(self.n_max))
        freq = np.full(self.n_max, self.f_ucw, dtype=np.int64)
        freq[: task.num_common] = self.f_cw
        self.word_prefix = np.concatenate([[0], np.cumsum(self.costs * freq)]).tolist()
        self._order_reach = 0
        self._order: np.ndarray | None = None

    def n_items(self, n: int) -> int:
        """List items for the first n words (common words repeat f_cw times, the others f_ucw)."""
        return list_items(self.task, self.spec.length, n)

    def estimate(self, n: int) -> int:
        """Estimated tokens of the list of n words (words and markers, without the template)."""
        return self.word_prefix[n] + self.numbering[self.n_items(n)]

    def unit_cost(self, n: int) -> int:
        """Estimated tokens that word n adds (all its occurrences and their markers)."""
        if n >= self.n_max:
            return 0
        m = self.n_items(n)
        return self.f_ucw * int(self.costs[n]) + self.numbering[m + self.f_ucw] - self.numbering[m]

    def fits(self, n: int) -> bool:
        """Whether the estimate of the list of n words fits its room."""
        return self.estimate(n) <= self.room

    def order(self, n: int) -> np.ndarray:
        """Item order for at least n words; keys only for the slots the search can plausibly reach."""
        if n > self._order_reach:
            guess = max(self.task.num_common, last_true(self.task.num_common, self.n_max, self.fits))
            reach = self.n_max if n > guess else min(self.n_max, guess + guess // 16 + 16)
            self._order_reach = reach
            self._order = item_order(self.task, self.spec.length, self.index, self.seed, reach)
        return self._order

    def render(self, n: int) -> str:
        """``1. w 2. w …`` for the first n words of the pool order."""
        slots = self.order(n)
        listed = [self.words[slot] for slot in slots[slots < n].tolist()]
        return " ".join(f"{i}. {w}" for i, w in enumerate(listed, start=1))


def render_cwe(spec: ConfigSpec, task: CweTask, index: int, seed: int, material: RowMaterial) -> dict:
    """Fill the word list to the budget and return the row's content fields (those of the CWE family)."""
    sources, tokenizer, prepared = material.sources, material.tokenizer, material.prepared
    head, tail = sources.cwe_template(spec.context_language).frame
    overhead = tokenizer.count(head) + tokenizer.count(tail)
    budget = spec.length - task.reserve
    words = CweList(spec, task, index, seed, prepared, tokenizer, budget - overhead)

    def estimate(n: int) -> int:
        return overhead + words.estimate(n)

    # Exact count by construction: every list of n words counts its estimate plus one fixed
    # correction (prepared.list_correction); None: tokenise each candidate list whole.
    correction = prepared.list_correction(spec.context_language, tokenizer, head, tail)

    def measure(n: int) -> tuple[int, str | None]:
        if correction is not None:
            return estimate(n) + correction, None
        context = words.render(n)
        return tokenizer.count(head + context + tail), context

    fit = fit_units(budget=budget, estimate=estimate, unit_cost=words.unit_cost, measure=measure,
                    k_min=task.num_common, k_max=words.n_max, what=spec.name)
    context = fit.payload if fit.payload is not None else words.render(fit.units)
    return {
        "input": head + context + tail,
        "answers": words.words[: task.num_common],
        "num_tokens": fit.tokens,
        "needles": [],
        "queries": [],
        "context_span": [len(head), len(head) + len(context)],
        "num_units": fit.units,
        "budget": budget,
        "reserve": task.reserve,
        "cwe_freq_common": words.f_cw,
        "cwe_freq_uncommon": words.f_ucw,
        "cwe_pool_size": words.n_max,
        "cwe_pool_exhausted": fit.units == words.n_max,
    }
