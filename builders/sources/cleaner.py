"""Counted, deterministic edits of a source text: every change is recorded as a ``DataFix``."""

from __future__ import annotations

import re
from typing import Callable

from .parse import DataFix


class TextCleaner:
    """A text being cleaned, with the fixes applied so far (places touched, characters removed); ``source``: the role
    of its source file (``book``)."""

    def __init__(self, text: str, language: str, source: str):
        self.text = text
        self.language, self.source = language, source
        self.fixes: list[DataFix] = []

    def record(self, name: str, count: int, characters: int, description: str) -> None:
        """Add a fix (merged into an earlier one of the same name; nothing for a fix that touched no place)."""
        if not count:
            return
        for i, fix in enumerate(self.fixes):
            if fix.name == name:  # one fix made of several edits (e.g. footnote markers and their bodies)
                self.fixes[i] = DataFix(name, self.language, self.source, fix.count + count, fix.description,
                                        fix.characters + characters)
                return
        self.fixes.append(DataFix(name, self.language, self.source, count, description, characters))

    def sub(self, name: str, pattern: str | re.Pattern, repl: str | Callable[[re.Match], str], description: str,
            flags: int = 0) -> int:
        """``re.subn`` on the text, recorded as one fix; returns the number of places touched."""
        before = len(self.text)
        self.text, n = re.subn(pattern, repl, self.text, flags=flags)
        self.record(name, n, before - len(self.text), description)
        return n

    def cut(self, name: str, start: int, end: int, description: str) -> None:
        """Remove ``text[start:end]`` as one recorded block."""
        self.record(name, 1, end - start, description)
        self.text = self.text[:start] + self.text[end:]
