"""Facts the dataset card states about the sources and the standard grid, computed from them.

The card is a pure function of ``manifest.json``; these facts go into the manifest beside the data
fixes (``BuildInputs.card_facts`` caches them) so that ``oneruler verify`` can recompute and compare.
"""

from __future__ import annotations

from ..generate.cwe import list_items
from ..generate.niah import draw_niah
from ..generate.prepared import PreparedCache
from ..generate.tokenizer import Tokenizer
from ..sources.store import Sources
from ..spec.configs import STANDARD_LENGTHS, iter_standard_configs
from ..spec.defaults import DEFAULT_SAMPLES, DEFAULT_SEED
from ..spec.families.cwe import CweTask
from ..spec.families.niah import NiahTask
from ..spec.tasks import TASKS


def key_draw_counts(sources: Sources, samples: int = DEFAULT_SAMPLES, seed: int = DEFAULT_SEED) -> dict:
    """Per NIAH task: the standard grid's distinct draws, how many were redrawn, and the rejected draws.

    Draws depend on (task, length, index, seed, cross-lingual or not), never on the language, so each
    draw serves every language; ``s_niah_nonone`` shares the draws of ``s_niah``.
    """
    seen: set[tuple] = set()
    out: dict[str, dict] = {}
    for spec in iter_standard_configs():
        task = TASKS[spec.task]
        if not isinstance(task, NiahTask):
            continue
        drawn_as = task.draws_as or task.name
        key = (drawn_as, spec.length, spec.is_cross_lingual)
        if key in seen:
            continue
        seen.add(key)
        counts = out.setdefault(drawn_as, {"draws": 0, "redrawn": 0, "rejected": 0})
        for index in range(samples):
            draw = draw_niah(task, spec.length, index, seed, sources.nouns, spec.is_cross_lingual)
            counts["draws"] += 1
            counts["redrawn"] += draw.key_redraws > 0
            counts["rejected"] += draw.key_redraws
    return dict(sorted(out.items()))


def _list_tokens(costs: list[int], markers: list[int], task: CweTask, length: int) -> int:
    """Estimated tokens of the whole pool as a CWE list: each word's cost × its repetitions (the common words
    an average draw, as no example is meant) plus the markers (``markers[m]``: `` 1.`` … `` m.``), the sum
    ``CweList.estimate`` makes for one example's order."""
    f_cw, f_ucw = task.frequencies(length)
    common = task.num_common * sum(costs) / len(costs)
    return int(f_ucw * sum(costs) + (f_cw - f_ucw) * common + markers[list_items(task, length, len(costs))])


def cwe_pool_facts(sources: Sources, prepared: PreparedCache, tokenizer: Tokenizer, language: str) -> dict:
    """Pool sizes here and under upstream's rules, and the length a CWE example can reach with each.

    ``reach[task][length] = [here, upstream]``: estimated tokens (``tokenizer``) of the prompt listing
    the whole pool, or ``None`` where the pool is large enough to fill the budget (here: length − 50;
    upstream: the nominal length, its stopping bound). The pool here, its costs and the markers' costs
    are the generator's own (``prepared``).
    """
    pool = prepared.pool(language, tokenizer)
    upstream = list(sources.upstream_word_pool(language))
    head, tail = sources.cwe_template(language).frame
    overhead = tokenizer.count(head) + tokenizer.count(tail)
    costs = {"here": pool.costs, "up": tokenizer.count_batch([" " + w for w in upstream])}
    longest = max(len(pool.words), len(upstream))
    markers = prepared.numbering_prefix(tokenizer, max(list_items(t, n, longest) for t in TASKS.values()
                                                      if isinstance(t, CweTask) for n in STANDARD_LENGTHS))
    reach: dict[str, dict] = {}
    for name, task in TASKS.items():
        if not isinstance(task, CweTask):
            continue
        for length in STANDARD_LENGTHS:
            full_here = overhead + _list_tokens(costs["here"], markers, task, length)
            full_up = overhead + _list_tokens(costs["up"], markers, task, length)
            reach.setdefault(name, {})[str(length)] = [
                full_here if full_here < length - task.reserve else None,
                full_up if full_up < length else None,
            ]
    return {"cwe_pool": len(pool.words), "cwe_pool_upstream": len(upstream), "cwe_reach": reach}


def haystack_facts(prepared: PreparedCache, language: str) -> dict:
    """Sentences of the haystack (the generator's segmentation) and how many of the boundaries between them
    lie outside every quotation."""
    sentences, safe = prepared.segments(language)
    inner = safe[1:-1]
    return {"sentences": len(sentences), "safe_boundaries": sum(inner), "boundaries": len(inner)}
