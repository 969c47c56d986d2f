"""Needle-in-a-haystack examples (SPEC §4 NIAH): language-independent draws, then rendering."""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, Sequence, Union

from ..base.errors import OneRulerError
from ..sources.parse import NiahTemplate, NounTable
from ..sources.store import Sources
from ..spec.configs import ConfigSpec
from ..spec.languages import LANGUAGE_CODES, Language, get_language
from ..spec.families.niah import NiahTask
from .bookcount import BookCounter, ContextLayout
from .budget import fit_units
from .counting import Piece, TokenCounter
from .material import RowMaterial
from .prepared import PreparedBook, PreparedCache
from .rng import StableRng
from .tokenizer import Tokenizer

DEPTHS: tuple[int, ...] = tuple(int(round(100 * i / 39)) for i in range(40))  # round(linspace(0,100,40))
# Nouns upstream excludes from cross-lingual runs as ambiguous across languages
# (earth, field, house, month, moon; 0-based rows after the header).
CROSS_LINGUAL_EXCLUDED: frozenset[int] = frozenset({21, 28, 42, 64, 65})
VALUE_MIN, VALUE_MAX = 1_000_000, 9_999_999
MAX_KEY_DRAWS = 10_000
Depth = Union[int, Fraction]  # percent: a grid or fixed depth (int), or an evenly spaced point (Fraction)


@dataclass(frozen=True)
class NiahDraw:
    """The random part of one example, identical in every language."""

    needle_nouns: tuple[int, ...]  # noun index of each needle, in text order
    needle_values: tuple[int, ...]
    depths: tuple[Depth, ...]  # sorted, one per needle (nominal: before the quotation rule)
    query_nouns: tuple[int, ...]
    answer_values: tuple[int, ...]  # empty for none_niah
    key_redraws: int = 0  # noun draws rejected by the distinct-key rule before this one (for the card)
    # depths pinned by the config (``_at{D}``, evenly spaced values): placed at D % of the haystack's tokens;
    # drawn depths keep RULER's rule, D % of its sentences (docs/generation.md, "Depth in tokens")
    in_tokens: bool = False


def _conflicts(nouns: NounTable, ids: list[int]) -> bool:
    """True if two of the nouns are the same string (case-insensitive) in any of the 26 languages."""
    for lang in LANGUAGE_CODES:
        seen = {nouns.noun(i, lang).casefold() for i in ids}
        if len(seen) != len(ids):
            return True
    return False


def grid_depths(rng: StableRng, n: int) -> list[int]:
    """n depths from the 40-point grid, sorted: distinct for n <= 40 (the paper's draw); beyond that every
    grid point ``n // 40`` times plus ``n % 40`` distinct ones (``mv{K}_niah`` with K > 40)."""
    cycles, extra = divmod(n, len(DEPTHS))
    return sorted(list(DEPTHS) * cycles + [DEPTHS[i] for i in rng.sample(len(DEPTHS), extra)])


def even_depths(n: int) -> tuple[Fraction, ...]:
    """Counting-Stars' evenly spaced evidence: value j at depth 100·(j+0.5)/n percent, exactly."""
    return tuple(Fraction(100 * (2 * j + 1), 2 * n) for j in range(n))


def draw_niah(task: NiahTask, length: int, index: int, seed: int, nouns: NounTable, cross_lingual: bool,
              depth: int | None = None) -> NiahDraw:
    """Draw keys, values, depths and queries for one example (depends on no language).

    ``depth``: put every needle there (``_at{depth}`` configs) instead of the drawn depths; everything
    else is the draw of the same index without it (the depths are still drawn, so the queries match).
    """
    drawn_as = task.draws_as or task.name
    rng = StableRng("oneruler-niah", seed, drawn_as, length, index, "xling" if cross_lingual else "mono")
    candidates = [i for i in range(len(nouns.rows)) if not (cross_lingual and i in CROSS_LINGUAL_EXCLUDED)]
    need = task.num_keys + (0 if task.relevant else 1)
    for redraws in range(MAX_KEY_DRAWS):
        ids = [candidates[j] for j in rng.sample(len(candidates), need)]
        if not _conflicts(nouns, ids):
            break
    else:  # pragma: no cover - would need a noun table of near-duplicates
        raise OneRulerError(f"{drawn_as}: no {need} nouns distinct in all languages after {MAX_KEY_DRAWS} draws")
    keys, extra = ids[: task.num_keys], ids[task.num_keys:]
    n_needles = task.num_keys * task.num_values
    values: list[int] = []
    while len(values) < n_needles:
        v = rng.randint(VALUE_MIN, VALUE_MAX)
        if v not in values:
            values.append(v)
    # needle j belongs to key j // num_values; needles are placed in a random order at sorted depths
    order = rng.permutation(n_needles)
    depths: Sequence[Depth] = grid_depths(rng, n_needles)
    if task.relevant:
        asked = rng.sample(task.num_keys, task.num_queries)
        query_nouns = tuple(keys[i] for i in asked)
        answer_values = tuple(values[i * task.num_values + j] for i in asked for j in range(task.num_values))
    else:
        query_nouns, answer_values = tuple(extra), ()
    draw = NiahDraw(
        needle_nouns=tuple(keys[j // task.num_values] for j in order),
        needle_values=tuple(values[j] for j in order),
        depths=tuple(depths),
        query_nouns=query_nouns,
        answer_values=answer_values,
        key_redraws=redraws,
    )
    if task.even:
        return replace(draw, depths=even_depths(n_needles), in_tokens=True)
    return draw if depth is None else replace(draw, depths=(depth,) * n_needles, in_tokens=True)


@dataclass(frozen=True)
class Needle:
    """One needle as placed in the context: its key, value and full sentence."""

    key: str
    value: str
    text: str


def make_needles(draw: NiahDraw, ctx: Language, template: NiahTemplate, nouns: NounTable) -> list[Needle]:
    """The needle sentences of a draw in the context language (template filled, full stop added)."""
    needles = []
    for noun, value in zip(draw.needle_nouns, draw.needle_values):
        key = nouns.noun(noun, ctx.code)
        text = template["needle_numbers"].replace("{key}", key).replace("{value}", str(value))
        needles.append(Needle(key, str(value), text.rstrip() + ctx.full_stop))
    return needles


def prompt_frame(task: NiahTask, queries: list[str], inst: Language, template: NiahTemplate) -> tuple[str, str]:
    """(text before the context, text after it): instructions, question block, answer block (SPEC §4.6)."""
    question = template["question_multi_numbers" if len(queries) == 2 else "question_single_numbers"]
    for i, q in enumerate(queries, start=1):
        question = question.replace(f"{{query{i}}}", q)
    pieces = [question, template["please_list"]] + ([template["if_no_numbers"]] if task.none_option else [])
    question_block = inst.joiner.join(pieces) + ("" if task.none_option else template.closing_tag)
    answer_block = inst.joiner.join([template["answer_prefix"], template["answer_numbers"]])
    head, tail = template["task"].split("{context}")
    return head, tail + question_block + answer_block


def insertion_points(k: int, depths: Sequence[Depth], is_safe: Callable[[int], bool] | None = None) -> list[int]:
    """Where each needle goes among k units: before unit ``int(k * depth / 100)`` (SPEC §4.5), moved on
    to the next boundary outside every quotation and bracket (``is_safe``), or to the end of the
    context if none is left. Depths are sorted, so the points are too."""
    points = []
    for depth in depths:
        pos = int(k * depth / 100)
        while is_safe is not None and pos < k and not is_safe(pos):
            pos += 1
        points.append(pos)
    return points


def insert_needles(sentences: list[str], needles: list[Needle], layout: ContextLayout, joiner: str) -> str:
    """The context ``layout`` describes: each needle before its unit among ``sentences``."""
    parts: list[str] = []
    last = 0
    for pos, needle in zip(layout.points, needles):
        parts.extend(sentences[last:pos])
        parts.append(needle.text)
        last = pos
    parts.extend(sentences[last:])
    return joiner.join(parts)


def token_points(k: int, depths: Sequence[Depth], book: PreparedBook) -> list[int]:
    """Where the needles of pinned depths go among k units: for each, the boundary outside every quotation
    nearest ``depth`` % of the units' tokens (``PreparedBook.nearest_boundary``), so that a depth is where
    the model sees it in every language. Nearest points of sorted depths are sorted too."""
    return [book.nearest_boundary(k, Fraction(depth) / 100) for depth in depths]


def needle_records(needles: list[Needle], depths: Sequence[Depth], layout: ContextLayout,
                   haystack_tokens: Callable[[int], int]) -> list[dict]:
    """The row's needle records: nominal ``depth`` (whole percent; an evenly spaced point rounded half up),
    ``actual_depth``, where the needle landed after the quotation rule, in sentences (100 · boundary / k),
    and ``token_depth``, the same place in tokens: 100 · tokens of the haystack before the needle / tokens
    of the whole haystack (``haystack_tokens(b)``: the first b sentences joined; needles not counted)."""
    k = layout.units
    total = haystack_tokens(k)
    return [{"key": n.key, "value": n.value, "depth": int(d) if isinstance(d, int) else int(d + Fraction(1, 2)),
             "actual_depth": 100 * pos / k if k else float(d),
             "token_depth": 100 * haystack_tokens(pos) / total if total else float(d)}
            for n, d, pos in zip(needles, depths, layout.points)]


@dataclass(frozen=True)
class NeedlePieces:
    """The frame and the needles of a prompt as counted pieces: each needle bare (first in the context) and
    after the joiner (anywhere else)."""

    head: Piece
    tail: Piece
    needles: list[tuple[Piece, Piece]]


def needle_pieces(frame: tuple[str, str], needles: list[Needle], joiner: str, counter: TokenCounter,
                  ) -> tuple[int, NeedlePieces | None]:
    """(tokens of the frame and of the needles after their joiner, the counted pieces or None without cuts),
    from one tokenizer batch."""
    bare = [n.text for n in needles]
    joined = [joiner + text for text in bare]
    texts = [*frame, *bare, *joined]
    counts = counter.count_batch(texts)
    n = len(needles)
    overhead = counts[0] + counts[1] + sum(counts[2 + n:])
    if not counter.exact:
        return overhead, None
    pieces = counter.pieces(texts, counts)
    return overhead, NeedlePieces(pieces[0], pieces[1], list(zip(pieces[2:2 + n], pieces[2 + n:])))


@dataclass(frozen=True)
class NiahContext:
    """A haystack with its needles, and how it was laid out."""

    text: str
    layout: ContextLayout


def fit_haystack(spec: ConfigSpec, budget: int, frame: tuple[str, str], needles: list[Needle],
                 draw: NiahDraw, book: PreparedBook, joiner: str, tokenizer: Tokenizer, exact: BookCounter):
    """The most book sentences (with the needles inserted at ``draw``'s depths) whose whole prompt fits
    ``budget`` tokens.

    Each candidate prompt is counted exactly: by construction with ``exact`` from the layout it was
    built from (``generate/bookcount.py``), else by tokenising it whole. The payload is a NiahContext.
    """
    head, tail = frame
    overhead, pieces = needle_pieces(frame, needles, joiner, exact.counter)
    counted = pieces is not None and exact.exact

    def measure(k: int) -> tuple[int, NiahContext]:
        points = (token_points(k, draw.depths, book) if draw.in_tokens
                  else insertion_points(k, draw.depths, book.is_safe))
        layout = ContextLayout(k, tuple(points))
        context = NiahContext(insert_needles(book.take(k), needles, layout, joiner), layout)
        tokens = exact.count_prompt(pieces.head, layout, pieces.tail, pieces.needles) if counted else None
        return (tokenizer.count(head + context.text + tail) if tokens is None else tokens), context

    return fit_units(
        budget=budget,
        estimate=lambda k: overhead + book.cum(k),
        unit_cost=book.cost,
        measure=measure,
        k_min=0,
        k_max=book.units_for(max(budget, 1)) + 1,
        what=spec.name,
    )


def render_niah(spec: ConfigSpec, task: NiahTask, draw: NiahDraw, sources: Sources, tokenizer: Tokenizer,
                prepared: PreparedCache) -> dict:
    """Assemble the prompt around a haystack filled to the budget; returns the row's content fields."""
    ctx, inst = get_language(spec.context_language), get_language(spec.instruction_language)
    inst_t = sources.niah_template(inst.code)
    needles = make_needles(draw, ctx, sources.niah_template(ctx.code), sources.nouns)
    queries = [sources.nouns.noun(i, inst.code) for i in draw.query_nouns]
    head, tail = prompt_frame(task, queries, inst, inst_t)
    budget = spec.length - task.reserve
    book = prepared.book(ctx.code, tokenizer)
    counter = prepared.book_counter(ctx.code, tokenizer)
    fit = fit_haystack(spec, budget, (head, tail), needles, draw, book, ctx.joiner, tokenizer, counter)
    context = fit.payload.text
    answers = [inst_t.none_word] if not task.relevant else [str(v) for v in draw.answer_values]
    return {
        "input": head + context + tail,
        "answers": answers,
        "num_tokens": fit.tokens,
        "needles": needle_records(needles, draw.depths, fit.payload.layout, counter.haystack_tokens),
        "queries": queries,
        "context_span": [len(head), len(head) + len(context)],
        "num_units": fit.units,
        "budget": budget,
        "reserve": task.reserve,
    }


def niah_fields(spec: ConfigSpec, task: NiahTask, index: int, seed: int, material: RowMaterial) -> dict:
    """The content fields of one NIAH row: the draw of (task, length, index, seed), rendered in the config's languages."""
    sources = material.sources
    draw = draw_niah(task, spec.length, index, seed, sources.nouns, spec.is_cross_lingual, spec.depth)
    return render_niah(spec, task, draw, sources, material.tokenizer, material.prepared)
