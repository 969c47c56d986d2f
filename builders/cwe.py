"""Common-words-extraction examples (SPEC §4 CWE).

Words: a seeded permutation of the language's pool; the first 10 are the common words. Item order:
every occurrence (word slot s, repetition r) gets a random key from a stream that depends only on
(task, length, index, seed, s, r); items are listed in key order. So the arrangement of the common
words is the same in every language, and adding a word only inserts its own occurrences — which
keeps the token count monotone in the number of words for the budget search.
"""

from __future__ import annotations

import numpy as np

from .budget import _last_true, fit_units
from .configs import ConfigSpec
from .haystack import numbering_prefix, prepared_pool
from .rng import StableRng
from .sources import Sources
from .tasks import CweSpec
from .tokenizer import Tokenizer


def item_order(task: CweSpec, length: int, index: int, seed: int, n_words: int) -> np.ndarray:
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


def render_cwe(spec: ConfigSpec, task: CweSpec, index: int, seed: int, sources: Sources, tokenizer: Tokenizer) -> dict:
    """Fill the word list to the budget and return the row's content fields."""
    lang = spec.context_language
    f_cw, f_ucw = task.frequencies(spec.length)
    pool = prepared_pool(sources, lang, tokenizer)
    # A uniformly random order of the pool: sort by keys from the draw's stream (vectorised).
    keys = StableRng("oneruler-cwe-words", seed, task.name, spec.length, index).u64_array("order", len(pool.words))
    perm = np.argsort(keys, kind="stable")
    words = [pool.words[i] for i in perm.tolist()]
    costs = np.asarray(pool.costs, dtype=np.int64)[perm]
    n_max = len(words)

    def n_items(n: int) -> int:
        return min(n, task.num_common) * f_cw + max(0, n - task.num_common) * f_ucw

    numbering = numbering_prefix(sources, tokenizer, n_items(n_max))
    freq = np.full(n_max, f_ucw, dtype=np.int64)
    freq[: task.num_common] = f_cw
    word_prefix = np.concatenate([[0], np.cumsum(costs * freq)]).tolist()

    template = sources.cwe_template(lang)
    head, tail = template.text.split("{context}")
    overhead = tokenizer.count(head) + tokenizer.count(tail)
    budget = spec.length - task.reserve

    def estimate(n: int) -> int:
        return overhead + word_prefix[n] + numbering[n_items(n)]

    # Item keys only for the slots the search can plausibly reach (extended if it goes further).
    order_for = {"n": 0, "order": None}

    def order(n: int) -> np.ndarray:
        if n > order_for["n"]:
            guess = max(task.num_common, _last_true(task.num_common, n_max, lambda x: estimate(x) <= budget))
            reach = n_max if n > guess else min(n_max, guess + guess // 16 + 16)
            order_for.update(n=reach, order=item_order(task, spec.length, index, seed, reach))
        return order_for["order"]

    def assemble(n: int) -> str:
        slots = order(n)
        listed = [words[slot] for slot in slots[slots < n].tolist()]
        return " ".join(f"{i}. {w}" for i, w in enumerate(listed, start=1))

    def measure(n: int) -> tuple[int, str]:
        context = assemble(n)
        return tokenizer.count(head + context + tail), context

    def unit_cost(n: int) -> int:
        if n >= n_max:
            return 0
        m = n_items(n)
        return f_ucw * int(costs[n]) + numbering[m + f_ucw] - numbering[m]

    fit = fit_units(
        budget=budget,
        estimate=estimate,
        unit_cost=unit_cost,
        measure=measure,
        k_min=task.num_common,
        k_max=n_max,
        what=spec.name,
    )
    context = fit.payload
    return {
        "input": head + context + tail,
        "answers": words[: task.num_common],
        "num_tokens": fit.tokens,
        "needles": [],
        "queries": [],
        "context_span": [len(head), len(head) + len(context)],
        "num_units": fit.units,
        "budget": budget,
        "reserve": task.reserve,
        "cwe_freq_common": f_cw,
        "cwe_freq_uncommon": f_ucw,
        "cwe_pool_size": n_max,
        "cwe_pool_exhausted": fit.units == n_max,
    }
