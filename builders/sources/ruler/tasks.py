"""RULER's task definitions read as data: templates, task settings and the metric rule per family.

Three pinned files of NVIDIA/RULER, and the singular rewrite of ``niah.py`` (``texts.py``), none of them imported
or executed:

- ``scripts/data/synthetic/constants.py``: its ``TASKS`` dict through ``ast.literal_eval`` (template,
  answer prefix and tokens to generate per task family);
- ``scripts/synthetic.yaml`` through ``yaml.safe_load``: the 13 tasks (``niah_single_1`` ... ``qa_2``),
  each a family and its arguments;
- ``scripts/eval/synthetic/constants.py``: its ``TASKS`` dict, whose ``metric_fn`` values are names
  (``string_match_all`` / ``string_match_part``) read from the syntax tree.

RULER's ``prepare.py`` joins them: a task's template and answer prefix are its family's. Anything
these parsers do not expect (another family, argument, placeholder or metric) is refused with one
line naming the file.
"""

from __future__ import annotations

import ast
import re
import string
from dataclasses import dataclass
from typing import Mapping

import yaml

from ...base.errors import SourceError
from ..manifest import SourceFile
from ..parse import decode_utf8
from .pins import Fetched
from .texts import NIAH_SCRIPT, RulerTexts

FAMILIES: tuple[str, ...] = ("niah", "variable_tracking", "common_words_extraction", "freq_words_extraction", "qa")
METRICS: tuple[str, ...] = ("string_match_all", "string_match_part")
# The names RULER's generators pass to ``str.format`` of a template or answer prefix.
PLACEHOLDERS = frozenset({"context", "query", "type_needle_v", "num_v", "num_cw"})
_TEMPLATE_KEYS = {"tokens_to_generate", "template", "answer_prefix"}
_CHOICES = {"type_haystack": ("noise", "essay", "needle"), "type_needle_k": ("words", "numbers", "uuids"),
            "type_needle_v": ("words", "numbers", "uuids"), "dataset": ("squad", "hotpotqa")}
# Each family's arguments in synthetic.yaml and their kind: a choice (above), a count, or a positive number.
ARGUMENTS: dict[str, dict[str, str]] = {
    "niah": {"type_haystack": "choice", "type_needle_k": "choice", "type_needle_v": "choice",
             "num_needle_k": "count", "num_needle_v": "count", "num_needle_q": "count"},
    "variable_tracking": {"type_haystack": "choice", "num_chains": "count", "num_hops": "count"},
    "common_words_extraction": {"freq_cw": "count", "freq_ucw": "count", "num_cw": "count"},
    "freq_words_extraction": {"alpha": "number"},
    "qa": {"dataset": "choice"},
}
_TASK_NAME = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class RulerTemplate:
    """One task family of RULER's ``constants.py``: the prompt template (with ``{context}`` and the family's
    other placeholders), the answer prefix RULER prefills, and the tokens it lets the model generate."""

    family: str
    template: str
    answer_prefix: str
    tokens_to_generate: int


@dataclass(frozen=True)
class RulerTaskSetting:
    """One of RULER's tasks in ``synthetic.yaml``: its name, its family and the family's arguments."""

    name: str
    family: str
    args: Mapping[str, object]


@dataclass(frozen=True)
class RulerTasks:
    """RULER's task definitions: templates per family, the tasks in file order, the metric name per family,
    niah.py's singular rewrite of its template (``(old, new)`` replacements, in order; ``texts.py``), and the
    pinned files they were read from."""

    templates: Mapping[str, RulerTemplate]
    settings: Mapping[str, RulerTaskSetting]
    metrics: Mapping[str, str]
    files: tuple[SourceFile, ...]
    singular: tuple[tuple[str, str], ...]

    def setting(self, task: str) -> RulerTaskSetting:
        """The setting of one task (an unknown name is an error listing the known ones)."""
        if task not in self.settings:
            raise SourceError(f"unknown RULER task {task!r}; RULER's tasks: {', '.join(self.settings)}")
        return self.settings[task]

    def template(self, task: str) -> RulerTemplate:
        """The template, answer prefix and tokens to generate of a task (its family's)."""
        return self.templates[self.setting(task).family]

    def metric(self, task: str) -> str:
        """The name of the metric RULER scores a task with: ``string_match_all`` or ``string_match_part``."""
        return self.metrics[self.setting(task).family]


def _tasks_node(data: bytes, where: str) -> ast.expr:
    """The value assigned to the module-level name ``TASKS`` (exactly one such assignment)."""
    try:
        tree = ast.parse(decode_utf8(data, where), filename=where)
    except SyntaxError as exc:
        raise SourceError(f"{where}: not valid Python ({exc.msg}, line {exc.lineno})") from None
    found = [node.value for node in tree.body if isinstance(node, ast.Assign)
             and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["TASKS"]]
    if len(found) != 1:
        raise SourceError(f"{where}: expected one module-level `TASKS = {{...}}`, found {len(found)}")
    return found[0]


def _placeholders(text: str, where: str, what: str) -> set[str]:
    try:
        names = {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}
    except ValueError as exc:
        raise SourceError(f"{where}: {what} is not a format string ({exc})") from None
    unknown = names - PLACEHOLDERS
    if unknown:
        raise SourceError(f"{where}: {what} has placeholders {sorted(unknown)}; "
                          f"RULER's generators fill only {sorted(PLACEHOLDERS)}")
    return names


def _template(family: str, value: object, where: str) -> RulerTemplate:
    if not isinstance(value, dict) or not {"template", "tokens_to_generate"} <= set(value) <= _TEMPLATE_KEYS:
        raise SourceError(f"{where}: TASKS[{family!r}] must be a dict with {sorted(_TEMPLATE_KEYS)} "
                          "(answer_prefix optional)")
    template, prefix, tokens = value["template"], value.get("answer_prefix", ""), value["tokens_to_generate"]
    if not isinstance(template, str) or not isinstance(prefix, str):
        raise SourceError(f"{where}: TASKS[{family!r}]: template and answer_prefix must be strings")
    if type(tokens) is not int or tokens < 1:
        raise SourceError(f"{where}: TASKS[{family!r}]['tokens_to_generate'] must be a positive integer "
                          f"(got {tokens!r})")
    if "context" not in _placeholders(template, where, f"TASKS[{family!r}]['template']"):
        raise SourceError(f"{where}: TASKS[{family!r}]['template'] has no {{context}}")
    _placeholders(prefix, where, f"TASKS[{family!r}]['answer_prefix']")
    return RulerTemplate(family, template, prefix, tokens)


def _families(keys, where: str, what: str) -> None:
    if not isinstance(keys, dict) or set(keys) != set(FAMILIES):
        got = sorted(keys) if isinstance(keys, dict) else type(keys).__name__
        raise SourceError(f"{where}: {what} names the families {got}; expected {list(FAMILIES)}")


def parse_templates(data: bytes, where: str) -> dict[str, RulerTemplate]:
    """``constants.py``'s ``TASKS`` as ``family -> RulerTemplate`` (read with ``ast.literal_eval``)."""
    node = _tasks_node(data, where)
    try:
        tasks = ast.literal_eval(node)
    except ValueError:
        raise SourceError(f"{where}: TASKS is not a literal (RULER's templates must be plain data)") from None
    _families(tasks, where, "TASKS")
    return {family: _template(family, tasks[family], where) for family in FAMILIES}


def _argument(task: str, name: str, kind: str, value: object, where: str) -> object:
    ok = {"choice": lambda v: v in _CHOICES.get(name, ()),
          "count": lambda v: type(v) is int and v >= 1,
          "number": lambda v: type(v) in (int, float) and v > 0}[kind](value)
    if not ok:
        number = "integer" if kind == "count" else "number"
        valid = " | ".join(_CHOICES[name]) if kind == "choice" else f"a positive {number}"
        raise SourceError(f"{where}: {task}.args.{name} = {value!r}; expected {valid}")
    return value


def _setting(task: str, value: object, where: str) -> RulerTaskSetting:
    if not _TASK_NAME.fullmatch(str(task)) or not isinstance(value, dict) or set(value) != {"task", "args"}:
        raise SourceError(f"{where}: {task!r} must be a lower-case name mapping to {{task: FAMILY, args: {{...}}}}")
    family, args = value["task"], value["args"]
    if family not in ARGUMENTS:
        raise SourceError(f"{where}: {task}.task = {family!r}; expected one of {', '.join(FAMILIES)}")
    expected = ARGUMENTS[family]
    if not isinstance(args, dict) or set(args) != set(expected):
        got = sorted(args) if isinstance(args, dict) else args
        raise SourceError(f"{where}: {task}.args has {got}; a {family} task takes {sorted(expected)}")
    checked = {name: _argument(task, name, expected[name], args[name], where) for name in expected}
    return RulerTaskSetting(task, family, checked)


def parse_task_settings(data: bytes, where: str) -> dict[str, RulerTaskSetting]:
    """``synthetic.yaml`` as ``task -> RulerTaskSetting``, in file order (read with ``yaml.safe_load``)."""
    try:
        doc = yaml.safe_load(decode_utf8(data, where))
    except yaml.YAMLError as exc:
        raise SourceError(f"{where}: not valid YAML ({' '.join(str(exc).split())})") from None
    if not isinstance(doc, dict) or not doc:
        raise SourceError(f"{where}: expected a mapping of task names to settings")
    return {str(task): _setting(task, value, where) for task, value in doc.items()}


def parse_metrics(data: bytes, where: str) -> dict[str, str]:
    """The eval ``constants.py``'s ``TASKS`` as ``family -> metric name`` (each a function the file defines)."""
    node = _tasks_node(data, where)
    defined = {f.name for f in ast.parse(decode_utf8(data, where)).body if isinstance(f, ast.FunctionDef)}
    if not isinstance(node, ast.Dict) or not all(isinstance(k, ast.Constant) for k in node.keys):
        raise SourceError(f"{where}: TASKS must be a dict with string keys")
    metrics: dict[str, str] = {}
    for key, value in zip(node.keys, node.values):
        ok = (isinstance(value, ast.Dict) and len(value.keys) == 1 and isinstance(value.keys[0], ast.Constant)
              and value.keys[0].value == "metric_fn" and isinstance(value.values[0], ast.Name))
        name = value.values[0].id if ok else None
        if name not in METRICS or name not in defined:
            raise SourceError(f"{where}: TASKS[{key.value!r}] must be {{'metric_fn': NAME}} with NAME one of "
                              f"{', '.join(METRICS)} defined in the file")
        metrics[key.value] = name
    _families(metrics, where, "TASKS")
    return {family: metrics[family] for family in FAMILIES}


def parse_ruler_tasks(templates: Fetched, settings: Fetched, metric: Fetched, texts: RulerTexts) -> RulerTasks:
    """The three files (each ``(entry, bytes)``) parsed and joined as RULER's ``prepare.py`` joins them, with the
    singular rewrite of ``niah.py`` (``texts``, already read from it)."""
    (t_entry, t_data), (s_entry, s_data), (m_entry, m_data) = templates, settings, metric
    niah = next(f for f in texts.files if f.path == NIAH_SCRIPT)
    return RulerTasks(parse_templates(t_data, t_entry.path), parse_task_settings(s_data, s_entry.path),
                      parse_metrics(m_data, m_entry.path), (t_entry, s_entry, m_entry, niah), texts.singular)
