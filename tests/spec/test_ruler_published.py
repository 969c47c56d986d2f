"""RULER's published rows (``spec/ruler_published.py``) equal the table of RULER's README in the pinned mirror, cell
for cell: the README is parsed here independently of the module (its Markdown as written: links, ``*`` for
author-reported rows, ``<ins>`` underlines, ``**(Nth)**`` ranks, ``TBD`` and ``-`` as missing), and its digest is
the one the module names."""

from __future__ import annotations

import hashlib
import re

import pytest

from builders.base.errors import SettingError
from builders.spec.grids import RULER_LENGTHS
from builders.spec.ruler_published import PUBLISHED_ROWS, SOURCE, select_published

FIRST_CELL = re.compile(r"^\[(?P<model>[^\]]+?)(?P<star>\*)?\]\((?P<link>.+?)\)\s*(?:\((?P<size>[^)]+)\))?$")
RANKED = re.compile(r"^(?P<value>\d+\.\d)\s*\*\*\((?P<rank>\d+)(?:st|nd|rd|th)\)\*\*$")


def number(cell: str) -> float | None:
    """A score cell: ``<ins>96.7</ins>`` → 96.7; ``-``, ``TBD`` or empty → None."""
    text = re.sub(r"</?ins>", "", cell).strip()
    return None if text in ("", "-", "TBD") else float(text)


def ranked(cell: str) -> tuple[float | None, int | None]:
    """``95.7 **(1st)**`` → (95.7, 1); ``TBD`` → (None, None)."""
    text = cell.strip()
    if text in ("", "TBD", "-"):
        return None, None
    match = RANKED.match(text)
    assert match, f"a wAvg. cell RULER's README writes differently: {cell!r}"
    return float(match["value"]), int(match["rank"])


def readme_rows(text: str) -> list[tuple]:
    """Every model line of the README's first table, as (model, size, claimed, effective, scores, avg, inc, dec,
    link, authors)."""
    lines = text.splitlines()
    start = next(k for k, line in enumerate(lines) if line.startswith("|Models|Claimed Length|"))
    assert lines[start].split("|")[4:13] == ["4K", "8K", "16K", "32K", "64K", "128K", "Avg.", "wAvg. (inc)",
                                             "wAvg. (dec)"]
    rows = []
    for line in lines[start + 2:]:
        if not line.strip():
            break
        cells = line.strip().strip("|").split("|")
        cells += [""] * (12 - len(cells))  # Llama2's line stops after its 4K score
        first = FIRST_CELL.match(cells[0].strip())
        assert first, cells[0]
        scores = tuple(number(c) for c in cells[3:9])
        rows.append((first["model"], first["size"], cells[1].strip(), cells[2].strip() or None, scores,
                     number(cells[9]), ranked(cells[10]), ranked(cells[11]), first["link"], bool(first["star"])))
    return rows


def test_the_published_rows_are_the_mirror_readmes_table_cell_for_cell(ruler_mirror):
    readme = (ruler_mirror / SOURCE.path).read_bytes()
    assert hashlib.sha256(readme).hexdigest() == SOURCE.sha256
    parsed = readme_rows(readme.decode("utf-8"))
    assert len(parsed) == len(PUBLISHED_ROWS) == 45
    ours = [(r.model, r.size, r.claimed_length, r.effective_length, r.scores, r.avg, (r.wavg_inc, r.rank_inc),
             (r.wavg_dec, r.rank_dec), r.link, r.authors) for r in PUBLISHED_ROWS]
    assert ours == parsed


def test_the_published_averages_are_rulers_of_its_own_scores():
    """Where a row gives all six scores and wAvg.: Avg. and wAvg. (inc/dec) recomputed from them with weights 1..6 and
    6..1 agree within the README's rounding: its scores are rounded to 0.1 (up to 0.05 off each) and so are its
    averages, so the two can differ by up to 0.1 (the README's rows are consistent with the rule the report applies)."""
    checked = 0
    for row in PUBLISHED_ROWS:
        if None in row.scores or row.wavg_inc is None:
            continue
        avg = sum(row.scores) / 6
        inc = sum((k + 1) * s for k, s in enumerate(row.scores)) / 21
        dec = sum((6 - k) * s for k, s in enumerate(row.scores)) / 21
        assert max(abs(avg - row.avg), abs(inc - row.wavg_inc), abs(dec - row.wavg_dec)) <= 0.1 + 1e-9, row.label
        checked += 1
    assert checked == 34  # every ranked row (1st … 34th)
    gpt4 = PUBLISHED_ROWS[11]
    assert gpt4.label == "GPT-4-1106-preview" and gpt4.score_at(8000) is None
    assert [gpt4.score_at(n) for n in RULER_LENGTHS] == [96.6, 96.3, 95.2, 93.2, 87.0, 81.2]


def test_select_by_part_of_a_name_or_all_and_a_miss_is_one_line():
    assert [r.label for r in select_published(["Llama3.1"])] == ["Llama3.1 (70B)", "Llama3.1 (8B)"]
    assert [r.label for r in select_published(("gpt-4", "LWM"))] == ["GPT-4-1106-preview", "LWM (7B)"]
    assert len(select_published(["all"])) == 45 and select_published([]) == []
    with pytest.raises(SettingError) as raised:
        select_published(["GPT-5"])
    message = str(raised.value)
    assert "\n" not in message and "'gpt-5'" in message and "GPT-4-1106-preview" in message
