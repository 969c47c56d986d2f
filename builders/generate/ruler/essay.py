"""RULER's essay haystack: the first N words of Paul Graham's essays (repeated past their end), split into
sentences by NLTK's Punkt, needles between sentences; prepared once so that any N is cheap.

RULER (``niah.py``, ``type_haystack: essay``) takes ``" ".join((words * repeats)[:N])``, splits
``text.strip()`` with ``sent_tokenize`` and joins the sentences back with ``" "`` around the needles. Splitting
100,000 words takes Punkt about a second; RULER does it at every step of its search and for every sample.
Here the repeated words are split once (``EssaySplit``, as many copies as the longest haystack asked for, one
for every tokenizer), and the split of the first N words is those sentences up to two before the one the cut
falls in, then Punkt on the few sentences left (``split``): Punkt decides each boundary from the words around
it, so the sentences before the cut are the whole text's (tests and ``benchmarks/ruler_fidelity.py`` compare it
with Punkt on the whole prefix). ``EssayCounts`` holds one tokenizer's counts: each word's (the estimate) and
each sentence's with its joining space, summed, so that a prompt is counted by construction
(``count_prompt``): exact wherever the tokenizer cuts before a space that follows a sentence (GPT-style
tokenizers; ``generate/counting.py``), else the prompt is tokenised whole.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from itertools import accumulate
from typing import Sequence

from ..counting import Piece, Tally, TokenCounter

SPLIT_MARGIN = 2_000  # words past the longest haystack that the whole split covers (Punkt's look-ahead)
RESPLIT = 2  # sentences before the one holding the cut that Punkt splits again with the cut text


class EssaySplit:
    """The essay words repeated, joined by spaces and split into sentences by Punkt; grown by whole copies."""

    def __init__(self, words: Sequence[str], punkt):
        if not any(words):
            raise ValueError("the essay haystack has no words")
        self.words, self.punkt = tuple(words), punkt
        self.copy = " ".join(self.words)
        self.period = len(self.copy) + 1  # copies are joined by one space, as " ".join(words * repeats) does
        self.word_ends = list(accumulate(len(w) + 1 for w in self.words))  # word i ends at word_ends[i] - 1
        self.copies = 0
        self.version = 0  # grown this many times (a count kept over the split is redone when it grows)
        self.text = ""
        self.sentences: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []

    def char_end(self, n: int) -> int:
        """Where the first n words end in the repeated text (``len(" ".join((words * r)[:n]))``)."""
        if n <= 0:
            return 0
        full, rest = divmod(n - 1, len(self.words))
        return full * self.period + self.word_ends[rest] - 1

    def grow(self, n: int) -> None:
        """Split enough copies that the first ``n`` words lie ``SPLIT_MARGIN`` words before the text's end."""
        copies = -(-(n + SPLIT_MARGIN) // len(self.words))
        if copies <= self.copies:
            return
        self.copies = copies
        self.version += 1
        self.text = " ".join([self.copy] * copies)
        spans = list(self.punkt.span_tokenize(self.text))
        self.starts, self.ends = [a for a, _ in spans], [b for _, b in spans]
        self.sentences = [self.text[a:b] for a, b in spans]

    def split(self, n: int) -> tuple[int, list[str]]:
        """(g, tail): the sentences of the first ``n`` words, RULER's ``sent_tokenize(text.strip())``, are the
        first ``g`` sentences of the whole split followed by ``tail``."""
        if n <= 0:
            return 0, []
        self.grow(n)
        end = self.char_end(n)
        g = max(0, bisect.bisect_right(self.ends, end) - RESPLIT)
        start = self.starts[g] if g else 0
        return g, self.punkt.tokenize(self.text[start:end].strip())

    def sentence_list(self, n: int) -> list[str]:
        """The sentences of the first ``n`` words."""
        g, tail = self.split(n)
        return self.sentences[:g] + tail


@dataclass(frozen=True)
class EssayLayout:
    """A haystack of the first ``words`` words (sentences: ``g`` of the whole split, then ``tail``) with needle j
    before sentence ``points[j]``."""

    words: int
    g: int
    tail: tuple[str, ...]
    tail_units: tuple[int, ...]  # tokens of " " + each tail sentence
    points: tuple[int, ...]

    @property
    def n_sentences(self) -> int:
        """Sentences in the haystack."""
        return self.g + len(self.tail)


class EssayCounts:
    """One tokenizer's counts over the essay haystack: words (the estimate) and sentences (exact counts)."""

    def __init__(self, split: EssaySplit, counter: TokenCounter):
        self.split, self.counter = split, counter
        self.word_costs = counter.count_batch([" " + w for w in split.words])
        self.word_prefix = [0, *accumulate(self.word_costs)]
        self.units: list[int] = [0]  # units[i]: tokens of " " + s summed over the first i sentences of the split
        self.first = 0  # tokens of the first sentence alone (a haystack starts with it, without a space)
        self.exact = False
        self._known: dict[str, int] = {}
        self._version = -1

    def word_tokens(self, n: int) -> int:
        """Summed tokens of the first n words, each with a space before it (the estimate of a haystack)."""
        full, rest = divmod(n, len(self.split.words))
        return full * self.word_prefix[-1] + self.word_prefix[rest]

    def words_for(self, tokens: int) -> int:
        """The fewest words whose estimate exceeds ``tokens``."""
        full, rest = divmod(max(tokens, 0), self.word_prefix[-1])
        return full * len(self.split.words) + bisect.bisect_right(self.word_prefix, rest)

    def sync(self) -> None:
        """Count the split's sentences (each distinct one once) after it grew."""
        if self._version == self.split.version:
            return
        sentences = self.split.sentences
        new = [s for s in dict.fromkeys(sentences) if s not in self._known]
        self._known.update(zip(new, self.counter.count_batch([" " + s for s in new])))
        self.units = [0, *accumulate(self._known[s] for s in sentences)]
        self.first = self.counter.count(sentences[0]) if sentences else 0
        self.exact = self.counter.exact and all(self.cut_after(s) for s in self._known)
        self._version = self.split.version

    def cut_after(self, sentence: str) -> bool:
        """Whether a sentence starts with a non-space and the tokenizer cuts between it and a space after it."""
        return bool(sentence) and not sentence[0].isspace() and self.counter.is_cut(sentence[-1], " ")

    def layout(self, n: int, depths: Sequence[int]) -> EssayLayout:
        """The haystack of the first n words with a needle at each of ``depths`` (sorted, percent): before
        sentence ``int(sentences * depth / 100)``, RULER's rule."""
        g, tail = self.split.split(n)
        self.sync()
        units = tuple(self.counter.count_batch([" " + s for s in tail])) if tail else ()
        size = g + len(tail)
        return EssayLayout(n, g, tuple(tail), units, tuple(int(size * (d / 100)) for d in depths))

    def exact_for(self, layout: EssayLayout) -> bool:
        """Whether this layout is counted by construction (its re-split sentences allow it too)."""
        return self.exact and layout.g > 0 and all(self.cut_after(s) for s in layout.tail)

    def count_prompt(self, layout: EssayLayout, head: Piece, needles: Sequence[Piece], tail: Piece) -> int:
        """Exact tokens of head + the context of ``layout`` + tail (``exact_for(layout)`` must hold); ``needles``:
        each needle with the space before it, in text order."""
        tally = self.counter.tally()
        tally.add(head)
        bounds = [0, *layout.points, layout.n_sentences]
        for j in range(len(bounds) - 1):
            a, b = bounds[j], bounds[j + 1]
            if j:
                tally.add(needles[j - 1])
                if a == b:
                    tally.add_text(" ", None)  # an empty segment still has its joining space
            self._add_run(tally, layout, a, b, first=j == 0)
        tally.add(tail)
        return tally.result()

    def _add_run(self, tally: Tally, layout: EssayLayout, a: int, b: int, first: bool) -> None:
        """Sentences a..b-1 of the layout, each after a space (sentence 0 of the context without one)."""
        g, units = layout.g, self.units
        inner = min(b, g)
        if a < inner:
            tally.add_text(self.split.sentences[a] if first and a == 0 else " " + self.split.sentences[a],
                           self.first if first and a == 0 else units[a + 1] - units[a])
            if inner - a > 2:
                tally.add_tokens(units[inner - 1] - units[a + 1])
            if inner - a > 1:
                tally.add_text(" " + self.split.sentences[inner - 1], units[inner] - units[inner - 1])
        for i in range(max(a, g), b):
            tally.add_text(" " + layout.tail[i - g], layout.tail_units[i - g])

    def haystack_tokens(self, layout: EssayLayout, p: int) -> int:
        """Tokens of the haystack's first ``p`` sentences joined by spaces (needles left out); exact when
        ``exact_for(layout)``."""
        if p <= 0:
            return 0
        inner = min(p, layout.g)
        return self.first + self.units[inner] - self.units[1] + sum(layout.tail_units[:max(0, p - layout.g)])

    def sentences(self, layout: EssayLayout) -> list[str]:
        """The haystack's sentences."""
        return self.split.sentences[:layout.g] + list(layout.tail)
