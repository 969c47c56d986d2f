"""RULER's common words extraction (``scripts/data/synthetic/common_words_extraction.py`` of NVIDIA/RULER).

A row of ``ruler_cwe``, its settings (``freq_cw``, ``freq_ucw``, ``num_cw``) read from ``synthetic.yaml``, its
template, answer prefix and ``tokens_to_generate`` from ``constants.py``:

- RULER's words: wonderwords' nouns, adjectives and verbs, ``sorted(set(...))`` (``RulerSources.cwe_words``),
  shuffled once by a permutation fixed per seed (RULER: ``random.Random(seed).shuffle(words)``);
- a list of N words is ``random.sample(words, N)`` (``english_words.json``'s words instead once N exceeds
  wonderwords' list); its first ``num_cw`` are the common words, listed ``freq_cw`` times, the others
  ``freq_ucw`` times; the items in RULER's fixed-seed shuffle (one order for every row) and written
  ``1. w 2. w …``;
- before the task, one in-context example (RULER's ``num_fewshot`` = 1): a list of 40 words, 10 common ×10,
  others ×3, as a whole prompt followed by the answer prefix and its answer ``1. w … 10. w``, then a newline;
- below 4096 tokens RULER's short variant: the example 20 words ×3/×1, the task's common words ×6, others ×1;
- the answer: the 10 common words; the answer prefix cut off the prompt where RULER cuts it.

Every draw comes from the project's stable RNG: the samples per row, the fixed shuffles per (task, seed), so a
row is a pure function of (config, index, seed, sources, tokenizer). N is the most words whose prompt fits the
budget, one word more measured and over (RULER searches N once per config and shrinks an overflowing sample by
10 words). The prompt is counted exactly by construction where the tokenizer provably splits between list
items (docs/generation.md, "Counting by construction"), else tokenised whole.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...spec.configs import ConfigSpec
from ...spec.families.ruler import RulerTask
from ..budget import Fit
from ..material import RowMaterial
from .common import FixedOrder, NumberCosts, random_order, ruler_template, running_argmax, source_for
from .fit import fit_tight
from .frame import RulerFrame, ruler_frame

SHORT_BELOW = 4096  # RULER's short-context variant: max_seq_length < 4096
EXAMPLE_WORDS, SHORT_EXAMPLE_WORDS = 40, 20  # get_example(40, 10, 3) / get_example(20, 3, 1)
ENGLISH_WORDS = "RULER's english_words.json (its CWE words past wonderwords' list)"


@dataclass(frozen=True)
class ListShape:
    """How a list repeats its words: the first ``num_common`` ×``common``, the others ×``uncommon``."""

    common: int
    uncommon: int
    num_common: int

    def items(self, n: int) -> int:
        """Items of a list of n words."""
        return min(n, self.num_common) * self.common + max(0, n - self.num_common) * self.uncommon

    def repeats(self, n: int) -> np.ndarray:
        """Times each of the first n words is listed."""
        out = np.full(n, self.uncommon, dtype=np.int64)
        out[: self.num_common] = self.common
        return out


def list_shapes(length: int, args: dict) -> tuple[int, ListShape, ListShape]:
    """(example words, the example's shape, the task's shape) of RULER's ``generate_input_output``."""
    num_cw = args["num_cw"]
    if length < SHORT_BELOW:
        return SHORT_EXAMPLE_WORDS, ListShape(3, 1, num_cw), ListShape(6, 1, num_cw)
    return EXAMPLE_WORDS, ListShape(10, 3, num_cw), ListShape(args["freq_cw"], args["freq_ucw"], num_cw)


def item_slots(shape: ListShape, n: int, order: FixedOrder) -> np.ndarray:
    """The word (its place in the sample) of each item of a list of n words, in listed order: RULER's
    ``common * freq_cw + uncommon * freq_ucw`` in its fixed shuffle. Occurrence r of common word c is slot
    ``c * common + r`` of the ``common`` stream, of another word s slot ``(s - num_common) * uncommon + r`` of the
    ``uncommon`` stream: a longer list only inserts its new words' items."""
    n_common = min(n, shape.num_common)
    keys = np.concatenate([order.keys(shape.num_common * shape.common, "common")[: n_common * shape.common],
                           order.keys(max(0, n - shape.num_common) * shape.uncommon, "uncommon")])
    return np.repeat(np.arange(n), shape.repeats(n))[np.argsort(keys, kind="stable")]


def numbered(words: list[str]) -> str:
    """RULER's ``1. w 2. w …``."""
    return " ".join(f"{i}. {w}" for i, w in enumerate(words, start=1))


@dataclass
class WordPool:
    """Words a list draws from (RULER's shuffled wonderwords, or english_words.json) and the tokens of each as a
    list item (`` word``), for one tokenizer."""

    words: tuple[str, ...]
    costs: np.ndarray
    cut_after: bool  # every word is provably cut before a space (its last character) for exact counting


def word_pool(material: RowMaterial, seed: int, english: bool, spec: ConfigSpec) -> WordPool:
    """The pool of a list, made once per (pool, seed, tokenizer)."""
    ruler, tokenizer = material.ruler, material.tokenizer
    counter = material.prepared.counter(tokenizer)

    def make() -> WordPool:
        if english:
            words = source_for(spec, ENGLISH_WORDS, lambda: ruler.english_words).words
        else:
            sorted_words = ruler.cwe_words.words
            words = tuple(sorted_words[i] for i in FixedOrder("ruler-cwe-words", seed).order(len(sorted_words)))
        costs = np.asarray(tokenizer.count_batch([" " + w for w in words]), dtype=np.int64)
        cut = counter.exact and all(w and counter.is_cut(w[-1], " ") for w in set(words))
        return WordPool(words, costs, cut)

    return material.prepared.shared(("ruler-cwe-pool", english, seed if not english else None), tokenizer, make)


class WordListPrompt:
    """One row's prompt for lists of n words of one pool: its tokens (exact, by construction or whole) and text."""

    def __init__(self, pool: WordPool, sample: np.ndarray, shape: ListShape, order: FixedOrder, head: str,
                 closing: str, material: RowMaterial):
        self.pool, self.sample, self.shape, self.order = pool, sample, shape, order
        self.head, self.closing, self.tokenizer = head, closing, material.tokenizer
        self.counter = material.prepared.counter(material.tokenizer)
        self.markers = material.prepared.shared("ruler-list-markers", material.tokenizer,
                                                lambda: NumberCosts(material.tokenizer, "."))
        self.exact = pool.cut_after and bool(head) and self.counter.is_cut(head[-1], "1") and self.counter.is_cut(
            ".", " ")
        self.head_tokens = self.counter.count(head)
        self.first_marker = self.counter.count("1.") - self.tokenizer.count(" 1.")
        word_costs = pool.costs[sample] * shape.repeats(len(sample))
        self.word_prefix = np.concatenate([[0], np.cumsum(word_costs)])
        self.closing_tokens = self.counter.count(closing)
        # the word listed last in a list of n: its word's last occurrence has the largest key among the n words'
        self.last_word = running_argmax(self._last_keys(len(sample)))

    def _last_keys(self, n: int) -> np.ndarray:
        """The largest key of each word's items (the order of RULER's fixed shuffle)."""
        shape = self.shape
        common = self.order.keys(shape.num_common * shape.common, "common").reshape(shape.num_common, shape.common)
        rest = self.order.keys(max(0, n - shape.num_common) * shape.uncommon, "uncommon")
        return np.concatenate([common.max(axis=1), rest.reshape(-1, shape.uncommon).max(axis=1)])[:n]

    def estimate(self, n: int) -> int:
        """Tokens of the prompt of n words, the join of the last word with the closing estimated."""
        markers = self.markers.prefix(self.shape.items(n))
        return (self.head_tokens + self.first_marker + markers[self.shape.items(n)] + int(self.word_prefix[n])
                + self.closing_tokens)

    def measure(self, n: int) -> tuple[int, None]:
        """Exact tokens of the prompt of n words."""
        if not self.exact:
            return self.counter.count(self.head + self.context(n) + self.closing), None
        last = self.pool.words[self.sample[int(self.last_word[n - 1])]]
        join = self.counter.count(" " + last + self.closing) - self.closing_tokens - self.tokenizer.count(" " + last)
        return self.estimate(n) + join, None

    def context(self, n: int) -> str:
        """The list of n words, ``1. w 2. w …``."""
        words = self.pool.words
        return numbered([words[self.sample[s]] for s in item_slots(self.shape, n, self.order).tolist()])

    def answers(self) -> list[str]:
        """The common words."""
        return [self.pool.words[i] for i in self.sample[: self.shape.num_common].tolist()]


def example_text(spec: ConfigSpec, task: RulerTask, index: int, seed: int, material: RowMaterial,
                 frame: RulerFrame) -> str:
    """RULER's in-context example of a row: its prompt, answer prefix, `` `` and its answer."""
    count, shape, _ = list_shapes(spec.length, dict(material.ruler.tasks.setting(task.ruler_name).args))
    pool = word_pool(material, seed, False, spec)
    sample = random_order(len(pool.words), "ruler-cwe-example", seed, task.name, spec.length, index)[:count]
    order = FixedOrder("ruler-cwe-example-items", seed, task.name, shape.common, shape.uncommon)
    slots = item_slots(shape, count, order).tolist()
    context = numbered([pool.words[sample[s]] for s in slots])
    answer = numbered([pool.words[i] for i in sample[: shape.num_common].tolist()])
    return frame.head + context + frame.closing + " " + answer


def _fit(spec: ConfigSpec, task: RulerTask, index: int, seed: int, material: RowMaterial, head: str,
         frame: RulerFrame, english: bool) -> tuple[Fit, WordListPrompt] | None:
    """The most words of one pool that fit: wonderwords' list, or (``english``) english_words.json's words past
    its length (None: not even one word more than wonderwords' list can fit)."""
    _, _, shape = list_shapes(spec.length, dict(material.ruler.tasks.setting(task.ruler_name).args))
    budget = spec.length - task.reserve
    # every item takes at least 2 tokens (its marker and its word): no list of more words fits
    reach = shape.num_common + max(0, budget) // (2 * shape.uncommon) + 1
    k_min = len(material.ruler.cwe_words.words) + 1 if english else shape.num_common
    if english and reach < k_min:
        return None
    pool = word_pool(material, seed, english, spec)
    reach = min(reach, len(pool.words))
    if english and reach < k_min:
        return None  # english_words.json holds no longer list (RULER's random.sample would fail)
    sample = random_order(len(pool.words), "ruler-cwe-sample", english, seed, task.name, spec.length, index)[:reach]
    order = FixedOrder("ruler-cwe-items", seed, task.name, spec.length, shape.common, shape.uncommon)
    prompt = WordListPrompt(pool, sample, shape, order, head, frame.closing, material)
    if english and prompt.measure(k_min)[0] > budget:
        return None
    return fit_tight(spec, task.reserve, prompt.estimate, prompt.measure, min(k_min, reach), reach, "list word",
                     limit=reach), prompt


def ruler_cwe_fields(spec: ConfigSpec, task: RulerTask, index: int, seed: int, material: RowMaterial) -> dict:
    """The content fields of one RULER CWE row (those of the RULER CWE family)."""
    template = ruler_template(material.ruler.tasks, task)
    args = dict(material.ruler.tasks.setting(task.ruler_name).args)
    frame = ruler_frame(template, {"num_cw": args["num_cw"], "query": ""})
    head = example_text(spec, task, index, seed, material, frame) + "\n" + frame.head
    fit, prompt = _fit(spec, task, index, seed, material, head, frame, english=False)
    slack = spec.length - task.reserve - fit.tokens
    if fit.units == len(material.ruler.cwe_words.words) and slack >= 2 * prompt.shape.uncommon:
        # wonderwords' whole list fits with room for another word: RULER samples every word from english_words.json
        fit, prompt = _fit(spec, task, index, seed, material, head, frame, english=True) or (fit, prompt)
    context = prompt.context(fit.units)
    return {
        "input": head + context + frame.tail,
        "answers": prompt.answers(),
        "num_tokens": fit.tokens,
        "needles": [],
        "queries": [],
        "context_span": [len(head), len(head) + len(context)],
        "num_units": fit.units,
        "budget": spec.length - task.reserve,
        "reserve": task.reserve,
        "answer_prefix": frame.answer_prefix,
    }
