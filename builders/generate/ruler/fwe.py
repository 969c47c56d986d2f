"""RULER's frequent words extraction (``scripts/data/synthetic/freq_words_extraction.py`` of NVIDIA/RULER).

A row of ``ruler_fwe``, its setting (``alpha``) read from ``synthetic.yaml``, its template, answer prefix and
``tokens_to_generate`` from ``constants.py``:

- a vocabulary of ``(length - tokens_to_generate) // 50`` distinct coded words of 6 lower-case letters (RULER's
  ``random.choices(string.ascii_lowercase, k=6)`` until that many distinct), ``sorted``, then shuffled by
  RULER's fixed-seed shuffle (``random.Random(seed).shuffle``: one permutation per vocabulary size); the
  top-ranked word is replaced by ``...``, the noise the question tells the model to ignore;
- for ``num_words`` words, the word of rank k (1-based) appears ``int(num_words * k ** -alpha / zeta(alpha))``
  times (numpy's float64 arithmetic, as RULER's), every occurrence listed in RULER's fixed-seed shuffle (one order
  for every row), joined by spaces;
- the answer: ranks 2 to 4 (``vocab[1:4]``), the three most frequent coded words.

``zeta(2.0)`` is π²/6 (``scipy.special.zeta(2.0)`` gives the same float, a test checks it bit for bit); RULER's
``synthetic.yaml`` has only alpha = 2.0, and another alpha is refused with one line. ``num_words`` is the largest
whose prompt fits the budget, one more measured and over (RULER searches it once per config in steps of
``max_len // 32`` words and shrinks an overflowing sample by as many). Every draw comes from the project's stable
RNG, the vocabulary per row, the shuffles per (task, seed). Counted exactly by construction where the tokenizer
provably splits before every space (docs/generation.md), else tokenised whole.
"""

from __future__ import annotations

import math
import string

import numpy as np

from ...base.errors import OneRulerError
from ...spec.configs import ConfigSpec
from ...spec.families.ruler import RulerTask
from ..budget import BudgetError
from ..material import RowMaterial
from ..rng import StableRng
from .common import FixedOrder, ruler_template
from .fit import fit_tight
from .frame import RulerFrame, ruler_frame

CODED_WORDLEN = 6  # freq_words_extraction.py's --coded_wordlen default
VOCAB_DIVISOR = 50  # vocab_size = max_seq_length // 50 (max_seq_length already less tokens_to_generate)
NOISE = "..."  # vocab[0] = '...': the top-ranked word is noise
ANSWERS = slice(1, 4)  # vocab[1:4]
ZETA = {2.0: math.pi ** 2 / 6}  # Riemann zeta at RULER's alphas (scipy.special.zeta(2.0), bit for bit)


def zeta(alpha: float) -> float:
    """ζ(alpha) for the alphas RULER's settings use (another is one error line)."""
    if alpha not in ZETA:
        raise OneRulerError(f"RULER's FWE setting asks for alpha = {alpha}; the generator knows zeta at "
                            f"{', '.join(map(str, ZETA))} only")
    return ZETA[alpha]


def word_counts(num_words: int, vocab_size: int, alpha: float) -> np.ndarray:
    """RULER's ``(num_words * (k ** -alpha) / zeta(alpha)).astype(int)`` for k = 1..vocab_size."""
    k = np.arange(1, vocab_size + 1)
    return (num_words * (k ** -alpha) / zeta(alpha)).astype(int)


def coded_vocabulary(vocab_size: int, task: RulerTask, length: int, index: int, seed: int) -> list[str]:
    """A row's vocabulary in RULER's order: distinct coded words drawn, sorted, in the fixed shuffle, ``...`` first."""
    rng = StableRng("ruler-fwe-vocab", seed, task.name, length, index)
    letters, space = string.ascii_lowercase, len(string.ascii_lowercase) ** CODED_WORDLEN
    drawn: set[str] = set()
    while len(drawn) < vocab_size:  # six uniform letters at once: a uniform number below 26**6 in base 26
        value = rng.randbelow(space)
        drawn.add("".join(letters[(value // 26 ** i) % 26] for i in range(CODED_WORDLEN)))
    ordered = sorted(drawn)
    vocab = [ordered[i] for i in FixedOrder("ruler-fwe-vocab", seed, task.name, vocab_size).order(vocab_size).tolist()]
    vocab[0] = NOISE
    return vocab


class CodedText:
    """One row's coded text for any ``num_words``: its words, their listed order, and exact prompt tokens.

    The prompt ``head + "w1 w2 … wm" + closing`` (the head ends with a space) is counted as the head without its
    space, each word with the space before it (`` w``, each word's tokens once), the last one together with the
    closing: exact where the tokenizer provably cuts before every space."""

    def __init__(self, vocab: list[str], alpha: float, order: FixedOrder, frame: RulerFrame, material: RowMaterial):
        self.vocab, self.alpha, self.order, self.frame = vocab, alpha, order, frame
        self.counter = counter = material.prepared.counter(material.tokenizer)
        self.costs = np.asarray(counter.count_batch([" " + w for w in vocab]), dtype=np.int64)
        head = frame.head
        self.exact = counter.exact and len(head) > 1 and head.endswith(" ") and all(
            counter.is_cut(c, " ") for c in set(string.ascii_lowercase + NOISE + head[-2]))
        self.head_tokens = counter.count(head[:-1] if self.exact else head)
        self.closing_tokens = counter.count(frame.closing)

    def counts(self, num_words: int) -> np.ndarray:
        """Occurrences of each rank."""
        return word_counts(num_words, len(self.vocab), self.alpha)

    def estimate(self, num_words: int) -> int:
        """Tokens of the prompt with ``num_words``, the join of the last word with the closing estimated."""
        return self.head_tokens + int(self.counts(num_words) @ self.costs) + self.closing_tokens

    def ranks(self, num_words: int) -> np.ndarray:
        """The rank index of each listed word, in listed order (RULER's fixed-seed shuffle of the repeated words:
        occurrence r of rank k has key r of the stream ``rank{k}``)."""
        counts = self.counts(num_words)
        present = np.flatnonzero(counts)
        if not len(present):
            return present
        keys = np.concatenate([self.order.keys(int(counts[k]), f"rank{k}") for k in present.tolist()])
        return np.repeat(present, counts[present])[np.argsort(keys, kind="stable")]

    def context(self, num_words: int) -> str:
        """The coded words joined by spaces."""
        return " ".join(self.vocab[k] for k in self.ranks(num_words).tolist())

    def measure(self, num_words: int) -> tuple[int, None]:
        """Exact tokens of the prompt with ``num_words``."""
        ranks = self.ranks(num_words)
        if not self.exact or not len(ranks):
            return self.counter.count(self.frame.head + self.context(num_words) + self.frame.closing), None
        last = int(ranks[-1])
        join = self.counter.count(" " + self.vocab[last] + self.frame.closing)
        return self.estimate(num_words) - int(self.costs[last]) - self.closing_tokens + join, None


def smallest_num_words(vocab_size: int, alpha: float) -> int:
    """The fewest ``num_words`` for which each of the three answers appears at least once."""
    needed = ANSWERS.stop
    weight = needed ** -alpha / zeta(alpha)
    n = max(1, int(1 / weight) - 1)
    while word_counts(n, vocab_size, alpha)[needed - 1] < 1:
        n += 1
    return n


def ruler_fwe_fields(spec: ConfigSpec, task: RulerTask, index: int, seed: int, material: RowMaterial) -> dict:
    """The content fields of one RULER FWE row (those of the RULER FWE family)."""
    template = ruler_template(material.ruler.tasks, task)
    alpha = float(material.ruler.tasks.setting(task.ruler_name).args["alpha"])
    vocab_size = (spec.length - template.tokens_to_generate) // VOCAB_DIVISOR
    if vocab_size < ANSWERS.stop:
        shortest = ANSWERS.stop * VOCAB_DIVISOR + template.tokens_to_generate
        raise BudgetError(f"config {spec.name!r}: {spec.length:,} tokens give RULER's FWE a vocabulary of {vocab_size} "
                          f"coded words (length // {VOCAB_DIVISOR}), fewer than the noise and three answers; "
                          f"the shortest length is {shortest:,}")
    frame = ruler_frame(template, {"query": ""})
    vocab = coded_vocabulary(vocab_size, task, spec.length, index, seed)
    text = CodedText(vocab, alpha, FixedOrder("ruler-fwe-items", seed, task.name, spec.length), frame, material)
    budget = spec.length - task.reserve
    k_min = smallest_num_words(vocab_size, alpha)
    k_max = max(k_min, 2 * budget + 16)  # rank 1 alone lists 0.6 num_words words of at least one token each
    fit = fit_tight(spec, task.reserve, text.estimate, text.measure, k_min, k_max, "word of num_words")
    context = text.context(fit.units)
    return {
        "input": frame.head + context + frame.tail,
        "answers": vocab[ANSWERS],
        "num_tokens": fit.tokens,
        "needles": [],
        "queries": [],
        "context_span": [len(frame.head), len(frame.head) + len(context)],
        "num_units": int(text.counts(fit.units).sum()),
        "budget": budget,
        "reserve": task.reserve,
        "answer_prefix": frame.answer_prefix,
    }
