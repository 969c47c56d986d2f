"""The card's "Deviations from RULER": each deliberate difference from RULER's generators (docs/generation.md,
"Deliberate deviations") that applies to a config of the export, and how many of the export's rows it touched —
summed from what the manifest records (``ShardStats.deviations``, counted at build by ``ruler_deviations.py``;
``pool_exhausted``), or, where nothing records it, said so in one line."""

from __future__ import annotations

from typing import Callable

from ..spec.tasks import family_of, get_task
from .cardprofile import is_ruler, uses_book, uses_xquad
from .records import ConfigEntry

NOT_RECORDED = ("not recorded in the rows or the manifest: counting it means regenerating the rows "
                "(`benchmarks/ruler_fidelity.py --redraws`)")
Select = Callable[[ConfigEntry], bool]


def _family(*names: str) -> Select:
    return lambda e: family_of(e.task).name in names


def _setup(prefix: str) -> Select:
    """RULER's NIAH tasks whose haystack the task record names (``RulerTask.setup``, checked against RULER's
    ``synthetic.yaml`` by a test)."""
    return lambda e: family_of(e.task).name == "ruler_niah" and get_task(e.task).setup.startswith(prefix)


def _num(n: int) -> str:
    return f"{n:,}"


def _recorded(entries: list[ConfigEntry], key: str) -> str:
    """The rows ``key`` touched, summed over the configs that record it, and the configs that do not."""
    counted = [e for e in entries if e.stats is not None and e.stats.deviations and key in e.stats.deviations]
    rows = sum(e.num_rows for e in entries)
    touched = sum(e.stats.deviations[key] for e in counted)
    text = f"{_num(touched)} of {_num(rows)} rows"
    missing = len(entries) - len(counted)
    if missing:
        text += (f" ({_num(missing)} config(s) built before this count was recorded are not included; "
                 f"`oneruler build --force` counts them)")
    return text


def _exhausted(entries: list[ConfigEntry]) -> str:
    rows = sum(e.num_rows for e in entries)
    return f"{_num(sum(e.stats.pool_exhausted or 0 for e in entries if e.stats))} of {_num(rows)} rows"


def _every(entries: list[ConfigEntry]) -> str:
    rows = _num(sum(e.num_rows for e in entries))
    return f"{rows} of {rows} rows (every row of these configs)"


# (title, what differs from RULER, which configs it applies to, how the touched rows are known)
DEVIATIONS: tuple[tuple[str, str, Select, Callable[[list[ConfigEntry]], str]], ...] = (
    ("Random draws per row", "RULER draws everything from one global `random` (and `np.random`) stream, so its row "
     "i depends on rows 0 … i−1; ours come from the project's stable generator keyed by (task, length, seed, row), "
     "so a row is a pure function of its config and index (the distributions are RULER's, the draws are not).",
     lambda e: True, _every),
    ("Fixed shuffles", "Where RULER uses `random.Random(seed).shuffle` (NIAH's needle order, CWE's word list, FWE's "
     "vocabulary, QA's documents: one permutation for every row of a config) ours is one permutation per (config, "
     "seed, list length), not Python's; a list of one item is the same either way.",
     _family("ruler_niah", "ruler_cwe", "ruler_fwe", "ruler_qa"), _every),
    ("Fill to one unit, per row", "RULER searches the haystack size once per config in steps and shrinks an "
     "overflowing row; ours fits every row to one unit with exact token counts.", lambda e: True, _every),
    ("Distinct keys and values", "RULER draws each NIAH key and value independently, so two can repeat; a repeat is "
     "drawn again here.", _family("ruler_niah"), lambda es: _recorded(es, "key_redraws")),
    ("No distractor with a real key", "RULER's distractor needles draw their keys freely; here a distractor never "
     "carries a real key.", _setup("distractor-needle haystack"), lambda es: NOT_RECORDED),
    ("Distinct variable names", "VT's chain variables are distinct (a repeat makes RULER's generator fail or start a "
     "second chain), and a renamed in-context example variable is never another of its names or `VAR`.",
     _family("ruler_vt"), lambda es: NOT_RECORDED),
    ("The essays", "RULER's `PaulGrahamEssays.json` is the 49 pinned essays followed by essays scraped live from "
     "paulgraham.com, which cannot be pinned; ours is the 49 essays, sorted, repeated past their end. Rows touched: "
     "those holding more essay words than the 49 essays have.", _setup("essay haystack"),
     lambda es: _recorded(es, "past_essays")),
    ("XQuAD not repeated", "`ruler_qa_xquad` applies RULER's QA rule to XQuAD's paragraphs but does not repeat them "
     "past their end (RULER's repetition would put the gold paragraph in a row several times): a row whose budget "
     "the language's paragraphs cannot fill is short, recorded in `qa_pool_exhausted`.",
     lambda e: uses_xquad(e.task), _exhausted),
    ("VT's in-context example in a book", "Each row renames the example's variables and value (RULER's "
     "`randomize_icl`) in its statements, question and answer only; RULER's `str.replace` over the whole example "
     "would also change any text of the book or the instruction that holds one of the example's names or its value "
     "12345. Rows touched: those whose example holds such text.",
     lambda e: _family("ruler_vt")(e) and uses_book(e), lambda es: _recorded(es, "book_example_words")),
)


def ruler_deviations(configs: dict[str, ConfigEntry]) -> str:
    """The card's list of deviations from RULER that apply to this export's configs, each with the rows it touched."""
    ruler = [configs[n] for n in sorted(configs) if is_ruler(configs[n].task)]
    lines = []
    for title, what, applies, touched in DEVIATIONS:
        entries = [e for e in ruler if applies(e)]
        if entries:
            lines.append(f"- **{title}.** {what} Rows of this export touched: {touched(entries)}.")
    intro = ("RULER's rules are reproduced, not its random draws. Each difference that applies to this export's "
             "configs, and how many of their rows it touched (docs/generation.md, \"Deliberate deviations\", gives "
             "the counts over the whole English grid):")
    return intro + "\n\n" + "\n".join(lines)
