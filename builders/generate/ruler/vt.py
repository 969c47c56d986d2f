"""RULER's variable tracking (``scripts/data/synthetic/variable_tracking.py`` of NVIDIA/RULER), as RULER makes it.

A row of ``ruler_vt``, its settings (``num_chains``, ``num_hops``, ``type_haystack``) read from
``synthetic.yaml``, its template, answer prefix and ``tokens_to_generate`` from ``constants.py``:

- chains of ``num_hops + 1`` variables of 5 upper-case letters, ``VAR X = NNNNN`` then ``VAR Y = VAR X `` (the
  trailing space is RULER's), the value a 5-digit number from 10000 to 99998 (``np.random.randint(10000,
  99999)``); each chain's statements in order at sorted line indexes drawn among the noise lines
  (``random.sample(range(len(sentences)), len(chain))``, statement j inserted at ``index_j + j``), lines
  joined by newlines, then ``context.replace(". \\n", ".\\n")`` (the noise line is variable_tracking.py's own, read
  from that file: ``sources/ruler/texts.py``);
- the question asks for the first chain's value; the answer is its variables; the answer prefix says how many
  (``{num_v}`` = ``num_hops + 1``);
- before the task, RULER's in-context example (``in_context_example``): the same task made once per config
  with 3-letter variables and the value 12345 to fit 500 tokens (prompt and answer prefix), followed by its
  answer and a newline; every row then renames its variables and value at random (``randomize_icl``) and puts
  it before the prompt, after one more newline.

Where RULER's draws can collide, ours do not: variables of a chain are distinct (a repeat makes RULER's
generator crash or start a second chain), and a renamed example variable is never another of its names or
``VAR`` (RULER's ``str.replace`` would then rename two, or the keyword). Each draw comes from the project's
stable RNG per row; the example per (config, seed). This module makes RULER's noise haystack (RULER's settings),
which every English context keeps; a context in another language is ONERULER's book in that language
(``vt_book.py``: RULER's rule for a text haystack).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...base.errors import OneRulerError
from ...spec.configs import ConfigSpec
from ...spec.families.ruler import RulerTask
from ..budget import fit_units
from ..counting import TokenCounter
from ..material import RowMaterial
from ..rng import StableRng
from .fit import fit_tight
from .frame import RulerFrame, ruler_frame
from .lines import LineCounter, make_lines
from .vt_book import book_vt_fields
from .vt_chains import (EXAMPLE_LETTERS, EXAMPLE_TOKENS, EXAMPLE_VALUE, KEYWORD, LETTERS, MAX_EXAMPLE_HOPS,
                        VALUE_MAX, VALUE_MIN, Chains, draw_chains, draw_name, vt_row)


def layout(rng: StableRng, noise: str, noise_lines: int, chains: Chains) -> list[str]:
    """The context's lines: ``noise_lines`` copies of the noise line, each chain inserted at sorted indexes in turn
    (RULER's ``sentences.insert(index_j + j, chain[j])``)."""
    lines = [noise] * noise_lines
    for chain in chains.statements:
        for j, index in enumerate(sorted(rng.sample(len(lines), len(chain)))):
            lines.insert(index + j, chain[j])
    return lines


def context_of(lines: list[str]) -> str:
    """RULER's context: the lines joined by newlines, ``". \\n"`` then made ``".\\n"``."""
    return "\n".join(lines).replace(". \n", ".\n")


@dataclass(frozen=True)
class Example:
    """RULER's in-context example of a config: its text (prompt, answer prefix, answer, newline) and the names of
    its answer, which every row renames."""

    text: str
    names: tuple[str, ...]


def in_context_example(spec: ConfigSpec, task: RulerTask, args: dict, seed: int, material: RowMaterial) -> Example:
    """The example of a config, made once per (config, seed, tokenizer): as many noise lines as keep its prompt
    and answer prefix within 500 tokens."""
    example_args = {**args, "num_hops": min(MAX_EXAMPLE_HOPS, args["num_hops"])}
    chains = draw_chains(StableRng("ruler-vt-example", seed, task.name, spec.length), example_args,
                         EXAMPLE_LETTERS, EXAMPLE_VALUE)
    template = material.ruler.tasks.template(task.ruler_name)
    whole = template.template + template.answer_prefix
    counter = material.prepared.counter(material.tokenizer)
    noise_line = material.ruler.texts.vt_noise

    def text(n: int) -> str:
        rng = StableRng("ruler-vt-example-lines", seed, task.name, spec.length, n)
        return whole.format(context=context_of(layout(rng, noise_line, n, chains)), query=EXAMPLE_VALUE,
                            num_v=args["num_hops"] + 1)

    noise = make_lines(counter, [noise_line])[0].tokens
    base = counter.count(whole.format(context="", query=EXAMPLE_VALUE, num_v=args["num_hops"] + 1))
    hops = example_args["num_hops"] + 1
    fit = fit_units(budget=EXAMPLE_TOKENS, estimate=lambda n: base + n * noise, unit_cost=lambda n: 0,
                    measure=lambda n: (counter.count(text(n)), None), k_min=hops,
                    k_max=max(hops, EXAMPLE_TOKENS // max(noise, 1)) + 1, what=f"{spec.name} (in-context example)")
    answer = " ".join(chains.names[0])
    return Example(text(fit.units) + " " + answer + "\n", chains.names[0])


def renamed(example: Example, rng: StableRng) -> tuple[str, int]:
    """RULER's ``randomize_icl``: each answer variable renamed (same length, never another of its names or ``VAR``),
    the value 12345 replaced by a fresh one; and the names redrawn for that."""
    text, taken, rejected = example.text, set(example.names), 0
    for old in example.names:
        new, redraws = draw_name(rng, len(old), taken)
        text, rejected = text.replace(old, new), rejected + redraws
    return text.replace(EXAMPLE_VALUE, str(rng.randint(VALUE_MIN, VALUE_MAX))), rejected


def _records(lines: list[str], noise: str, counter: LineCounter, noise_tokens: int) -> list[dict]:
    """Each statement as a needle: key = its right-hand side, value = the variable it assigns; its depth is the
    share of the noise lines before it (``actual_depth``; ``depth`` rounded) and of their tokens (``token_depth``)."""
    def tokens(m: int) -> int:  # the first m noise lines joined, alone
        return counter.haystack_tokens(max(m - 1, 0) * noise_tokens, noise if m else "", lambda: "\n".join([noise] * m))

    total = sum(line == noise for line in lines)
    whole = tokens(total)
    out, before = [], 0
    for line in lines:
        if line == noise:
            before += 1
            continue
        left, right = line.split("=", 1)
        out.append({"key": right.strip(), "value": left.removeprefix(KEYWORD).strip(),
                    "depth": int(100 * before / total + 0.5), "actual_depth": 100 * before / total,
                    "token_depth": 100 * tokens(before) / whole})
    return out


def ruler_vt_fields(spec: ConfigSpec, task: RulerTask, index: int, seed: int, material: RowMaterial) -> dict:
    """The content fields of one RULER VT row (those of the RULER VT family)."""
    if spec.context_language != "en":
        return book_vt_fields(spec, task, index, seed, material)
    setting = material.ruler.tasks.setting(task.ruler_name)
    args = dict(setting.args)
    if args["type_haystack"] != "noise":
        raise OneRulerError(f"task {task.name!r}: RULER's setting asks for a {args['type_haystack']!r} haystack; "
                            f"this generator makes RULER's noise haystack only")
    example = material.prepared.shared(("ruler-vt-example", spec.name, seed), material.tokenizer,
                                       lambda: in_context_example(spec, task, args, seed, material))
    rng = StableRng("ruler-vt", seed, task.name, spec.length, index)
    chains = draw_chains(rng, args, LETTERS, None)
    frame: RulerFrame = ruler_frame(material.ruler.tasks.template(task.ruler_name),
                                    {"query": chains.value, "num_v": args["num_hops"] + 1})
    head = renamed(example, rng)[0] + "\n" + frame.head
    counter: TokenCounter = material.prepared.counter(material.tokenizer)
    noise_line = material.ruler.texts.vt_noise
    lines = LineCounter(counter, head, frame.tail + frame.answer_prefix, {noise_line[0], KEYWORD[0]})
    noise = make_lines(counter, [noise_line])[0].tokens
    chain_units = sum(line.tokens for line in make_lines(counter, [s for c in chains.statements for s in c]))

    def build(n: int) -> list[str]:
        return layout(StableRng("ruler-vt-lines", seed, task.name, spec.length, index, n), noise_line, n, chains)

    def measure(n: int) -> tuple[int, None]:
        return lines.prompt_tokens((n - 1) * noise + chain_units, noise_line, lambda: context_of(build(n))), None

    n_chain = sum(len(c) for c in chains.statements)
    fit = fit_tight(spec, task.reserve, lambda n: lines.head_tokens + chain_units + n * noise, measure,
                    args["num_hops"] + 1, max(n_chain, (spec.length - lines.head_tokens) // max(noise, 1)) + 1,
                    "noise line")
    placed = build(fit.units)
    context = context_of(placed)
    tokens = fit.tokens if context == "\n".join(placed) else counter.count(head + context + lines.tail)
    records = _records(placed, noise_line, lines, noise)
    return vt_row(spec, task, frame, head, context, chains, (tokens, fit.units), records)
