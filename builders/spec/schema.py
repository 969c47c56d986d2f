"""The row schema: a common core every row has, then its family's own fields (field names are a public contract).

Every config has the features of its family (``features_of``): the core fields below, in this order, then
the fields the family record lists (``TaskFamily.row_fields``; CWE: the word list's frequencies and pool),
so a family's columns are never columns of another family's rows. The card's field table is made from
these (``field_table_rows``).
"""

from __future__ import annotations

from datasets import Features, List, Value

from .family import RowField, TaskFamily
from .tasks import FAMILIES, family_of

# depth: the nominal depth in whole percent; actual_depth: where the needle landed (quotation rule), percent of
# the haystack's sentences; token_depth: the same place in percent of the haystack's tokens (`tokenizer`)
NEEDLE_FEATURES = {"key": Value("string"), "value": Value("string"), "depth": Value("int32"),
                   "actual_depth": Value("float64"), "token_depth": Value("float64")}

CORE_FEATURES = Features(
    {
        "id": Value("string"),
        "config": Value("string"),
        "task": Value("string"),
        "context_language": Value("string"),
        "instruction_language": Value("string"),
        "length": Value("int64"),
        "tokenizer": Value("string"),
        "input": Value("string"),
        "answers": List(Value("string")),
        "num_tokens": Value("int64"),
        "needles": List(NEEDLE_FEATURES),
        "queries": List(Value("string")),
        "context_span": List(Value("int64")),
        "index": Value("int32"),
        "seed": Value("int64"),
        "reserve": Value("int32"),
        "budget": Value("int64"),
        "num_units": Value("int32"),
    }
)

# What each core field holds (the card's field table).
CORE_FIELDS: tuple[RowField, ...] = tuple(RowField(name, "", text) for name, text in (
    ("id", "`{config}/{index}`"),
    ("config", "the config name"),
    ("task", "the task id"),
    ("context_language", "the language of the context (book, word list)"),
    ("instruction_language", "the language of the instructions and queries (ONERULER's: also of the \"none\" word)"),
    ("length", "nominal length in tokens, as the config name gives it (`128k` = 128,000; `131072`)"),
    ("tokenizer", "identity of the measuring tokenizer, e.g. `cl100k_base`"),
    ("input", "the whole prompt, one user message"),
    ("answers", "the gold answers"),
    ("num_tokens", "exact tokens of `input` in `tokenizer`"),
    ("needles", "`key`, `value`; `depth`: the nominal depth, whole percent; `actual_depth`: where the needle landed, "
                "percent of the haystack's units (sentences, lines, documents); `token_depth`: the same place, percent of the haystack's tokens "
                "in `tokenizer`, needles not counted; empty for families without needles"),
    ("queries", "the keys asked about, in the instruction language (empty where nothing is queried)"),
    ("context_span", "`[start, end)` character offsets of the haystack or word list inside `input`"),
    ("index", "the example index (rows of one index share their draws across languages)"),
    ("seed", "the base seed of every draw"),
    ("reserve", "tokens kept free for the answer (its task's: the task table's last column)"),
    ("budget", "`length - reserve`: the bound on `num_tokens`"),
    ("num_units", "what fills the context, in its task's unit (e.g. ONERULER's NIAH: haystack sentences; CWE: "
                  "distinct words; RULER's: the Tasks list)"),
))

_DTYPES = {"list<string>": List(Value("string"))}


def family_features(family: TaskFamily) -> Features:
    """The features of a family's rows: the core, then its own fields."""
    own = {f.name: _DTYPES.get(f.dtype) or Value(f.dtype) for f in family.row_fields}
    return Features({**CORE_FEATURES, **own})


def features_of(task: str) -> Features:
    """The features of a task's rows (ValueError for an unknown task)."""
    return family_features(family_of(task))


def field_names(family: TaskFamily) -> tuple[str, ...]:
    """The fields of a family's rows, in order."""
    return (*CORE_FEATURES, *(f.name for f in family.row_fields))


def _type_name(feature) -> str:
    if isinstance(feature, List):
        inner = feature.feature
        return f"list<{'struct' if isinstance(inner, dict) else inner.dtype}>"
    return feature.dtype


def field_table_rows(labels: set[str] | None = None) -> list[list[str]]:
    """The card's field table: (field, type, rows that have it, meaning), the core then each family's fields (of the
    families labelled ``labels``; all by default), a field several families share on one line naming them all."""
    rows = [[f"`{f.name}`", _type_name(CORE_FEATURES[f.name]), "all", f.description] for f in CORE_FIELDS]
    shared: dict[tuple[str, str, str], list[str]] = {}
    for family in FAMILIES.values():
        if labels is None or family.label in labels:
            for f in family.row_fields:
                shared.setdefault((f"`{f.name}`", f.dtype, f.description), []).append(family.label)
    return rows + [[name, dtype, ", ".join(families), text] for (name, dtype, text), families in shared.items()]
