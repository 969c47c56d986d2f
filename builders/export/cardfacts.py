"""Facts the dataset card states about the sources and the standard grid, computed from them.

The card is a pure function of ``manifest.json``; these facts go into the manifest beside the data
fixes (``BuildInputs.card_facts`` caches them) so that ``oneruler verify`` can recompute and compare.
"""

from __future__ import annotations

from itertools import accumulate

from ..generate.niah import draw_niah
from ..generate.quotes import safe_boundaries
from ..generate.segment import split_sentences
from ..generate.tokenizer import Tokenizer
from ..sources.store import Sources
from ..spec.configs import STANDARD_LENGTHS, iter_standard_configs
from ..spec.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from ..spec.languages import get_language
from ..spec.tasks import TASKS, CweSpec


def key_draw_counts(sources: Sources, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> dict:
    """Per NIAH task: the standard grid's distinct draws, how many were redrawn, and the rejected draws.

    Draws depend on (task, length, index, seed, cross-lingual or not), never on the language, so each
    draw serves every language; ``s_niah_nonone`` shares the draws of ``s_niah``.
    """
    seen: set[tuple] = set()
    out: dict[str, dict] = {}
    for spec in iter_standard_configs():
        task = TASKS[spec.task]
        if task.kind != "niah":
            continue
        family = task.draws_as or task.name
        key = (family, spec.length, spec.is_cross_lingual)
        if key in seen:
            continue
        seen.add(key)
        counts = out.setdefault(family, {"draws": 0, "redrawn": 0, "rejected": 0})
        for index in range(samples):
            draw = draw_niah(task, spec.length, index, seed, sources.nouns, spec.is_cross_lingual)
            counts["draws"] += 1
            counts["redrawn"] += draw.key_redraws > 0
            counts["rejected"] += draw.key_redraws
    return dict(sorted(out.items()))


def _list_tokens(costs: list[int], markers: list[int], task: CweSpec, length: int) -> int:
    """Estimated tokens of the whole pool as a CWE list (each word's cost × its repetitions + markers).

    ``markers[m]`` is the summed cost of the list markers `` 1.`` … `` m.``.
    """
    f_cw, f_ucw = task.frequencies(length)
    common = task.num_common * sum(costs) / len(costs)  # the 10 common words: an average draw
    items = task.num_common * f_cw + (len(costs) - task.num_common) * f_ucw
    return int(f_ucw * sum(costs) + (f_cw - f_ucw) * common + markers[items])


def cwe_pool_facts(sources: Sources, tokenizer: Tokenizer, language: str, markers: list[int]) -> dict:
    """Pool sizes here and under upstream's rules, and the length a CWE example can reach with each.

    ``reach[task][length] = [here, upstream]``: estimated tokens (``tokenizer``) of the prompt listing
    the whole pool, or ``None`` where the pool is large enough to fill the budget (here: length − 50;
    upstream: the nominal length, its stopping bound).
    """
    here = list(sources.word_pool(language).words)
    upstream = list(sources.upstream_word_pool(language))
    head, tail = sources.cwe_template(language).frame
    overhead = tokenizer.count(head) + tokenizer.count(tail)
    costs = {name: tokenizer.count_batch([" " + w for w in words]) for name, words in (("here", here), ("up", upstream))}
    reach: dict[str, dict] = {}
    for name, task in TASKS.items():
        if task.kind != "cwe":
            continue
        for length in STANDARD_LENGTHS:
            full_here = overhead + _list_tokens(costs["here"], markers, task, length)
            full_up = overhead + _list_tokens(costs["up"], markers, task, length)
            reach.setdefault(name, {})[str(length)] = [
                full_here if full_here < length - task.reserve else None,
                full_up if full_up < length else None,
            ]
    return {"cwe_pool": len(here), "cwe_pool_upstream": len(upstream), "cwe_reach": reach}


def marker_prefix(tokenizer: Tokenizer, sources: Sources, languages: list[str]) -> list[int]:
    """prefix[m]: summed token cost of the list markers `` 1.`` … `` m.``, up to the longest whole-pool
    list of any language (here or upstream)."""
    longest = max(max(len(sources.word_pool(lang).words), len(sources.upstream_word_pool(lang))) for lang in languages)
    items = max(t.num_common * max(t.frequencies(n)) + longest * max(t.frequencies(n))
                for t in TASKS.values() if isinstance(t, CweSpec) for n in STANDARD_LENGTHS)
    return list(accumulate(tokenizer.count_batch([f" {m}." for m in range(1, items + 1)]), initial=0))


def haystack_facts(sources: Sources, language: str) -> dict:
    """Sentences of the haystack and how many of the boundaries between them lie outside every quotation."""
    sentences = split_sentences(language, sources.book_text(language))
    inner = safe_boundaries(language, sentences, get_language(language).joiner)[1:-1]
    return {"sentences": len(sentences), "safe_boundaries": sum(inner), "boundaries": len(inner)}
