"""RULER's fixed texts, read from its generator scripts as data: none is typed into this package.

Three pinned files of NVIDIA/RULER, parsed with ``ast`` and never imported or executed:

- ``scripts/data/synthetic/niah.py``: the needle format (the module-level ``needle = "..."``, with the
  placeholders ``type_needle_v``, ``key`` and ``value``; also each line of its distractor-needle haystack, which
  that file sets to ``needle``), the noise line (``haystack = "..."`` in the branch
  ``args.type_haystack == 'noise'``) and the singular it writes when one value is asked (the run of
  ``template = template.replace('Some', 'A')`` ... statements, in order);
- ``scripts/data/synthetic/variable_tracking.py``: its own noise line, found the same way;
- ``scripts/data/synthetic/qa.py``: the document format (``DOCUMENT_PROMPT = "..."``, placeholders ``i`` and
  ``document``) and the string its documents are joined with (the ``"...".join(...)`` whose argument formats
  ``DOCUMENT_PROMPT``).

Anything these readers do not find exactly once, or find in another shape (a placeholder added or dropped, a noise
line that is not one line, a document format whose number is not after its label and a space), is refused with one
line naming the file: the generators count their prompts by these shapes.
"""

from __future__ import annotations

import ast
import string
from dataclasses import dataclass

from ...base.errors import SourceError
from ..manifest import SourceFile
from ..parse import decode_utf8
from .pins import Fetched

NIAH_SCRIPT = "scripts/data/synthetic/niah.py"
VT_SCRIPT = "scripts/data/synthetic/variable_tracking.py"
QA_SCRIPT = "scripts/data/synthetic/qa.py"
SCRIPTS: tuple[str, ...] = (NIAH_SCRIPT, VT_SCRIPT, QA_SCRIPT)
NEEDLE_FIELDS = frozenset({"type_needle_v", "key", "value"})
DOCUMENT_FIELDS = ("i", "document")


@dataclass(frozen=True)
class DocumentFormat:
    """qa.py's ``DOCUMENT_PROMPT`` as ``{label} {i}{after_number}{document}``, and the joiner between documents."""

    label: str
    after_number: str
    joiner: str

    def block(self, number: int, document: str) -> str:
        """One document as RULER lists it."""
        return f"{self.label} {number}{self.after_number}{document}"


@dataclass(frozen=True)
class RulerTexts:
    """RULER's needle format, the noise line of each generator that has one, QA's document format, and the pinned
    files they were read from."""

    needle: str
    singular: tuple[tuple[str, str], ...]
    niah_noise: str
    vt_noise: str
    documents: DocumentFormat
    files: tuple[SourceFile, ...]


def _tree(data: bytes, where: str) -> ast.Module:
    try:
        return ast.parse(decode_utf8(data, where), filename=where)
    except SyntaxError as exc:
        raise SourceError(f"{where}: not valid Python ({exc.msg}, line {exc.lineno})") from None


def _string_assigned(nodes: list[ast.stmt], name: str) -> list[ast.expr]:
    """The values assigned to ``name`` by the statements themselves (not nested ones)."""
    return [node.value for node in nodes if isinstance(node, ast.Assign)
            and [t.id for t in node.targets if isinstance(t, ast.Name)] == [name]]


def _one_string(values: list[ast.expr], where: str, what: str) -> str:
    if len(values) != 1 or not isinstance(values[0], ast.Constant) or not isinstance(values[0].value, str):
        raise SourceError(f"{where}: expected one {what} assigned a string literal, found "
                          f"{len(values)} assignment(s){'' if len(values) != 1 else ' of another kind'}")
    return values[0].value


def _fields(text: str, where: str, what: str) -> set[str]:
    try:
        return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}
    except ValueError as exc:
        raise SourceError(f"{where}: {what} is not a format string ({exc})") from None


def _branches(tree: ast.Module):
    """Every (test, body) of the module-level ``if``/``elif`` chains."""
    for node in tree.body:
        while isinstance(node, ast.If):
            yield node.test, node.body
            node = node.orelse[0] if len(node.orelse) == 1 and isinstance(node.orelse[0], ast.If) else None


def _is_haystack_test(test: ast.expr, kind: str) -> bool:
    """``args.type_haystack == '<kind>'``."""
    return (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)
            and isinstance(test.left, ast.Attribute) and test.left.attr == "type_haystack"
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value == kind)


def noise_line(data: bytes, where: str) -> str:
    """The line a script's noise haystack repeats: ``haystack = "..."`` under ``args.type_haystack == 'noise'``."""
    tree = _tree(data, where)
    values = [v for test, body in _branches(tree) if _is_haystack_test(test, "noise")
              for v in _string_assigned(body, "haystack")]
    line = _one_string(values, where, "`haystack` for type_haystack 'noise'")
    if not line.strip() or "\n" in line or _fields(line, where, "the noise line"):
        raise SourceError(f"{where}: the noise line must be one non-empty line without placeholders; got {line!r}")
    return line


def needle_format(data: bytes, where: str) -> str:
    """niah.py's module-level ``needle`` format, with exactly its three placeholders."""
    needle = _one_string(_string_assigned(_tree(data, where).body, "needle"), where, "module-level `needle`")
    fields = _fields(needle, where, "`needle`")
    if fields != NEEDLE_FIELDS or "\n" in needle:
        raise SourceError(f"{where}: `needle` must be one line with the placeholders {sorted(NEEDLE_FIELDS)}; "
                          f"it has {sorted(fields)}")
    return needle


def _replacement(node: ast.stmt) -> tuple[str, str] | None:
    """``(old, new)`` of a statement ``template = template.replace('old', 'new')``, else None."""
    value = node.value if isinstance(node, ast.Assign) else None
    if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "replace"
            and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["template"]
            and isinstance(value.func.value, ast.Name) and value.func.value.id == "template" and len(value.args) == 2
            and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in value.args)):
        return None
    return value.args[0].value, value.args[1].value


def singular_replacements(data: bytes, where: str) -> tuple[tuple[str, str], ...]:
    """niah.py's rewrite of its template when one value is asked: the one block of
    ``template = template.replace(old, new)`` statements, in order."""
    blocks = []
    for node in ast.walk(_tree(data, where)):
        body = getattr(node, "body", None)
        found = [r for r in map(_replacement, body) if r] if isinstance(body, list) else []
        if found:
            blocks.append(found)
    if len(blocks) != 1:
        raise SourceError(f"{where}: expected one block of `template = template.replace('...', '...')` (the "
                          f"singular when one value is asked), found {len(blocks)}")
    return tuple(blocks[0])


def _joiner(tree: ast.Module, where: str) -> str:
    """The string literal whose ``.join`` lists the documents (its argument formats ``DOCUMENT_PROMPT``)."""
    def formats_documents(call: ast.Call) -> bool:
        return any(isinstance(n, ast.Name) and n.id == "DOCUMENT_PROMPT" for arg in call.args for n in ast.walk(arg))

    found = [n.func.value.value for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
             and n.func.attr == "join" and isinstance(n.func.value, ast.Constant)
             and isinstance(n.func.value.value, str) and formats_documents(n)]
    if len(set(found)) != 1 or not found[0]:
        raise SourceError(f"{where}: expected one `\"...\".join(...)` of DOCUMENT_PROMPT blocks, found {len(found)}")
    return found[0]


def document_format(data: bytes, where: str) -> DocumentFormat:
    """qa.py's ``DOCUMENT_PROMPT`` split around its number, and the documents' joiner."""
    tree = _tree(data, where)
    prompt = _one_string(_string_assigned(tree.body, "DOCUMENT_PROMPT"), where, "module-level `DOCUMENT_PROMPT`")
    _fields(prompt, where, "DOCUMENT_PROMPT")
    shape = list(string.Formatter().parse(prompt))
    if (len(shape) != 2 or [s[1] for s in shape] != list(DOCUMENT_FIELDS) or any(s[2] or s[3] for s in shape)
            or not shape[0][0].endswith(" ") or not shape[0][0].strip() or not shape[1][0]):
        raise SourceError(f"{where}: DOCUMENT_PROMPT must read `LABEL {{i}}TEXT{{document}}` (a label, a space, the "
                          f"number, some text, the document); got {prompt!r}")
    return DocumentFormat(shape[0][0][:-1], shape[1][0], _joiner(tree, where))


def parse_ruler_texts(fetched: list[Fetched]) -> RulerTexts:
    """The three scripts (each ``(entry, bytes)``, any order) read into ``RulerTexts``."""
    by_path = {entry.path: (entry, data) for entry, data in fetched}
    missing = [p for p in SCRIPTS if p not in by_path]
    if missing:
        raise SourceError(f"RULER's generator scripts: {', '.join(missing)} not among the pinned files")
    (niah, niah_data), (vt, vt_data), (qa, qa_data) = (by_path[p] for p in SCRIPTS)
    return RulerTexts(needle_format(niah_data, niah.path), singular_replacements(niah_data, niah.path),
                      noise_line(niah_data, niah.path),
                      noise_line(vt_data, vt.path), document_format(qa_data, qa.path), (niah, vt, qa))
