"""The card template's two devices: ``{{ name }}`` placeholders and whole-line ``{% if flag %}`` blocks.

A block line is exactly ``{% if flag %}``, ``{% if not flag %}``, ``{% else %}`` or ``{% endif %}`` (blocks
nest); it and the lines its condition leaves out are dropped whole, so a card whose flags keep every line it
had before is byte for byte the same. Flags say what an export holds (``cardprofile.py``); placeholders are
filled with the rendered sections (``card.py``). An unknown name, a flag that is not one, or an unbalanced
block is an error naming it and what is known.
"""

from __future__ import annotations

import re
from typing import Mapping

PLACEHOLDER = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
_BLOCK = re.compile(r"\{%\s*(if(?:\s+not)?\s+([a-z_]+)|else|endif)\s*%\}")


def _condition(line: str, flags: Mapping[str, bool], where: str) -> tuple[str, bool | None]:
    """(``if``/``else``/``endif``/``text``, the condition's value for an ``if``)."""
    m = _BLOCK.fullmatch(line.strip())
    if m is None:
        if _BLOCK.search(line):
            raise KeyError(f"{where}: a block tag must stand alone on its line: {line.strip()!r}")
        return "text", None
    if m.group(2) is None:
        return m.group(1), None
    name = m.group(2)
    if name not in flags:
        raise KeyError(f"{where}: unknown flag {name!r} in {line.strip()!r}; known: {', '.join(sorted(flags))}")
    negated = m.group(1).split()[1] == "not"
    return "if", bool(flags[name]) != negated


def keep_blocks(template: str, flags: Mapping[str, bool], where: str = "template") -> str:
    """``template`` with each block's tag lines removed and the lines of a false branch left out."""
    out: list[str] = []
    stack: list[list[bool]] = []  # per open block: [its condition, in its else branch]
    for line in template.splitlines(keepends=True):
        kind, value = _condition(line, flags, where)
        if kind == "if":
            stack.append([bool(value), False])
        elif kind in ("else", "endif") and not stack:
            raise KeyError(f"{where}: {{% {kind} %}} without an open {{% if %}}")
        elif kind == "else":
            stack[-1][1] = True
        elif kind == "endif":
            stack.pop()
        elif all(cond != in_else for cond, in_else in stack):
            out.append(line)
    if stack:
        raise KeyError(f"{where}: {len(stack)} {{% if %}} block(s) never closed with {{% endif %}}")
    return "".join(out)


def fill_placeholders(template: str, sections: Mapping[str, str], where: str = "template") -> str:
    """``template`` with every ``{{ name }}`` replaced by ``sections[name]`` (an unknown name is a KeyError)."""

    def sub(m: re.Match) -> str:
        key = m.group(1)
        if key not in sections:
            raise KeyError(f"{where}: unknown placeholder {{{{ {key} }}}}; known: {', '.join(sorted(sections))}")
        return sections[key]

    return PLACEHOLDER.sub(sub, template)


def fill_template(template: str, flags: Mapping[str, bool], sections: Mapping[str, str],
                  where: str = "template") -> str:
    """The blocks kept by ``flags``, then the placeholders filled from ``sections``."""
    return fill_placeholders(keep_blocks(template, flags, where), sections, where)
