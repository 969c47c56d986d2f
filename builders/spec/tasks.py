"""The task table: the families of the benchmark (``FAMILIES``) and their tasks (``TASKS``), as data.

A family is registered here (its record and its tasks: ``families/*.py``); everything else about a task is
read from its record (``get_task``) and its family's (``family_of``). ``TASKS`` lists the paper's main grid
first (the card's task table and every "valid:" list), the reports list tasks family by family
(``listing_rank``). Ids of a family's forms (``mv{K}_niah``) are made on demand.
"""

from __future__ import annotations

from ..scoring import RULES
from .family import Task, TaskFamily, TaskForm
from .families import cwe, niah, ruler_cwe, ruler_fwe, ruler_niah, ruler_qa, ruler_vt

FAMILIES: dict[str, TaskFamily] = {}
TASKS: dict[str, Task] = {}


def register_family(family: TaskFamily) -> TaskFamily:
    """Add a family and its tasks to the table (the main grid's tasks stay first); returns it.

    ValueError when its name or a task id is taken, a task is not the family's own, or a task names a scoring rule
    the scoring package does not have (register the rule first: ``scoring.register_rule``).
    """
    taken = [t.name for t in family.tasks if t.name in TASKS]
    if family.name in FAMILIES or taken:
        raise ValueError(f"family {family.name!r}: {', '.join(taken) or 'its name'} is taken")
    unknown = sorted({t.scoring_rule for t in family.tasks} - set(RULES))
    if unknown:
        raise ValueError(f"family {family.name!r}: no scoring rule {', '.join(map(repr, unknown))}; the scoring "
                         f"package has {', '.join(RULES)}")
    strangers = [t.name for t in family.tasks if t.family is not family]
    if strangers:
        raise ValueError(f"family {family.name!r}: task(s) {', '.join(strangers)} belong to another family")
    FAMILIES[family.name] = family
    ordered = [*(t for t in TASKS.values() if t.main), *(t for t in family.tasks if t.main),
               *(t for t in TASKS.values() if not t.main), *(t for t in family.tasks if not t.main)]
    TASKS.clear()
    TASKS.update((t.name, t) for t in ordered)
    return family


for _family in (niah.NIAH, cwe.CWE, ruler_niah.RULER_NIAH, ruler_vt.RULER_VT, ruler_cwe.RULER_CWE, ruler_fwe.RULER_FWE,
                ruler_qa.RULER_QA):
    register_family(_family)

# The seven tasks of the paper's main grid (the ablation is listed separately).
MAIN_TASKS: tuple[str, ...] = tuple(n for n, t in TASKS.items() if t.main)
NIAH_TASKS: tuple[str, ...] = tuple(n for n, t in TASKS.items() if t.family.needles)
CROSS_LINGUAL_TASKS: tuple[str, ...] = tuple(n for n in MAIN_TASKS if TASKS[n].family.cross_lingual)


def allows_cross_lingual(task: Task) -> bool:
    """Whether a task has cross-lingual configs: its family allows them and its languages admit two different ones."""
    rule = task.family.language_rule(task.name)
    return task.family.cross_lingual and not (rule.contexts is not None and rule.instructions is not None
                                             and len(set(rule.contexts) | set(rule.instructions)) < 2)


def task_forms() -> tuple[TaskForm, ...]:
    """Every family's forms of task ids made on demand."""
    return tuple(form for family in FAMILIES.values() for form in family.forms)


def forms_text() -> str:
    """How the ids made on demand are written, for errors: ``mv{K}_niah or mv{K}e_niah (K = 2..256)``."""
    return ", ".join(form.text for form in task_forms())


def form_of(name: object) -> TaskForm | None:
    """The form whose pattern a task id has (valid or not), or None."""
    if not isinstance(name, str):
        return None
    return next((form for form in task_forms() if form.pattern.fullmatch(name)), None)


def valid_tasks() -> str:
    """The valid task ids, for errors: the table's, then the forms."""
    return ", ".join([*TASKS, forms_text()] if task_forms() else TASKS)


def get_task(name: str) -> Task:
    """Return a task (a table id or one of a form), or raise a ValueError listing the valid ids."""
    task = TASKS.get(name) if isinstance(name, str) else None
    if task is not None:
        return task
    form = form_of(name)
    if form is None:
        raise ValueError(f"unknown task {name!r}; valid: {valid_tasks()}")
    return form.make(name)


def family_of(task: str) -> TaskFamily:
    """The family of a task id (ValueError as ``get_task``)."""
    return get_task(task).family


def limit_keys(task: str) -> tuple[str, ...]:
    """The names a per-task setting (``run --max-tokens cwe=200``) may be given under for a row of ``task``, most
    specific first: the task id, then its family's name (an id this version does not know: the id alone)."""
    try:
        return task, family_of(task).name
    except ValueError:
        return (task,)


def has_needles(task: str) -> bool:
    """Whether a task's rows place needles (False for ids this version does not know: a report reads on)."""
    try:
        return family_of(task).needles
    except ValueError:
        return False


def listing_rank(task: str) -> tuple[int, int, str]:
    """Sort key of a task in reports: family by family, each family's tasks in its order, a made-on-demand id
    right after the task it is listed with (``mv16_niah`` after mv_niah); unknown ids last, by name."""
    position = 0
    try:
        listed_with, rank = get_task(task).order
    except ValueError:
        listed_with, rank = None, 0
    for family in FAMILIES.values():
        for known in family.tasks:
            if known.name == listed_with:
                return position, rank, (task if rank else "")
            position += 1
    return position, 0, str(task)
