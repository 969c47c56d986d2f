"""What a task family decides, as one record (``TaskFamily``), and what every task of a family offers (``Task``).

A family is a kind of example with its own generator (``generate/``) and scoring rule (``scoring/``):
ONERULER's needle tasks (``families/niah.py``) and common-words extraction (``families/cwe.py``). Every
place outside a family's own modules that must know something about a task asks its family record —
its reserve, the unit its context is counted in, its count margin, whether it has needles, whether it
allows cross-lingual pairs and depth sweeps, its scoring rule, its own row fields, what the card and
``show`` say — never the task's name. ``spec/tasks.py`` lists the families; docs/architecture.md
("Adding a task family") says which files a new one adds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Protocol

# The row field (a string) of a family whose answers start with set words the model continues (RULER's answer
# prefix): ``input`` is the prompt without them, and ``run``, lm-eval and Inspect send them after the chat template
# (a prefilled assistant turn) where the server continues one, else after the prompt. Keyed on the field, never a task.
ANSWER_PREFIX = "answer_prefix"
PREFILL, APPENDED = "assistant prefill", "appended to the prompt"  # the two ways it is sent, as runs and logs say


def continuation(answer: str | None, prefix: str | None) -> str | None:
    """The model's continuation of an answer prefix: ``answer`` without a copy of the prefix it begins with (a server
    that continues a prefill may return the prefix first: llama.cpp does)."""
    if answer is not None and prefix and answer.startswith(prefix):
        return answer[len(prefix):]
    return answer

# The datatypes a family's own row field may have (``spec/schema.py`` turns them into ``datasets`` features).
FIELD_TYPES: tuple[str, ...] = ("string", "bool", "int32", "int64", "float64", "list<string>")


@dataclass(frozen=True)
class RowField:
    """A column of a row: its name, datatype (one of FIELD_TYPES, or a core field's own) and meaning (the card's)."""

    name: str
    dtype: str
    description: str


class Task(Protocol):
    """What every task offers, whatever its family: a task record of ``families/*.py`` has these attributes."""

    name: str  # the task id in config names (``s_niah``, ``cwe_easy``)
    paper_name: str
    reserve: int  # tokens kept free for the answer: the row's reserve and max new tokens
    scoring_rule: str  # the name of the rule that scores it (``scoring.RULES``)
    main: bool  # one of the tasks of the paper's main grid

    @property
    def family(self) -> "TaskFamily":
        """The family record of the task."""

    @property
    def gold(self) -> str:
        """How its gold answer is written, in words (the card's task table)."""

    @property
    def card_cells(self) -> tuple[str, str]:
        """(needles, setup): the task table's two family-specific cells."""

    @property
    def order(self) -> tuple[str, int]:
        """(the task it is listed with, rank among that task's variants): reports list ``mv16_niah`` after mv_niah."""


@dataclass(frozen=True)
class TaskForm:
    """Task ids a family makes on demand (``mv{K}_niah``): the ids' pattern, how to write one, and the maker."""

    pattern: re.Pattern[str]  # fullmatch of a task id
    text: str  # for errors: ``mv{K}_niah or mv{K}e_niah (K = 2..256)``
    make: Callable[[str], Task]  # the task of a matching id; ValueError when it matches but is not valid
    example: str  # a valid id of this form


@dataclass(frozen=True)
class PoolFields:
    """A family whose context draws from a finite pool that may run out before the budget (CWE's word pools, XQuAD's
    paragraphs): the row fields holding the pool's size and whether it ran out, and the words the card and the
    build's warning say it with (``what``: "word pool"; ``unit``: "words")."""

    size: str
    exhausted: str
    what: str
    unit: str


@dataclass(frozen=True)
class LanguageRule:
    """Which languages a task's configs may have: its context languages and its instruction languages (None: any of
    the benchmark's 26), and why, in the words of the error that refuses another (``spec/configs.py``).

    Whether the two may differ in one config is the family's ``cross_lingual``; RULER's English tasks allow ``en``
    only, its variable tracking any context with English instructions (``pl-en_ruler_vt_8192``), or with the
    context's own where a native speaker's translation of RULER's instructions exists (``translated``).
    """

    contexts: tuple[str, ...] | None = None
    instructions: tuple[str, ...] | None = None
    why: str = ""
    translated: str | None = None  # RULER's family whose native translation (spec/translated.py) also allows the
    # context's own language as the instruction language: ``pl_ruler_vt_32768`` once pl.yaml has the section

    def allows(self, context: str, instruction: str, translated: tuple[str, ...] = ()) -> bool:
        """Whether a config may have this context and instruction language; ``translated``: the languages that have
        a translation of the rule's ``translated`` section (a native config of one of them is allowed)."""
        if self.contexts is not None and context not in self.contexts:
            return False
        if self.instructions is None or instruction in self.instructions:
            return True
        return self.translated is not None and instruction == context and context in translated


ANY_LANGUAGE = LanguageRule()


@dataclass(frozen=True)
class TaskFamily:
    """Everything a family decides that the rest of the package reads.

    ``name`` keys scores.json's per-family counts and run's margins; ``label`` is how tables say it;
    ``unit`` is what ``num_units`` counts; ``reserve`` the answer tokens of its tasks (a task may keep
    more); ``count_margin`` how much more than ``num_tokens`` a model's tokenizer may need for its
    prompts (``run``'s estimate when nothing can count them); ``needles`` whether its rows place needles
    at depths (depth views, heatmaps, ``show``'s highlights); ``cross_lingual`` / ``depth_sweeps``
    whether ``{ctx}-{inst}_`` and ``_at{D}`` configs exist; ``languages`` the languages its configs may have
    (``task_languages``: a task's own rule where it differs); ``upstreams`` the pinned upstreams beyond ONERULER's
    release its rows are made from (``sources/ruler/pins.py``: RULER's files, the essays; ``task_upstreams`` per task
    where they differ), which the card credits and ``push`` looks at; ``book_haystack`` the context languages whose
    ONERULER book is its haystack (ONERULER's NIAH: every one; RULER's VT: all but English; the card's book
    sections); ``scoring_rule`` its tasks' rule unless a task
    names another; ``row_fields`` the columns its rows add to the common core; ``forms`` task ids made
    on demand; ``build_cost`` the order of a build among configs of one length (higher first: its rows
    cost more); ``show_lines`` what ``show`` adds about one of its rows; ``pool`` its row fields saying that a
    finite pool ran out (the card's shortfalls, the build's warning).
    """

    name: str
    label: str
    summary: str
    unit: str
    reserve: int
    count_margin: float
    needles: bool
    cross_lingual: bool
    depth_sweeps: bool
    scoring_rule: str
    tasks: tuple[Task, ...]
    row_fields: tuple[RowField, ...] = ()
    forms: tuple[TaskForm, ...] = ()
    build_cost: int = 0
    show_lines: Callable[[dict], list[str]] | None = None
    languages: LanguageRule = ANY_LANGUAGE
    task_languages: tuple[tuple[str, LanguageRule], ...] = ()
    upstreams: tuple[str, ...] = ()
    task_upstreams: tuple[tuple[str, tuple[str, ...]], ...] = ()
    pool: PoolFields | None = None
    book_haystack: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        bad = [f.name for f in self.row_fields if f.dtype not in FIELD_TYPES]
        if bad:
            raise ValueError(f"family {self.name!r}: field(s) {', '.join(bad)} need a type of {', '.join(FIELD_TYPES)}")

    @property
    def prefills(self) -> bool:
        """Whether its rows carry an answer prefix (``ANSWER_PREFIX``) that the model's answer continues."""
        return any(f.name == ANSWER_PREFIX for f in self.row_fields)

    def language_rule(self, task: str) -> LanguageRule:
        """The languages a task of this family may have: its own rule (``task_languages``), else the family's."""
        return dict(self.task_languages).get(task, self.languages)

    def upstreams_of(self, task: str) -> tuple[str, ...]:
        """The pinned upstreams a task's rows are made from (``task_upstreams``, else the family's)."""
        return dict(self.task_upstreams).get(task, self.upstreams)

    def reads_book(self, context_language: str) -> bool:
        """Whether a config of this family in this context language has the language's book as its haystack."""
        return context_language in self.book_haystack

    def describe(self, row: dict) -> list[str]:
        """The lines ``show`` prints about a row of this family beyond the common ones."""
        return self.show_lines(row) if self.show_lines is not None else []
