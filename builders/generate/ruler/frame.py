"""RULER's prompt around its context: the template and answer prefix of ``constants.py`` joined and filled as
RULER's ``prepare.py`` and generators do, then cut into the text before the context, the text after it, and the
answer prefix RULER prefills.

RULER's ``prepare.py`` passes its generators ``template + answer_prefix`` (the ``base`` model template is the
task template itself); a generator fills it with ``str.format`` and, once the prompt is whole, cuts the answer
prefix off at the last occurrence of the prefix's first 10 characters (``input_text.rfind(answer_prefix[:10])``).
``ruler_frame`` does the same on the frame alone (the context replaced by a marker), so the context is never
copied: ``head + context + tail`` is RULER's ``input`` and ``answer_prefix`` its ``answer_prefix``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from ...base.errors import OneRulerError
from ...sources.ruler.tasks import RulerTemplate

_MARK = "\x00context\x00"  # stands for the context while the frame is filled (no template holds a NUL)
PREFIX_KEY = 10  # RULER finds the answer prefix by its first 10 characters


@dataclass(frozen=True)
class RulerFrame:
    """The prompt around a context: ``head`` + context + ``tail`` is the row's ``input``; ``answer_prefix`` follows."""

    head: str
    tail: str
    answer_prefix: str

    @property
    def closing(self) -> str:
        """What follows the context in the text ``num_tokens`` counts: the tail and the answer prefix."""
        return self.tail + self.answer_prefix


def ruler_frame(template: RulerTemplate, values: dict[str, object],
                rewrite: Callable[[str], str] | None = None) -> RulerFrame:
    """The frame of a task's prompt: ``template + answer_prefix`` (``rewrite`` applied to it first, as RULER's NIAH
    rewrites a one-value question in the singular), filled with ``values`` (every placeholder but ``context``),
    the answer prefix cut off where RULER cuts it."""
    joined = template.template + template.answer_prefix
    if rewrite is not None:
        joined = rewrite(joined)
    filled = joined.format(**values, context=_MARK)
    head, marked, tail = filled.partition(_MARK)
    if not marked or _MARK in tail:
        raise OneRulerError(f"RULER's {template.family} template must hold {{context}} exactly once")
    key = template.answer_prefix[:PREFIX_KEY]
    cut = tail.rfind(key) if key else len(tail)
    if cut < 0:
        raise OneRulerError(f"RULER's {template.family} answer prefix ({key!r}…) is not in its filled template")
    return RulerFrame(head, tail[:cut], tail[cut:])
