"""What an export holds, as the card needs to know it: which benchmarks, families, languages, books and sources.

The card describes what the export holds (``card.py``): ONERULER's sections when it holds a config of ONERULER's
families (or nothing yet), RULER's when it holds one of RULER's; a source's section (the books, XQuAD) only when a
config uses it. ``CardProfile.flags`` are the ``{% if %}`` flags of the template (``cardtemplate.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..spec.families.ruler import RulerTask
from ..spec.tasks import FAMILIES, family_of, get_task
from .records import ConfigEntry

XQUAD_UPSTREAM = "xquad"  # the pinned upstream of XQuAD's paragraphs (sources/ruler/pins.py)
RULER_ONLY_TITLE = "RULER's tasks, built by oneruler"


def is_ruler(task: str) -> bool:
    """Whether a task is one of RULER's (a ``ruler_*`` task of RULER's families)."""
    return isinstance(get_task(task), RulerTask)


def uses_xquad(task: str) -> bool:
    """Whether a task's rows are made from XQuAD's paragraphs (its family's upstreams)."""
    return XQUAD_UPSTREAM in family_of(task).upstreams_of(task)


def uses_book(entry: ConfigEntry) -> bool:
    """Whether a config's haystack is ONERULER's book of its context language (its family's ``book_haystack``:
    ONERULER's NIAH tasks, RULER's VT outside English)."""
    return family_of(entry.task).reads_book(entry.context_language)


@dataclass(frozen=True)
class CardProfile:
    """What an export holds: ``oneruler`` (a config of ONERULER's families, or no config at all), ``ruler`` (one of
    RULER's), the family names present (registry order), every language, the languages whose book is a haystack,
    the XQuAD configs' presence."""

    oneruler: bool
    ruler: bool
    families: tuple[str, ...]
    languages: frozenset[str]
    book_languages: tuple[str, ...]
    xquad: bool
    translated: bool = False
    tasks: frozenset[str] = frozenset()

    @classmethod
    def of(cls, configs: dict[str, ConfigEntry]) -> CardProfile:
        """The profile of an export's configs."""
        tasks = {e.task for e in configs.values()}
        present = {family_of(t).name for t in tasks}
        ruler = any(is_ruler(t) for t in tasks)
        return cls(oneruler=not ruler or any(not is_ruler(t) for t in tasks), ruler=ruler,
                   families=tuple(name for name in FAMILIES if name in present),
                   languages=frozenset(c for e in configs.values() for c in (e.context_language,
                                                                             e.instruction_language)),
                   book_languages=tuple(sorted({e.context_language for e in configs.values() if uses_book(e)})),
                   xquad=any(uses_xquad(t) for t in tasks), translated=any(e.translation for e in configs.values()),
                   tasks=frozenset(tasks))

    @property
    def ruler_only(self) -> bool:
        """RULER's configs and none of ONERULER's: the card is RULER's."""
        return self.ruler and not self.oneruler

    def shown_families(self) -> tuple[str, ...]:
        """The families the card's task and field tables list: every family where ONERULER's configs are (the card
        of ONERULER's grid lists them all), else the export's own."""
        return tuple(FAMILIES) if self.oneruler else self.families

    def title(self, oneruler_title: str) -> str:
        """The dataset's name: ONERULER's, both benchmarks' where both are held, RULER's build where only RULER's."""
        if self.ruler_only:
            return RULER_ONLY_TITLE
        return f"{oneruler_title} and RULER" if self.ruler else oneruler_title

    def shows_task(self, task: str) -> bool:
        """Whether the card's task table and family lines list a task: all where ONERULER's configs are, else the
        export's own."""
        return self.oneruler or task in self.tasks

    def flags(self) -> dict[str, bool]:
        """The template's flags."""
        return {"oneruler": self.oneruler, "ruler": self.ruler, "ruler_only": self.ruler_only,
                "both": self.oneruler and self.ruler, "ruler_books": self.ruler_only and bool(self.book_languages),
                "xquad": self.xquad, "translations": self.translated}
