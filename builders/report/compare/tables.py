"""What ``oneruler compare`` sets side by side, computed from each model's Report: accuracy by task × length
and by language (``task_length_table``, ``language_table``), accuracy by length per language group
(``group_curves``) and the "none" answers where a needle was present (``none_errors``).

Accuracies are micro averages (passed / counted) over the rows pooled, as in the paper. Language
groups (paper §1, Table 2): low-resource = fewer than 250K Wikipedia articles (hi, st, sw, ta),
Latin script = ``script == "Latin"``; cross-lingual configs (``ko-en``) are left out of the groups.
"""

from __future__ import annotations

from ...spec.configs import render_length
from ...spec.languages import LANGUAGES
from ..stats.cells import Cell
from ..views.grouping import task_rank
from ..views.summaries import overall_cell
from .load import ModelReport

NONE_ERRORS_TASK = "s_niah"  # the task whose "none" answers Figures 18-19 count
NONE_ERRORS_LENGTHS = (64_000, 128_000)  # Figures 18-19: S-NIAH at long context


def task_length_table(reports: list[ModelReport]) -> tuple[list[tuple], list[dict[tuple, Cell]]]:
    """(keys, per model {key: Cell}): every task × length, then "all" per length."""
    per_model = []
    for r in reports:
        cells = dict(r.report.columns.cells(("task", "length")))
        cells.update({("all", k[0]): c for k, c in r.report.columns.cells(("length",)).items()})
        per_model.append(cells)
    keys = {k for cells in per_model for k in cells}
    order = sorted(keys, key=lambda k: (k[0] == "all", task_rank(k[0]) if k[0] != "all" else (0,), k[1]))
    return order, per_model


def language_table(reports: list[ModelReport]) -> tuple[list[str], list[dict[str, Cell]]]:
    """(keys, per model {key: Cell}): every language (all tasks and lengths pooled), then "all"."""
    per_model = []
    for r in reports:
        cells = {k[0]: c for k, c in r.report.columns.cells(("language",)).items()}
        overall = overall_cell(r.report.columns)
        if overall is not None:
            cells["all"] = overall
        per_model.append(cells)
    keys = sorted({k for cells in per_model for k in cells}, key=lambda x: (x == "all", "-" in x, x))
    return keys, per_model


LANGUAGE_GROUPS = {
    "high-resource": lambda lang: not lang.low_resource,
    "low-resource (hi, st, sw, ta)": lambda lang: lang.low_resource,
    "Latin script": lambda lang: lang.script == "Latin",
    "other scripts": lambda lang: lang.script != "Latin",
}


def group_curves(report: ModelReport) -> tuple[list[str], dict[str, list[Cell | None]]]:
    """(lengths, group → pooled cell per length, with its 95 % interval) over all tasks, for the four language groups."""
    columns = report.report.columns
    lengths = sorted({r.length for r in report.report.records if r.language in LANGUAGES})
    curves = {}
    for name, member in LANGUAGE_GROUPS.items():
        where = columns.mask("language", lambda code: code in LANGUAGES and member(LANGUAGES[code]))
        cells = {k[0]: c for k, c in columns.cells(("length",), where).items()}
        curves[name] = [cells.get(n) for n in lengths]
    return [render_length(n) for n in lengths], curves


def none_errors(reports: list[ModelReport]) -> tuple[list[str], dict[str, list[int]], str]:
    """(languages, model → count of "none" answers where a needle was present, scope) like paper Figs. 18–19.

    S-NIAH examples in the accuracy whose category is ``none_when_present``, at 64K and 128K when
    the reports have them, else at every length they have.
    """
    examples = [(r.label, e) for r in reports for e in r.report.scored
                if e.task == NONE_ERRORS_TASK and e.score.counted and e.language in LANGUAGES]
    long_ones = [(m, e) for m, e in examples if e.length in NONE_ERRORS_LENGTHS]
    chosen = long_ones or examples
    lengths = sorted({e.length for _, e in chosen})
    languages = sorted({e.language for _, e in chosen})
    counts = {r.label: [sum(1 for m, e in chosen if m == r.label and e.language == lang
                            and e.score.category == "none_when_present") for lang in languages] for r in reports}
    scope = f"S-NIAH at {', '.join(render_length(n) for n in lengths)}" if lengths else "no S-NIAH examples"
    return languages, counts, scope
