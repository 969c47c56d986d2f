"""RULER's variable-tracking chains (``generate_chains`` of ``variable_tracking.py``), whatever the haystack: names of
5 upper-case letters (3 in the in-context example), distinct and never ``VAR``, a value from 10000 to 99998, the
statements ``VAR A = N`` then ``VAR B = VAR A `` (the trailing space is RULER's). Shared by the noise haystack
(``vt.py``) and the book haystacks (``vt_book.py``), with the fields of a row they make."""

from __future__ import annotations

import string
from dataclasses import dataclass

from ...spec.configs import ConfigSpec
from ...spec.families.ruler import RulerTask
from ..rng import StableRng
from .frame import RulerFrame

LETTERS, EXAMPLE_LETTERS = 5, 3  # variable name lengths: the task's, the in-context example's
EXAMPLE_TOKENS = 500  # RULER makes its example to fit max_seq_length=500 with nothing kept for an answer
EXAMPLE_VALUE = "12345"
MAX_EXAMPLE_HOPS = 10  # generate_chains: num_hops = min(10, num_hops) for the example
VALUE_MIN, VALUE_MAX = 10_000, 99_998  # np.random.randint(10000, 99999): the high end excluded
KEYWORD = "VAR"


def draw_name(rng: StableRng, letters: int, taken: set[str]) -> tuple[str, int]:
    """(a name of ``letters`` upper-case letters not in ``taken``, names rejected first); it joins ``taken``."""
    rejected = 0
    while True:
        name = "".join(string.ascii_uppercase[rng.randbelow(26)] for _ in range(letters))
        if name not in taken and name != KEYWORD:
            taken.add(name)
            return name, rejected
        rejected += 1


def statements(names: list[str], value: str) -> list[str]:
    """RULER's chain: ``VAR A = value``, then ``VAR B = VAR A `` for each next variable."""
    return [f"VAR {names[0]} = {value}"] + [f"VAR {names[j + 1]} = VAR {names[j]} " for j in range(len(names) - 1)]


@dataclass(frozen=True)
class Chains:
    """The chains of one prompt: each one's variables and statements, and the names redrawn as repeats."""

    names: tuple[tuple[str, ...], ...]
    statements: tuple[tuple[str, ...], ...]
    rejected: int = 0

    @property
    def value(self) -> str:
        """The value the question asks about (the first chain's)."""
        return self.statements[0][0].split("=")[-1].strip()


def draw_chains(rng: StableRng, args: dict, letters: int, value: str | None) -> Chains:
    """``num_chains`` chains of ``num_hops`` hops: distinct names, each chain's value drawn (or ``value``)."""
    taken: set[str] = set()
    names, lines, rejected = [], [], 0
    for _ in range(args["num_chains"]):
        drawn = [draw_name(rng, letters, taken) for _ in range(args["num_hops"] + 1)]
        chain = [name for name, _ in drawn]
        rejected += sum(r for _, r in drawn)
        names.append(tuple(chain))
        lines.append(tuple(statements(chain, value or str(rng.randint(VALUE_MIN, VALUE_MAX)))))
    return Chains(tuple(names), tuple(lines), rejected)


def vt_row(spec: ConfigSpec, task: RulerTask, frame: RulerFrame, head: str, context: str, chains: Chains,
           fitted: tuple[int, int], needles: list[dict]) -> dict:
    """A VT row's content fields: the prompt ``head + context + frame.tail``, the chain's variables as answers,
    ``fitted`` = (num_tokens, num_units), the statements' ``needles`` records."""
    return {
        "input": head + context + frame.tail,
        "answers": list(chains.names[0]),
        "num_tokens": fitted[0],
        "needles": needles,
        "queries": [chains.value],
        "context_span": [len(head), len(head) + len(context)],
        "num_units": fitted[1],
        "budget": spec.length - task.reserve,
        "reserve": task.reserve,
        "answer_prefix": frame.answer_prefix,
    }
