"""Config names: parse, validate, render, and the standard grid (SPEC §3).

Grammar: ``{ctx}[-{inst}]_{task}_{length}[_at{depth}][_{alias}]``, e.g. ``pl_s_niah_128k``,
``ko-en_none_niah_32k``, ``en_mv_niah_64k_llama3``, ``pl_s_niah_32k_at25`` (every needle at 25 %),
``de_mv16e_niah_128k`` (16 values evenly spaced; ``spec/tasks.py``).
"""

from __future__ import annotations

import difflib
import itertools
import re
from dataclasses import dataclass
from typing import Iterable, Iterator

from ..base.errors import OneRulerError, named_setting
from .defaults import ALIAS_RULE, BUILTIN_ALIASES, DEFAULT_ALIAS, RESERVED_ALIAS_RE, valid_alias
from .languages import CROSS_LINGUAL_LANGUAGES, LANGUAGE_CODES, LANGUAGES
from .tasks import (CROSS_LINGUAL_TASKS, FAMILIES, MAIN_TASKS, TASKS, allows_cross_lingual, form_of, get_task, task_forms,
                    valid_tasks)
from .translated import translated_languages

STANDARD_LENGTHS: tuple[int, ...] = (8_000, 32_000, 64_000, 128_000)
# The longest config accepted: 10m tokens, 10x the longest context window of current models (1m).
# A row of that length is ~40 MB of text and a 50-row config ~2 GB of memory while it is written;
# anything longer is a typo (``pl_s_niah_999999999999``) that would only end in a MemoryError.
MAX_LENGTH = 10_000_000
# A length written without suffix below this is almost surely a forgotten ``k`` (``pl_s_niah_128``).
MIN_BARE_LENGTH = 1_000

_LENGTH_RE = re.compile(r"^(?P<num>[0-9]+)(?P<unit>[km]?)$")
_DEPTH_RE = re.compile(r"^at(?P<depth>0|[1-9][0-9]*)$")
DEPTH_FORM = "_at{D} with D an integer percent 0..100 (0: before the first haystack sentence, 100: after the last)"


class ConfigNameError(OneRulerError, ValueError):
    """A config name (or one of its parts) is not valid (a ``ValueError`` too, as ``datasets`` expects of a name).

    ``suggests``: the message names a valid config already (no nearest standard name is added to it)."""

    def __init__(self, message: str = "", *, suggests: bool = False):
        super().__init__(message)
        self.suggests = suggests


def parse_length(text: str) -> int:
    """``8k`` → 8000, ``1m`` → 1,000,000, ``5000`` → 5000 (k = 1,000, not 1,024)."""
    m = _LENGTH_RE.match(text.strip().lower())
    if not m:
        raise ConfigNameError(
            f"invalid length {text!r}; use a positive integer with optional k/m suffix, "
            f"e.g. 8k 32k 64k 128k 256k 1m 5000"
        )
    value = int(m["num"]) * {"": 1, "k": 1_000, "m": 1_000_000}[m["unit"]]
    if value <= 0:
        raise ConfigNameError(f"invalid length {text!r}: must be positive")
    return value


def render_length(value: int) -> str:
    """Inverse of :func:`parse_length` in canonical form (``128000`` → ``128k``)."""
    if value % 1_000_000 == 0:
        return f"{value // 1_000_000}m"
    if value % 1_000 == 0:
        return f"{value // 1_000}k"
    return str(value)


def too_long(length: int) -> str:
    """Why a length is refused: above MAX_LENGTH (an error's message)."""
    return (f"length {length:,} tokens is above the maximum of {render_length(MAX_LENGTH)} ({MAX_LENGTH:,} tokens; "
            f"the paper's longest is 128k)")


class _LazyHint:
    """The 'did you mean' suffix for a bad name, computed only when an error message is built: the nearest name of the
    standard grid, unless the name's task (``task``, once parsed) has no config there (a RULER task)."""

    def __init__(self, name: str):
        self.name = name
        self.task: str | None = None

    def __format__(self, spec: str) -> str:
        if self.task is not None and self.task not in {c.task for c in iter_standard_configs()}:
            return ""
        return did_you_mean(self.name, iter_standard_names())


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` (did you mean 'x'?)`` with the closest of ``choices``, or "" when none is close."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.5)
    return f" (did you mean {close[0]!r}?)" if close else ""


@dataclass(frozen=True)
class ConfigSpec:
    """One benchmark configuration; validates itself on construction."""

    context_language: str
    task: str
    length: int
    instruction_language: str = ""
    tokenizer_alias: str | None = None  # None: text-control (cl100k)
    depth: int | None = None  # every needle at this depth in percent (``_at{depth}``); None: the task's draws

    def __post_init__(self) -> None:
        if not self.instruction_language:
            object.__setattr__(self, "instruction_language", self.context_language)
        for role, code in (("context", self.context_language), ("instruction", self.instruction_language)):
            if code not in LANGUAGES:
                raise ConfigNameError(
                    f"unknown {role} language {code!r}{did_you_mean(code, LANGUAGE_CODES)}; "
                    f"valid: {', '.join(LANGUAGE_CODES)}"
                )
        try:
            task = get_task(self.task)
        except ValueError as exc:
            if form_of(self.task):  # mv1_niah, mv1000_niah: the form's rule, not "unknown task"
                raise ConfigNameError(str(exc)) from None
            raise ConfigNameError(
                f"unknown task {self.task!r}{did_you_mean(self.task, TASKS)}; valid: {valid_tasks()}"
            ) from None
        if not isinstance(self.length, int) or isinstance(self.length, bool) or self.length <= 0:
            raise ConfigNameError(f"invalid length {self.length!r}: must be a positive integer")
        if self.length > MAX_LENGTH:
            raise ConfigNameError(too_long(self.length))
        _check_languages(self, task)
        if self.is_cross_lingual and not allows_cross_lingual(task):
            raise ConfigNameError(
                f"cross-lingual configs exist only for {_labels('cross_lingual')} tasks, not {self.task!r}; "
                f"valid: {', '.join(n for n, t in TASKS.items() if allows_cross_lingual(t))}"
            )
        if self.tokenizer_alias is not None and not valid_alias(self.tokenizer_alias):
            raise ConfigNameError(f"invalid tokenizer alias {self.tokenizer_alias!r}: use {ALIAS_RULE}")
        if self.depth is not None:
            _check_depth(self.depth, task)

    @property
    def is_cross_lingual(self) -> bool:
        """Context and instructions in different languages."""
        return self.context_language != self.instruction_language

    @property
    def languages(self) -> str:
        """The name's language part: ``pl``, or ``ko-en`` (context-instructions) when cross-lingual."""
        return language_label(self.context_language, self.instruction_language)

    @property
    def alias(self) -> str:
        """The alias of the tokenizer that measures lengths (cl100k for text-control)."""
        return self.tokenizer_alias or DEFAULT_ALIAS

    @property
    def name(self) -> str:
        """The config name: ``{languages}_{task}_{length}[_at{depth}][_{alias}]``."""
        parts = [self.languages, self.task, render_length(self.length)]
        if self.depth is not None:
            parts.append(f"at{self.depth}")
        if self.tokenizer_alias is not None:
            parts.append(self.tokenizer_alias)
        return "_".join(parts)

    def __str__(self) -> str:
        return self.name


def language_label(context_language: str, instruction_language: str) -> str:
    """The language part of a config name and the reports' language column: ``pl``, or ``ko-en`` (context-instructions)
    when the two differ."""
    if context_language == instruction_language:
        return context_language
    return f"{context_language}-{instruction_language}"


def _labels(allows: str) -> str:
    """The families that allow something (``cross_lingual``, ``depth_sweeps``), as their labels: ``NIAH``."""
    return "/".join(f.label for f in FAMILIES.values() if getattr(f, allows)) or "no"


def _check_languages(spec: ConfigSpec, task) -> None:
    """ConfigNameError unless the task's family allows the config's languages (``TaskFamily.language_rule``, with the
    languages that have a translation of its instructions, ``spec/translated.py``): the valid languages and a name
    that has them."""
    rule = task.family.language_rule(task.name)
    ctx, inst = spec.context_language, spec.instruction_language
    if rule.allows(ctx, inst):
        return
    if rule.translated is not None and ctx == inst and rule.allows(ctx, inst, translated_languages(rule.translated)):
        return
    contexts = ", ".join(rule.contexts) if rule.contexts is not None else f"any of the {len(LANGUAGES)} languages"
    instructions = ", ".join(rule.instructions) if rule.instructions is not None else "as the context"
    ok_ctx = ctx if rule.contexts is None or ctx in rule.contexts else rule.contexts[0]
    ok_inst = inst if rule.instructions is None or inst in rule.instructions else rule.instructions[0]
    if ok_ctx != ok_inst and not task.family.cross_lingual:
        ok_inst = ok_ctx
    rest = spec.name.split("_", 1)[1]
    wrong = (f"context language {ctx!r}" if ok_ctx != ctx else f"instruction language {inst!r}")
    raise ConfigNameError(f"task {task.name!r} takes no {wrong} ({rule.why}): contexts {contexts}, instructions "
                          f"{instructions}; e.g. {language_label(ok_ctx, ok_inst)}_{rest}", suggests=True)


def _check_depth(depth: object, task) -> None:
    """ConfigNameError unless ``depth`` is an integer 0..100 and the task's family sweeps depths."""
    if not isinstance(depth, int) or isinstance(depth, bool) or not 0 <= depth <= 100:
        raise ConfigNameError(f"invalid depth {depth!r}: use {DEPTH_FORM}")
    if not task.family.depth_sweeps:
        why = "has no fixed-depth configs" if task.family.needles else "has no needles"
        raise ConfigNameError(f"a fixed depth needs a {_labels('depth_sweeps')} task, not {task.name!r} "
                              f"({task.family.label} {why})")
    if getattr(task, "even", False):
        raise ConfigNameError(f"{task.name!r} places its values evenly by definition; a fixed depth needs "
                              f"{task.name.replace('e_niah', '_niah')!r} or another NIAH task")


def parse_depth(part: str) -> int:
    """``at25`` → 25; ConfigNameError for any other word starting with ``at`` + digit, '-' or '+'."""
    m = _DEPTH_RE.match(part)
    if m is None or int(m["depth"]) > 100:
        raise ConfigNameError(f"invalid depth part {part!r}: use {DEPTH_FORM}, e.g. at25")
    return int(m["depth"])


def parse_config_name(name: str, aliases: Iterable[str] | None = None) -> ConfigSpec:
    """Parse a config name; ``aliases`` are the tokenizer aliases accepted as a suffix.

    Raises ConfigNameError naming the faulty part, the valid choices and the nearest standard name.
    """
    known_aliases = tuple(BUILTIN_ALIASES) + tuple(a for a in (aliases or ()) if a not in BUILTIN_ALIASES)
    hint = _LazyHint(name)
    if not isinstance(name, str) or "_" not in name:
        raise ConfigNameError(
            f"invalid config name {name!r}: expected {{lang}}_{{task}}_{{length}}[_at{{depth}}][_{{tokenizer}}], "
            f"e.g. pl_s_niah_128k{hint}"
        )
    lang_part, rest = name.split("_", 1)
    if "-" in lang_part:
        ctx, _, inst = lang_part.partition("-")
        if ctx == inst:
            raise ConfigNameError(f"config {name!r}: context and instruction language are both {ctx!r}; write {ctx}_...")
    else:
        ctx, inst = lang_part, lang_part
    task = hint.task = _parse_task(name, rest, hint)
    tail = rest[len(task) + 1:].split("_") if rest != task else []
    length, depth, alias = _parse_tail(name, lang_part, task, tail, known_aliases, hint)
    try:
        spec = ConfigSpec(ctx, task, length, inst, alias, depth)
    except ConfigNameError as exc:
        raise ConfigNameError(f"config {name!r}: {exc}{'' if exc.suggests else hint}", suggests=exc.suggests) from None
    return spec


def _parse_task(name: str, rest: str, hint: _LazyHint) -> str:
    """The task id at the start of ``rest`` (a form's id such as ``mv{K}[e]_niah``, or a table id, longest first)."""
    for form in task_forms():
        made = re.match(f"(?:{form.pattern.pattern})(?=_|$)", rest)
        if made is not None:
            return made.group()
    # Longest task id first so that s_niah_nonone wins over s_niah.
    task = next((t for t in sorted(TASKS, key=len, reverse=True) if rest == t or rest.startswith(t + "_")), None)
    if task is None:
        nearest = _nearest_task(rest)
        raise ConfigNameError(
            f"config {name!r}: unknown task in {rest!r}"
            + (f" (did you mean {nearest!r}?); valid tasks: {valid_tasks()}" if nearest else
               f"; valid tasks: {valid_tasks()}{hint}"), suggests=bool(nearest))
    return task


def _nearest_task(rest: str) -> str | None:
    """The task id closest to the part of ``rest`` before its length (``ruler_niah_singel_1_8192`` →
    ruler_niah_single_1; ``ruler_niah_8192`` → the first task that part begins), or None when none is close."""
    parts = rest.split("_")
    cut = next((i for i, part in enumerate(parts) if i and _LENGTH_RE.match(part)), len(parts))
    head = "_".join(parts[:cut])
    begun = [task for task in TASKS if task.startswith(head + "_")]
    if begun:
        return begun[0]
    best, score = None, 0.5
    for task in TASKS:
        ratio = difflib.SequenceMatcher(None, "_".join(parts[:min(cut, task.count("_") + 1)]), task).ratio()
        if ratio > score:
            best, score = task, ratio
    return best


def _parse_tail(name: str, lang_part: str, task: str, tail: list[str], known_aliases: tuple[str, ...],
                hint: _LazyHint) -> tuple[int, int | None, str | None]:
    """(length, depth, alias) from the parts after the task: ``{length}[_at{depth}][_{alias}]``."""
    if not tail or not tail[0]:
        raise ConfigNameError(f"config {name!r}: missing length; use one of 8k 32k 64k 128k or any k/m/integer{hint}")
    try:
        length = parse_length(tail[0])
    except ConfigNameError as exc:
        raise ConfigNameError(f"config {name!r}: {exc}{hint}") from None
    if tail[0].isdigit() and length < MIN_BARE_LENGTH:
        with_k = "_".join([lang_part, task, tail[0] + "k", *tail[1:]])
        raise ConfigNameError(
            f"config {name!r}: length {tail[0]} means {length} tokens; did you mean {with_k!r} "
            f"({length * 1000:,} tokens)? A length without k/m suffix must be at least {MIN_BARE_LENGTH:,}"
        )
    if length > MAX_LENGTH:
        raise ConfigNameError(f"config {name!r}: {too_long(length)}")
    rest = tail[1:]
    depth = None
    if rest and RESERVED_ALIAS_RE.match(rest[0]):
        try:
            depth = parse_depth(rest.pop(0))
        except ConfigNameError as exc:
            raise ConfigNameError(f"config {name!r}: {exc}") from None
    misplaced = next((part for part in rest if RESERVED_ALIAS_RE.match(part)), None)
    if misplaced is not None:
        raise ConfigNameError(f"config {name!r}: {misplaced!r} is a depth part; a name has at most one, right after "
                              f"the length: {{lang}}_{{task}}_{{length}}[_at{{depth}}][_{{tokenizer}}]")
    if len(rest) > 1:
        raise ConfigNameError(f"config {name!r}: unexpected parts {rest[1:]!r} after the tokenizer alias{hint}")
    alias = rest[0] if rest else None
    if alias is not None and alias not in known_aliases:
        raise ConfigNameError(
            f"config {name!r}: unknown tokenizer alias {alias!r}{did_you_mean(alias, known_aliases)}; "
            f"known: {', '.join(known_aliases)} (register others with {named_setting('tokenizers')} "
            f"{alias}=HUB_ID_OR_PATH)"
        )
    return length, depth, alias


def iter_standard_configs() -> Iterator[ConfigSpec]:
    """The standard grid: 728 text-control, 104 s_niah_nonone and 120 cross-lingual configs."""
    for lang in LANGUAGE_CODES:
        for task in MAIN_TASKS:
            for length in STANDARD_LENGTHS:
                yield ConfigSpec(lang, task, length)
    for lang in LANGUAGE_CODES:
        for length in STANDARD_LENGTHS:
            yield ConfigSpec(lang, "s_niah_nonone", length)
    for ctx, inst in cross_lingual_pairs():
        for task in CROSS_LINGUAL_TASKS:
            for length in STANDARD_LENGTHS:
                yield ConfigSpec(ctx, task, length, inst)


def cross_lingual_pairs() -> Iterator[tuple[str, str]]:
    """(context, instruction) language pairs of the grids' cross-lingual configs: en, ko, pl in both directions."""
    return itertools.permutations(CROSS_LINGUAL_LANGUAGES, 2)


def iter_standard_names() -> Iterator[str]:
    """The names of the standard grid, in grid order."""
    return (c.name for c in iter_standard_configs())
