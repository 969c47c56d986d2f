"""RULER's variable tracking in a language's book haystack (``pl-en_ruler_vt_32768``; ``pl_ruler_vt_32768`` where a
checked translation of RULER's instruction exists): RULER's chains, RULER's rule for a text haystack, ONERULER's books.

RULER's rule for a text haystack (``variable_tracking.py``, ``type_haystack == 'essay'``): the haystack is cut into
sentences; the statements of the chains, in chain order (``shuffle_sublists_heap`` interleaves the chains at random
and keeps each one's order: with RULER's one chain, the chain itself), go before sentence ``int(n * depth / 100)``
of the n sentences, the depths drawn distinct from the 40-point grid ``round(linspace(0, 100, 40))`` and sorted;
each statement is stripped and ended with ``"."`` (``VAR B = VAR A.``) and joined to the sentences like one.

Here the sentences are the context language's book as the NIAH rows have them (``PreparedCache.book``: ONERULER's
book segmented, cycled from its start, joined by the language's joiner, pre-tokenised and counted exactly by
``BookCounter``); the statements are placed by NIAH's rule (``niah.insertion_points``: RULER's point, moved on past
a quotation or bracket) and the haystack fitted as NIAH's is (``niah.fit_haystack``): the most sentences whose
prompt and answer prefix fit ``length - 30`` tokens, so that the next sentence would not. The chains and depths of
a row depend on (seed, length, index) only: every language hides the same chain at the same depths.

The in-context example: RULER makes it with the task's own haystack type (an essay task's example is an essay),
so a book row's example is made from the same book, its opening sentences (RULER's example and task both begin at
the start of the essays), with 3-letter names and the value 12345, fitted to 500 tokens (prompt and answer
prefix), once per (config, seed, tokenizer). Each row renames its names and value (RULER's ``randomize_icl``) in
the statements, question and answer only, never inside the book's text (RULER's ``str.replace`` would also rename
a book word that equals a name, or a 12345 in the text).
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from ...spec.configs import ConfigSpec
from ...spec.families.ruler import RulerTask
from ...spec.languages import get_language
from ..bookcount import ContextLayout
from ..budget import fit_units
from ..material import RowMaterial
from ..niah import Needle, NiahDraw, fit_haystack, grid_depths, insert_needles, insertion_points, needle_records
from ..prepared import PreparedBook
from ..rng import StableRng
from .common import in_language, ruler_template
from .frame import ruler_frame
from .vt_chains import (EXAMPLE_LETTERS, EXAMPLE_TOKENS, EXAMPLE_VALUE, KEYWORD, LETTERS, MAX_EXAMPLE_HOPS,
                        VALUE_MAX, VALUE_MIN, draw_chains, draw_name, statements, vt_row)

_VALUE_MARK = "\x00value\x00"  # stands for the example's value until a row draws its own (no book holds a NUL)


def _name_mark(j: int) -> str:
    return f"\x00name{j}\x00"


def interleaved(rng: StableRng, chains: tuple[tuple[str, ...], ...]) -> list[str]:
    """RULER's ``shuffle_sublists_heap``: the chains' statements merged at random, each chain's kept in order."""
    heap = [(rng.next_u64(), i, 0) for i in range(len(chains))]
    heapq.heapify(heap)
    out: list[str] = []
    while heap:
        _, i, j = heapq.heappop(heap)
        out.append(chains[i][j])
        if j + 1 < len(chains[i]):
            heapq.heappush(heap, (rng.next_u64(), i, j + 1))
    return out


def statement_needle(statement: str) -> Needle:
    """A statement as a sentence of a text haystack (RULER: stripped, ``"."`` added): key = its right-hand side,
    value = the variable it assigns."""
    left, right = statement.split("=", 1)
    return Needle(right.strip(), left.removeprefix(KEYWORD).strip(), statement.strip() + ".")


def placed_context(book: PreparedBook, units: int, needles: list[Needle], depths: list[int], joiner: str) -> str:
    """``units`` book sentences with the statements before the sentences RULER's rule picks."""
    layout = ContextLayout(units, tuple(insertion_points(units, depths, book.is_safe)))
    return insert_needles(book.take(units), needles, layout, joiner)


@dataclass(frozen=True)
class BookExample:
    """The in-context example of a book config, its names and value as marks: ``text`` (prompt, answer prefix,
    answer, newline) and the names RULER drew for it."""

    text: str
    names: tuple[str, ...]

    def with_values(self, names: list[str], value: str) -> str:
        """The example with its marks replaced by ``names`` and ``value``."""
        text = self.text.replace(_VALUE_MARK, value)
        for j, name in enumerate(names):
            text = text.replace(_name_mark(j), name)
        return text


def book_example(spec: ConfigSpec, task: RulerTask, args: dict, seed: int, material: RowMaterial) -> BookExample:
    """RULER's in-context example over the book's opening sentences: as many as keep its prompt and answer prefix
    within 500 tokens (with the names RULER drew and 12345)."""
    hops = min(MAX_EXAMPLE_HOPS, args["num_hops"])
    rng = StableRng("ruler-vt-book-example", seed, task.name, spec.length)
    chains = draw_chains(rng, {**args, "num_hops": hops}, EXAMPLE_LETTERS, EXAMPLE_VALUE)
    marks = [_name_mark(j) for j in range(len(chains.names[0]))]
    needles = [statement_needle(s) for s in statements(marks, _VALUE_MARK)]
    depths = grid_depths(rng, len(needles))
    template = in_language(ruler_template(material.ruler.tasks, task), material.ruler.tasks,
                           spec.instruction_language)
    whole = template.template + template.answer_prefix
    ctx = get_language(spec.context_language)
    book = material.prepared.book(ctx.code, material.tokenizer)
    counter = material.prepared.counter(material.tokenizer)

    def text(n: int) -> str:
        context = placed_context(book, n, needles, depths, ctx.joiner)
        return whole.format(context=context, query=_VALUE_MARK, num_v=args["num_hops"] + 1)

    def real(marked: str) -> str:
        return BookExample(marked, ()).with_values(list(chains.names[0]), EXAMPLE_VALUE)

    base = counter.count(real(text(0)))
    fit = fit_units(budget=EXAMPLE_TOKENS, estimate=lambda n: base + book.cum(n), unit_cost=book.cost,
                    measure=lambda n: (counter.count(real(text(n))), None), k_min=0,
                    k_max=book.units_for(EXAMPLE_TOKENS) + 1, what=f"{spec.name} (in-context example)")
    return BookExample(text(fit.units) + " " + " ".join(marks) + "\n", chains.names[0])


def renamed_book_example(example: BookExample, rng: StableRng) -> str:
    """RULER's ``randomize_icl`` on a book example: fresh names (same length, distinct, never ``VAR``) and value."""
    taken = set(example.names)
    names = [draw_name(rng, len(old), taken)[0] for old in example.names]
    return example.with_values(names, str(rng.randint(VALUE_MIN, VALUE_MAX)))


def book_vt_fields(spec: ConfigSpec, task: RulerTask, index: int, seed: int, material: RowMaterial) -> dict:
    """The content fields of one RULER VT row in a book haystack (the config's context language)."""
    args = dict(material.ruler.tasks.setting(task.ruler_name).args)
    example = material.prepared.shared(("ruler-vt-book-example", spec.name, seed), material.tokenizer,
                                       lambda: book_example(spec, task, args, seed, material))
    rng = StableRng("ruler-vt-book", seed, task.name, spec.length, index)
    chains = draw_chains(rng, args, LETTERS, None)
    needles = [statement_needle(s) for s in interleaved(rng, chains.statements)]
    depths = grid_depths(rng, len(needles))
    template = in_language(ruler_template(material.ruler.tasks, task), material.ruler.tasks,
                           spec.instruction_language)
    frame = ruler_frame(template, {"query": chains.value, "num_v": args["num_hops"] + 1})
    head = renamed_book_example(example, rng) + "\n" + frame.head
    ctx = get_language(spec.context_language)
    book = material.prepared.book(ctx.code, material.tokenizer)
    counter = material.prepared.book_counter(ctx.code, material.tokenizer)
    placement = NiahDraw((), (), tuple(depths), (), ())  # fit_haystack reads the depths (in sentences) alone
    fit = fit_haystack(spec, spec.length - task.reserve, (head, frame.tail + frame.answer_prefix), needles,
                       placement, book, ctx.joiner, material.tokenizer, counter)
    return vt_row(spec, task, frame, head, fit.payload.text, chains, (fit.tokens, fit.units),
                  needle_records(needles, depths, fit.payload.layout, counter.haystack_tokens))
