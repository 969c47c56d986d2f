"""RULER's instructions in a language: RULER's English pieces, a native speaker's translation checked against them,
and the one function the generators call (:func:`ruler_instructions`).

A *piece* is one string a generator formats: a family's ``template`` and ``answer_prefix`` (``constants.py``), and
for NIAH the forms RULER makes by string substitution. RULER's ``niah.py`` writes the singular when one value is
asked (``num_needle_q * num_needle_v == 1``) by replacing ``Some``/``are all``/``are``/``answers`` in the template
(and the answer prefix it carries) and cutting the ``s`` of ``type_needle_v`` (``numbers`` -> ``number``).
English has those forms by rule; another language needs them written, so a translation gives each one
(``template_singular``, ``answer_prefix_singular``, ``type_needle_v.numbers_singular``). The kinds of value are
those of RULER's ``synthetic.yaml`` NIAH tasks.

A translation is refused, one line per problem naming the file, the key and what would be valid, when it misses a
key, has one RULER has no piece for, drops or adds a placeholder (``{context}``, ``{query}``, ...: the English
piece's are the valid ones), is not a format string, changes the whitespace a piece begins or ends with, leaves a
template in RULER's English, or was made from another RULER commit than the pinned one.
"""

from __future__ import annotations

import string
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

from ...spec.languages import LANGUAGE_CODES
from ...spec.translated import SECTIONS, TranslationError, read_translation, translation_files
from .tasks import RulerTasks

NEEDLE_KINDS = "type_needle_v"  # the NIAH key holding the words for the kinds of value (numbers, uuids)
_CHECK_HINT = "run `oneruler check-translation {path}` for every problem"


def singular(text: str, replacements: tuple[tuple[str, str], ...]) -> str:
    """RULER's singular of a NIAH piece: ``niah.py``'s replacements (``RulerTasks.singular``), in order."""
    for old, new in replacements:
        text = text.replace(old, new)
    return text


def english_pieces(tasks: RulerTasks) -> dict[str, dict[str, str]]:
    """``section -> key -> English text`` of every piece a translation gives, from RULER's pinned files."""
    pieces = {family: {"template": tpl.template, "answer_prefix": tpl.answer_prefix}
              for family, tpl in tasks.templates.items()}
    niah = pieces["niah"]
    niah["template_singular"] = singular(niah["template"], tasks.singular)
    niah["answer_prefix_singular"] = singular(niah["answer_prefix"], tasks.singular)
    kinds = sorted({str(s.args[NEEDLE_KINDS]) for s in tasks.settings.values() if s.family == "niah"})
    for kind in kinds:
        niah[f"{NEEDLE_KINDS}.{kind}"], niah[f"{NEEDLE_KINDS}.{kind}_singular"] = kind, kind[:-1]
    return pieces


def nested(pieces: Mapping[str, str]) -> dict:
    """Dotted keys (``type_needle_v.numbers``) as the nested mappings a translation file writes."""
    out: dict = {}
    for key, value in pieces.items():
        *parents, last = key.split(".")
        node = out
        for part in parents:
            node = node.setdefault(part, {})
        node[last] = value
    return out


def _flatten(value: object, prefix: str, out: dict[str, object]) -> dict[str, object]:
    """Nested mappings as dotted keys (``type_needle_v.numbers``); other values as they are."""
    if isinstance(value, dict):
        for key, inner in value.items():
            _flatten(inner, f"{prefix}.{key}" if prefix else str(key), out)
    else:
        out[prefix] = value
    return out


def _fields(text: str) -> list[tuple[str, str | None, str | None]] | str:
    """(name, conversion-or-spec) of each ``{...}`` in a format string, or why it is not one."""
    try:
        return [(name, conversion, spec) for _, name, spec, conversion in string.Formatter().parse(text)
                if name is not None]
    except ValueError as exc:
        return f"is not a format string ({exc}); write a literal brace as {{{{ or }}}}"


def _edges(text: str) -> tuple[str, str]:
    stripped = text.strip()
    if not stripped:
        return text, ""
    start = text.index(stripped)
    return text[:start], text[start + len(stripped):]


def _names(fields: list[tuple[str, str | None, str | None]]) -> str:
    return ", ".join(f"{{{n}}}" for n in sorted({f[0] for f in fields})) or "none"


def piece_problem(text: object, english: str, key: str) -> str | None:
    """Why ``text`` cannot stand for RULER's ``english`` piece (None: it can)."""
    if not isinstance(text, str) or not text.strip():
        return f"must be a non-empty string (RULER's English: {english!r})"
    got, want = _fields(text), _fields(english)
    if isinstance(got, str):
        return got
    if any(f[1] or f[2] or not f[0].isidentifier() for f in got):
        return f"placeholders are written bare, as in RULER's English ({_names(want)})"
    dropped, added = {f[0] for f in want} - {f[0] for f in got}, {f[0] for f in got} - {f[0] for f in want}
    if dropped or added:
        what = "; ".join(part for part in (
            f"drops {', '.join(f'{{{n}}}' for n in sorted(dropped))}" if dropped else "",
            f"adds {', '.join(f'{{{n}}}' for n in sorted(added))}" if added else "") if part)
        return f"{what}; RULER's English has {_names(want)}"
    count = sum(f[0] == "context" for f in got)
    if count != sum(f[0] == "context" for f in want):
        return f"has {{context}} {count} times; RULER's English has it once (the haystack goes there)"
    if _edges(text) != _edges(english):
        return (f"begins and ends with {_edges(text)!r}; RULER's English with {_edges(english)!r} "
                "(in YAML, |- keeps a block without its final newline)")
    if text == english and "." not in key:
        return "is RULER's English unchanged; translate it, or leave the whole section out"
    return None


def section_problems(section: str, given: object, english: Mapping[str, str]) -> list[str]:
    """``key: problem`` of each piece of one translated section (missing, unknown, or not valid for RULER's)."""
    if not isinstance(given, dict):
        return [f"{section}: must be a mapping of {', '.join(english)}"]
    pieces = _flatten(given, "", {})
    problems = [f"{section}.{key}: missing; {section} holds {', '.join(english)}" for key in english if key not in pieces]
    problems += [f"{section}.{key}: unknown key; {section} holds {', '.join(english)}" for key in pieces
                 if key not in english]
    for key, text in pieces.items():
        problem = piece_problem(text, english[key], key) if key in english else None
        if problem:
            problems.append(f"{section}.{key}: {problem}")
    return problems


def check_translation(path: Path | str, tasks: RulerTasks) -> list[str]:
    """Every problem of a translation file as one line (``FILE: KEY: problem; what is valid``); [] when it passes."""
    try:
        translation = read_translation(path)
    except TranslationError as exc:
        return [str(exc)]
    pinned = tasks.files[0].facts.get("commit")  # the commit of constants.py's pin
    problems = []
    if pinned and translation.metadata["ruler_commit"] != pinned:
        problems.append(f"ruler_commit: is {translation.metadata['ruler_commit']}; the package reads RULER's "
                        f"templates at {pinned}: check each piece against that commit's English, then write it")
    english = english_pieces(tasks)
    for section, given in translation.sections.items():
        problems += section_problems(section, given, english[section])
    return [f"{translation.path}: {p}" for p in problems]


@dataclass(frozen=True)
class RulerInstructions:
    """A RULER family's instruction pieces in one language: ``pieces`` (dotted key -> text, as
    :func:`english_pieces` names them), the language they are written in, and the translation file they come from
    (None: RULER's English, ``constants.py``)."""

    family: str
    language: str
    pieces: Mapping[str, str]
    translation: Path | None

    def _piece(self, key: str, singular_form: bool) -> str:
        if singular_form and self.family != "niah":
            raise ValueError(f"only RULER's niah family has singular forms, not {self.family!r}")
        return self.pieces[f"{key}_singular" if singular_form else key]

    def template(self, singular_form: bool = False) -> str:
        """The prompt template (NIAH: ``singular_form`` when one value is asked, as RULER's niah.py decides)."""
        return self._piece("template", singular_form)

    def answer_prefix(self, singular_form: bool = False) -> str:
        """The answer prefix RULER prefills (NIAH: its singular when one value is asked)."""
        return self._piece("answer_prefix", singular_form)

    def value_kind(self, kind: str, singular_form: bool = False) -> str:
        """NIAH's word for a kind of value (``numbers``, ``uuids``), as ``{type_needle_v}`` takes it."""
        key = f"{NEEDLE_KINDS}.{kind}"
        if key not in self.pieces:
            kinds = sorted(k.split(".", 1)[1] for k in self.pieces if k.startswith(NEEDLE_KINDS) and "_sing" not in k)
            raise ValueError(f"no word for the kind of value {kind!r} in {self.family}; RULER's: {', '.join(kinds)}")
        return self._piece(key, singular_form)


def ruler_instructions(tasks: RulerTasks, family: str, language: str,
                       folder: Path | None = None) -> RulerInstructions:
    """The instruction pieces of RULER's ``family`` (``constants.py``'s name) in ``language``: the checked native
    translation where ``folder`` (default: the package's, or ``$ONERULER_TRANSLATIONS``) has one with the family's
    section, else RULER's English. A translation with any problem fails with its first (TranslationError, one line)."""
    if family not in SECTIONS:
        raise ValueError(f"unknown RULER family {family!r}; RULER's: {', '.join(SECTIONS)}")
    if language not in LANGUAGE_CODES:
        raise ValueError(f"unknown language {language!r}; valid: {', '.join(LANGUAGE_CODES)}")
    english = english_pieces(tasks)[family]
    path = translation_files(folder).get(language) if language != "en" else None
    if path is None or family not in read_translation(path).sections:
        return RulerInstructions(family, "en", english, None)
    problems = check_translation(path, tasks)
    if problems:
        more = f" ({len(problems) - 1} more; {_CHECK_HINT.format(path=path)})" if len(problems) > 1 else ""
        raise TranslationError(problems[0] + more)
    pieces = _flatten(read_translation(path).sections[family], "", {})
    return RulerInstructions(family, language, {key: str(pieces[key]) for key in english}, path)
