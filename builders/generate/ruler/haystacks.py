"""RULER's three NIAH haystacks for one row, each fitted by ``fit.py`` through the same four things: an estimate
of the prompt's tokens for k units, an exact measure that lays the haystack out, the bounds of k, and the
rendered context with its needle records.

- ``noise`` (``NoiseHaystack``): k copies of niah.py's noise line; each needle before a line drawn uniformly from
  the k (``random.sample(range(k), n)``, the needles then inserted from the last index back, so the first needle
  goes before the latest line);
- ``needle`` (``DistractorHaystack``): k distractor needles, each a fresh key and value of the task's kinds
  (never a real key), the real needle inserted as above;
- ``essay`` (``EssayHaystack``): the first k essay words split into sentences, needle j before sentence
  ``int(sentences * depth_j / 100)`` for the row's grid depths, sorted.

A needle record holds the needle's key and value, its depth in whole percent (``depth``: the drawn grid depth,
or the drawn line's place rounded), where it landed in the haystack's units (``actual_depth``: lines, or
sentences of the essay) and in its tokens (``token_depth``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ...spec.configs import ConfigSpec
from ...spec.families.ruler import RulerTask
from ..material import RowMaterial
from ..rng import StableRng
from .essay import EssayCounts, EssayLayout, EssaySplit
from .frame import RulerFrame
from .keys import draw_value
from .lines import Line, LineCounter, joined, make_lines, place

CHUNK = 512  # distractor needles drawn at a time


class Haystack(Protocol):
    """What ``fit.py`` and the generator ask of a haystack."""

    unit: str
    k_min: int

    def k_max(self) -> int: ...
    def estimate(self, k: int) -> int: ...
    def measure(self, k: int) -> tuple[int, object]: ...
    def render(self, layout) -> tuple[str, list[dict]]: ...


def _record(needle: tuple[str, str, str], depth: int, actual: float, tokens_before: int, tokens_all: int) -> dict:
    key, value, _ = needle
    return {"key": key, "value": value, "depth": depth, "actual_depth": actual,
            "token_depth": 100 * tokens_before / tokens_all if tokens_all else 0.0}


@dataclass(frozen=True)
class LinesLayout:
    """k haystack lines with the needles placed: (position in the final list, line index, text)."""

    k: int
    placed: tuple[tuple[int, int, str], ...]


class _LineHaystack:
    """What the noise and distractor haystacks share: needles as lines, their counter, placement and rendering."""

    def __init__(self, spec: ConfigSpec, task: RulerTask, index: int, seed: int, draw, frame: RulerFrame,
                 material: RowMaterial, first_chars: str):
        self.spec, self.task, self.index, self.seed, self.draw = spec, task, index, seed, draw
        self.counter = material.prepared.counter(material.tokenizer)
        self.needles: list[Line] = make_lines(self.counter, [text for _, _, text in draw.needles])
        self.lines = LineCounter(self.counter, frame.head, frame.tail + frame.answer_prefix,
                                 first_chars + "".join(n.text[0] for n in self.needles))
        self.needle_units = sum(n.tokens for n in self.needles)
        self.k_min = len(self.needles)

    def placed(self, k: int) -> LinesLayout:
        """RULER's placement among k lines: indexes ``sample(range(k), n)``, inserted from the highest down."""
        rng = StableRng("ruler-niah-positions", self.seed, self.task.name, self.spec.length, self.index, k)
        indexes = sorted(rng.sample(k, len(self.needles)), reverse=True)
        return LinesLayout(k, tuple(place([(i, n.text) for i, n in zip(indexes, self.needles)])))

    def haystack_line(self, i: int) -> Line:
        raise NotImplementedError

    def units_before(self, m: int) -> int:
        """Tokens of haystack lines 0..m-2 with their newlines (the lines before the m-th's last)."""
        raise NotImplementedError

    def text(self, layout: LinesLayout) -> str:
        return joined([self.haystack_line(i).text for i in range(layout.k)], layout.placed)

    def measure(self, k: int) -> tuple[int, LinesLayout]:
        layout = self.placed(k)
        tokens = self.lines.prompt_tokens(self.units_before(k) + self.needle_units, self.haystack_line(k - 1).text,
                                          lambda: self.text(layout))
        return tokens, layout

    def render(self, layout: LinesLayout) -> tuple[str, list[dict]]:
        context = self.text(layout)
        lines = [self.haystack_line(i).text for i in range(layout.k)]

        def tokens(m: int) -> int:
            return self.lines.haystack_tokens(self.units_before(m), lines[m - 1] if m else "",
                                              lambda: "\n".join(lines[:m]))

        total = tokens(layout.k)
        by_text = {n[2]: n for n in self.draw.needles}
        return context, [_record(by_text[text], int(100 * i / layout.k + 0.5), 100 * i / layout.k, tokens(i), total)
                         for _, i, text in layout.placed]


class NoiseHaystack(_LineHaystack):
    """k copies of RULER's noise line with the needles among them."""

    unit = "noise line"

    def __init__(self, spec: ConfigSpec, task: RulerTask, index: int, seed: int, draw, frame: RulerFrame,
                 material: RowMaterial):
        noise = material.ruler.texts.niah_noise
        super().__init__(spec, task, index, seed, draw, frame, material, first_chars=noise[0])
        self.noise = make_lines(self.counter, [noise])[0]

    def haystack_line(self, i: int) -> Line:
        return self.noise

    def units_before(self, m: int) -> int:
        return max(m - 1, 0) * self.noise.tokens

    def k_max(self) -> int:
        room = self.spec.length - self.task.reserve - self.lines.head_tokens - self.needle_units
        return max(self.k_min, room // max(self.noise.tokens, 1)) + 1

    def estimate(self, k: int) -> int:
        return self.lines.head_tokens + self.needle_units + k * self.noise.tokens


class DistractorHaystack(_LineHaystack):
    """k distractor needles (fresh keys and values of the task's kinds, no real key) with the real needles."""

    unit = "distractor needle"

    def __init__(self, args: dict, spec: ConfigSpec, task: RulerTask, index: int, seed: int, draw,
                 frame: RulerFrame, material: RowMaterial):
        self.needle = material.ruler.texts.needle
        super().__init__(spec, task, index, seed, draw, frame, material, first_chars=self.needle[0])
        self.args, self.material = args, material
        self.rng = StableRng("ruler-niah-distractors", seed, task.name, spec.length, index)
        self.real = set(draw.keys)
        self.haystack: list[Line] = []
        self.prefix = [0]
        self.redrawn = [0]  # redrawn[i]: distractor keys redrawn (a real key) for the first i distractors

    def _grow(self, k: int) -> None:
        kind_k, kind_v = self.args["type_needle_k"], self.args["type_needle_v"]
        keys = self.material.ruler.niah_keys if "words" in (kind_k, kind_v) else None
        while len(self.haystack) < k:
            texts = []
            for _ in range(CHUNK):
                key, redraws = draw_value(kind_k, self.rng, keys), 0
                while key in self.real:
                    key, redraws = draw_value(kind_k, self.rng, keys), redraws + 1
                value = draw_value(kind_v, self.rng, keys)
                texts.append(self.needle.format(type_needle_v=kind_v, key=key, value=value))
                self.redrawn.append(self.redrawn[-1] + redraws)
            new = make_lines(self.counter, texts)
            self.haystack.extend(new)
            for line in new:
                self.prefix.append(self.prefix[-1] + line.tokens)

    def haystack_line(self, i: int) -> Line:
        self._grow(i + 1)
        return self.haystack[i]

    def units_before(self, m: int) -> int:
        self._grow(m)
        return self.prefix[max(m - 1, 0)]

    def k_max(self) -> int:
        room = self.spec.length - self.task.reserve - self.lines.head_tokens - self.needle_units
        while self.prefix[-1] <= room:
            self._grow(len(self.haystack) + CHUNK)
        return max(self.k_min, next(k for k, p in enumerate(self.prefix) if p > room)) + 1

    def estimate(self, k: int) -> int:
        self._grow(k)
        return self.lines.head_tokens + self.needle_units + self.prefix[k]


class EssayHaystack:
    """The first k essay words in sentences, the needles at the row's grid depths."""

    unit = "essay word"
    k_min = 1

    def __init__(self, spec: ConfigSpec, task: RulerTask, draw, frame: RulerFrame, material: RowMaterial):
        self.spec, self.task, self.draw = spec, task, draw
        prepared, tokenizer = material.prepared, material.tokenizer
        self.counter = prepared.counter(tokenizer)
        split = prepared.shared("ruler-essay-split", None, lambda: EssaySplit(material.ruler.essays.words,
                                                                              material.ruler.sentence_tokenizer))
        self.counts: EssayCounts = prepared.shared("ruler-essay-counts", tokenizer,
                                                   lambda: EssayCounts(split, self.counter))
        self.frame = frame
        self.tail = frame.tail + frame.answer_prefix
        self.depths = sorted(draw.depths)
        texts = [frame.head, self.tail, *(" " + text for _, _, text in draw.needles)]
        pieces = self.counter.pieces(texts)
        self.head, self.tail_piece, self.needle_pieces = pieces[0], pieces[1], pieces[2:]
        self.overhead = sum(p.count for p in pieces)

    def k_max(self) -> int:
        k = self.counts.words_for(self.spec.length - self.task.reserve - self.overhead) + 1
        self.counts.split.grow(k)
        return k

    def estimate(self, k: int) -> int:
        return self.overhead + self.counts.word_tokens(k)

    def text(self, layout: EssayLayout) -> str:
        """RULER's context: the sentence runs between the insertion points and the needles, joined by spaces."""
        sentences = self.counts.sentences(layout)
        bounds = [0, *layout.points, layout.n_sentences]
        parts: list[str] = []
        for j in range(1, len(bounds)):
            parts.append(" ".join(sentences[bounds[j - 1]:bounds[j]]))
            if j - 1 < len(self.draw.needles):
                parts.append(self.draw.needles[j - 1][2])
        return " ".join(parts)

    def measure(self, k: int) -> tuple[int, EssayLayout]:
        layout = self.counts.layout(k, self.depths)
        if self.counts.exact_for(layout):
            return self.counts.count_prompt(layout, self.head, self.needle_pieces, self.tail_piece), layout
        return self.counter.count(self.frame.head + self.text(layout) + self.tail), layout

    def render(self, layout: EssayLayout) -> tuple[str, list[dict]]:
        exact = self.counts.exact_for(layout)
        sentences = self.counts.sentences(layout)

        def tokens(p: int) -> int:
            return self.counts.haystack_tokens(layout, p) if exact else self.counter.count(" ".join(sentences[:p]))

        n, total = layout.n_sentences, tokens(layout.n_sentences)
        return self.text(layout), [_record(needle, depth, 100 * p / n if n else float(depth), tokens(p), total)
                                   for needle, depth, p in zip(self.draw.needles, self.depths, layout.points)]


def make_haystack(args: dict, spec: ConfigSpec, task: RulerTask, index: int, seed: int, draw, frame: RulerFrame,
                  material: RowMaterial) -> Haystack:
    """The haystack of the task's ``type_haystack`` for one row."""
    kind = args["type_haystack"]
    if kind == "noise":
        return NoiseHaystack(spec, task, index, seed, draw, frame, material)
    if kind == "needle":
        return DistractorHaystack(args, spec, task, index, seed, draw, frame, material)
    if kind == "essay":
        return EssayHaystack(spec, task, draw, frame, material)
    raise ValueError(f"RULER has no haystack {kind!r}; it has noise, essay, needle")
