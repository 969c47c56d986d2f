"""RULER's haystacks of lines joined by ``"\\n"``: the repeated noise line (``noise``), distractor needles
(``needle``), and what is inserted among them (needles, VT's statements), counted exactly by construction. The
noise line and the needle format are RULER's own, read from its scripts (``sources/ruler/texts.py``).

RULER's ``niah.py`` and ``variable_tracking.py`` make such a context as a list of haystack lines with needles
inserted before some of them (``sentences.insert(index, needle)``), joined with ``"\\n"``. Its prompt
``head + "\\n".join(lines) + tail`` is counted here as the head's tokens, plus each line but the last with its
newline (each distinct line tokenised once), plus the last line with the tail. That is exact when the tokenizer
cuts the text before every line (after a newline, or after the head): ``LineCounter`` checks it for each line's
first character; a tokenizer that does not is given whole prompts to tokenise instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence

from ..counting import TokenCounter


@dataclass(frozen=True)
class Line:
    """A line of a context: its text and its tokens followed by a newline (as every line but the last is)."""

    text: str
    tokens: int  # tokens of text + "\n"


def make_lines(counter: TokenCounter, texts: Sequence[str]) -> list[Line]:
    """Lines with their tokens (one tokenizer batch)."""
    return [Line(t, c) for t, c in zip(texts, counter.count_batch([t + "\n" for t in texts]))]


def place(inserts: Sequence[tuple[int, str]]) -> list[tuple[int, int, str]]:
    """Where inserted lines go, RULER's way: each ``(index, text)`` before haystack line ``index`` (those sharing an
    index in the order given). Returns ``(position in the final list, index, text)`` in text order."""
    ordered = sorted(enumerate(inserts), key=lambda item: (item[1][0], item[0]))
    return [(index + j, index, text) for j, (_, (index, text)) in enumerate(ordered)]


def joined(haystack: Sequence[str], placed: Sequence[tuple[int, int, str]]) -> str:
    """The context: the haystack lines with the placed lines before theirs, joined by newlines."""
    out: list[str] = []
    last = 0
    for _, index, text in placed:
        out.extend(haystack[last:index])
        out.append(text)
        last = index
    out.extend(haystack[last:])
    return "\n".join(out)


class LineCounter:
    """Exact tokens of ``head + "\\n".join(lines) + tail`` for one row's head and tail: by construction where the
    tokenizer cuts before every line (``exact``), else by tokenising the prompt."""

    def __init__(self, counter: TokenCounter, head: str, tail: str, first_chars: Iterable[str]):
        self.counter, self.head, self.tail = counter, head, tail
        self.head_tokens = counter.count(head)
        chars = set(first_chars)
        self.exact = counter.exact and bool(head) and all(
            counter.is_cut("\n", c) and counter.is_cut(head[-1], c) for c in chars)
        self._ends: dict[str, int] = {}

    def prompt_tokens(self, units: int, last: str, context: Callable[[], str]) -> int:
        """Tokens of the prompt whose lines but the last take ``units`` tokens (each with its newline) and whose last
        line is ``last``; ``context()`` builds the whole context, for a tokenizer counted whole."""
        if not self.exact:
            return self.counter.count(self.head + context() + self.tail)
        if last not in self._ends:
            self._ends[last] = self.counter.count(last + self.tail)
        return self.head_tokens + units + self._ends[last]

    def haystack_tokens(self, units: int, last: str, context: Callable[[], str]) -> int:
        """Tokens of ``"\\n".join(lines)`` alone (lines but the last: ``units``; the last: ``last``), as above."""
        if not self.exact:
            return self.counter.count(context())
        return units + self.counter.count(last) if last else 0
