"""examples.jsonl, one line per dataset row, with one writer (``example_line``) and one reader
(``record_of_line``, ``read_examples``): ``oneruler score`` writes every record's outcome and
``oneruler compare`` reads the records back (without the prediction texts) to recompute every view.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ...base.errors import OneRulerError
from ... import scoring
from ...spec.ids import config_of, id_order
from ..score.needles import NeedleHit
from ..score.records import Record


def example_line(record: Record, strict: bool) -> str:
    """One line of examples.jsonl (``needle_hits`` only for rows with needles scored by depth: [sentence depth, 0/1]
    each, and ``needle_token_depths`` beside them when the dataset records the needles' token depths)."""
    line = {"id": record.id, "task": record.task, "language": record.language, "length": record.length,
            "tokenizer": record.tokenizer, "finish_reason": record.finish_reason, **record.score.to_dict()}
    if strict:
        line["paper_passed"] = record.paper.passed
        if record.paper.graded:  # a graded row's paper-mode credit (its score there)
            line["paper_recall"] = record.paper.recall
    if record.needle_hits:
        line["needle_hits"] = [[hit.depth, int(hit.retrieved)] for hit in record.needle_hits]
        if any(hit.token_depth is not None for hit in record.needle_hits):
            line["needle_token_depths"] = [hit.token_depth for hit in record.needle_hits]
    return json.dumps(line) + "\n"


def record_of_line(line: dict[str, Any]) -> Record:
    """The record an examples.jsonl line was written from (without the prediction text)."""
    graded = line.get("graded", False)  # written only for rows of a graded rule (RULER's)
    score = scoring.ExampleScore(line["passed"], line["recall"], line["category"], line["counted"], line["status"],
                                 graded)
    paper = score if "paper_passed" not in line else scoring.ExampleScore(
        line["paper_passed"], line.get("paper_recall", line["recall"]), line["category"], line["counted"],
        line["status"], graded)
    pairs = line.get("needle_hits", ())
    tokens = line.get("needle_token_depths") or [None] * len(pairs)
    hits = tuple(NeedleHit(float(d), bool(h), None if t is None else float(t)) for (d, h), t in zip(pairs, tokens, strict=True))
    return Record(line["id"], config_of(line["id"]), line["task"], line["language"], line["length"],
                  line.get("tokenizer", ""), None, line["finish_reason"], score, paper,
                  no_line=line["status"] == "missing", index=id_order(line["id"])[1], needle_hits=hits)


def read_examples(folder: Path) -> list[Record]:
    """The records of a report folder's examples.jsonl; one error naming the folder and line otherwise."""
    path = Path(folder) / "examples.jsonl"
    if not path.is_file():
        raise OneRulerError(f"{folder}: no examples.jsonl; rescore the predictions with `oneruler score`")
    records = []
    with path.open(encoding="utf-8") as handle:
        for number, text in enumerate(handle, 1):
            if not text.strip():
                continue
            try:
                records.append(record_of_line(json.loads(text)))
            except (ValueError, KeyError, TypeError) as exc:
                raise OneRulerError(f"{path}: line {number} is not an example line "
                                    f"({type(exc).__name__}: {exc})") from None
    return records
