"""How many rows of a RULER config each countable deviation from RULER touched (docs/generation.md, "Deliberate
deviations"), counted when the config is built and kept in its manifest stats (``ShardStats.deviations``) for the
card (``cardruler.py``). The rows stay as they are: nothing here changes a row or adds a field to one.

- ``key_redraws`` (RULER's NIAH): rows whose keys or values drew a repeat that was drawn again; the generator's own
  draw (``generate/ruler/niah.py:draw_niah``, its ``rejected``), made again for each row: keys and values only, no
  haystack, no tokenizer.
- ``past_essays`` (RULER's essay haystacks): rows holding more essay words (``num_units``) than the pinned essays
  have, the place where RULER's haystack goes on with essays scraped live and ours repeats the pinned ones.
- ``book_example_words`` (RULER's VT in a book): rows whose in-context example holds, in the book's text or the
  instruction, one of the example's names or its value 12345: RULER's ``randomize_icl`` (``str.replace`` over the
  whole example) would have renamed that text as well; ours renames the statements, question and answer only. The
  example is one per config, so this is every row or none.
"""

from __future__ import annotations

from ..generate.material import RowMaterial
from ..generate.rows import RowGenerator
from ..generate.ruler.niah import draw_niah
from ..generate.ruler.vt_book import book_example
from ..generate.ruler.vt_chains import EXAMPLE_VALUE
from ..spec.configs import ConfigSpec
from ..spec.families.ruler import RulerTask
from ..spec.tasks import get_task

NIAH_FAMILY, VT_FAMILY = "ruler_niah", "ruler_vt"


def _args(material: RowMaterial, task: RulerTask) -> dict:
    return dict(material.ruler.tasks.setting(task.ruler_name).args)


def _key_redraws(material: RowMaterial, spec: ConfigSpec, task: RulerTask, seed: int, rows: list[dict]) -> int:
    args = _args(material, task)
    return sum(draw_niah(task, args, material, spec.length, row["index"], seed).rejected > 0 for row in rows)


def _past_essays(material: RowMaterial, task: RulerTask, rows: list[dict]) -> int | None:
    if _args(material, task)["type_haystack"] != "essay":
        return None
    words = len(material.ruler.essays.words)
    return sum(row["num_units"] > words for row in rows)


def _book_example_words(material: RowMaterial, spec: ConfigSpec, task: RulerTask, seed: int, rows: list[dict]) -> int:
    # The same cache key as the generator's (vt_book.book_vt_fields): the example the rows were made with, not a
    # second one (a different key would only make it again, equal).
    example = material.prepared.shared(("ruler-vt-book-example", spec.name, seed), material.tokenizer,
                                       lambda: book_example(spec, task, _args(material, task), seed, material))
    # The names and value stand as marks in ``text``: what is left of them there is the book's or the instruction's.
    touched = EXAMPLE_VALUE in example.text or any(name in example.text for name in example.names)
    return len(rows) if touched else 0


def deviation_counts(generator: RowGenerator, spec: ConfigSpec, seed: int, rows: list[dict]) -> dict[str, int] | None:
    """Per countable deviation, the rows of this config it touched (``rows``: each row's ``index`` and ``num_units``);
    None for a config none applies to (ONERULER's tasks, RULER's without one)."""
    task = get_task(spec.task)
    if not isinstance(task, RulerTask):
        return None
    material = RowMaterial(generator.sources, generator.tokenizer_for(spec), generator.prepared)
    counts: dict[str, int] = {}
    if task.family_name == NIAH_FAMILY:
        counts["key_redraws"] = _key_redraws(material, spec, task, seed, rows)
        past = _past_essays(material, task, rows)
        if past is not None:
            counts["past_essays"] = past
    elif task.family_name == VT_FAMILY and spec.context_language != "en":
        counts["book_example_words"] = _book_example_words(material, spec, task, seed, rows)
    return counts or None
