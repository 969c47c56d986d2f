"""Common-words-extraction examples (SPEC §4 CWE).

Words: a seeded permutation of the language's pool; the first 10 are the common words. Item order:
every occurrence (word slot s, repetition r) gets a random key from a stream that depends only on
(task, length, index, seed, s, r); items are listed in key order. So the arrangement of the common
words is the same in every language, and adding a word only inserts its own occurrences — which
keeps the token count monotone in the number of words for the budget search.
"""

from __future__ import annotations

from .budget import fit_units
from .configs import ConfigSpec
from .haystack import numbering_prefix, prepared_pool
from .rng import StableRng
from .sources import Sources
from .tasks import CweSpec
from .tokenizer import Tokenizer


def item_keys(task: CweSpec, length: int, index: int, seed: int, n_words: int) -> list[tuple[int, int]]:
    """(key, word slot) for every occurrence of the first n_words slots, sorted by key."""
    f_cw, f_ucw = task.frequencies(length)
    rng = StableRng("oneruler-cwe-positions", seed, task.name, length, index)
    items = []
    for slot in range(min(n_words, task.num_common)):
        for r in range(f_cw):
            items.append((rng.u64(slot * f_cw + r), slot))
    base = task.num_common * f_cw
    for slot in range(task.num_common, n_words):
        for r in range(f_ucw):
            items.append((rng.u64(base + (slot - task.num_common) * f_ucw + r), slot))
    items.sort()
    return items


def render_cwe(spec: ConfigSpec, task: CweSpec, index: int, seed: int, sources: Sources, tokenizer: Tokenizer) -> dict:
    """Fill the word list to the budget and return the row's content fields."""
    lang = spec.context_language
    f_cw, f_ucw = task.frequencies(spec.length)
    pool = prepared_pool(sources, lang, tokenizer)
    perm = StableRng("oneruler-cwe-words", seed, task.name, spec.length, index).permutation(len(pool.words))
    words = [pool.words[i] for i in perm]
    costs = [pool.costs[i] for i in perm]
    n_max = len(words)
    all_items = item_keys(task, spec.length, index, seed, n_max)

    def n_items(n: int) -> int:
        return min(n, task.num_common) * f_cw + max(0, n - task.num_common) * f_ucw

    numbering = numbering_prefix(sources, tokenizer, n_items(n_max))
    word_prefix = [0]
    for slot, c in enumerate(costs):
        word_prefix.append(word_prefix[-1] + c * (f_cw if slot < task.num_common else f_ucw))

    template = sources.cwe_template(lang)
    head, tail = template.text.split("{context}")
    overhead = tokenizer.count(head) + tokenizer.count(tail)
    budget = spec.length - task.reserve

    def assemble(n: int) -> str:
        listed = [words[slot] for _, slot in all_items if slot < n]
        return " ".join(f"{i}. {w}" for i, w in enumerate(listed, start=1))

    def measure(n: int) -> tuple[int, str]:
        context = assemble(n)
        return tokenizer.count(head + context + tail), context

    def unit_cost(n: int) -> int:
        if n >= n_max:
            return 0
        m = n_items(n)
        return f_ucw * costs[n] + numbering[m + f_ucw] - numbering[m]

    fit = fit_units(
        budget=budget,
        estimate=lambda n: overhead + word_prefix[n] + numbering[n_items(n)],
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
