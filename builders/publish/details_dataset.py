"""The per-row details of a report as a Hub dataset: Parquet per length and a card (``details_files``).

The dataset viewer shows it and ``datasets.load_dataset(ORG/NAME, "8k")`` loads it: the card's
front matter declares one config per length (``8k`` …) and ``all`` (the default), each with one
``test`` split; every file is the report's ``details.parquet`` rows of that length, in the
report's order. The card states the model, the benchmark dataset and commit scored against (and
its manifest's sha256), the run's generation settings, the scoring options, the leaderboard values
and what every column holds.
"""

from __future__ import annotations

import json
import re
from typing import Any, Callable, Sequence

import pyarrow.compute as pc

from ..base.errors import named_setting
from ..export.frontmatter import dump_front_matter, parse_front_matter
from ..report.documents.scores_json import ScoresDocument
from ..report.hub_results.details import DETAILS_SCHEMA, parquet_bytes
from ..spec.configs import render_length
from ..spec.defaults import SPLIT

FIELDS = {
    "id": "the dataset row, `{config}/{index}`", "config": "its config", "language": "context language (`ctx-inst` "
    "for a cross-lingual row)", "task": "the task id", "length": "nominal length in tokens",
    "tokenizer": "the tokenizer that measured the length",
    "needle_depth": "each needle's nominal depth, % of the haystack (empty for CWE)",
    "needle_actual_depth": "where each needle landed, % of the haystack's sentences",
    "needle_token_depth": "the same place in % of the haystack's tokens (null where the dataset does not record it)",
    "gold": "the gold answers", "prediction": "the model's answer as scored (null: no response)",
    "reasoning_chars": "length of the reasoning the server split off (null: none)",
    "reasoning_tokens": "reasoning tokens the server reported", "finish_reason": "why generation stopped",
    "prompt_tokens": "prompt tokens the server counted", "completion_tokens": "tokens generated",
    "correct": "full credit: passed the paper's metric (RULER's rows: every reference found)",
    "counted": "in the accuracy's denominator (NIAH rows without an answer are not)",
    "error_category": "`correct`, `none_when_present`, `distractor`, `partial`, `wrong` or `no_answer`",
    "recall": "share of the gold answers found",
    "score": "the row's credit in its family's rule, what the value averages: RULER's rows their graded credit "
    "(share of the references found; for QA 1 when any is), ONERULER's 1.0 or 0.0 (null: not counted)",
}


TITLE = "ONERULER details: "  # the card's pretty_name, then the model: how a details dataset of ours is known
_OUR_FILE = re.compile(r"\.gitattributes|README\.md|data/[^/]+/test\.parquet")


def card_title(card: str | None) -> str | None:
    """The ``pretty_name`` of a dataset card's front matter (None: no card, no front matter or no title)."""
    try:
        title = (parse_front_matter(card) or {}).get("pretty_name") if card else None
    except Exception:  # noqa: BLE001 - a card that does not parse is not one we wrote
        return None
    return title if isinstance(title, str) else None


def not_ours(repo: str, model: str) -> Callable[[list[str], str | None], str | None]:
    """Given an existing dataset's files and card: why ``publish`` must not write its details for ``model`` there
    (None: it is the details dataset a publication of that model made). Only such a dataset, or a new one, is written:
    anything else (the benchmark itself, another dataset, another model's details) is refused before any write."""
    def problem(files: list[str], card: str | None) -> str | None:
        foreign = [f for f in files if not _OUR_FILE.fullmatch(f)]
        title = card_title(card)
        if foreign or title is None or not title.startswith(TITLE):
            shown = ", ".join(foreign[:3]) + (" …" if len(foreign) > 3 else "") if foreign else "no details card"
            return (f"dataset {repo} exists and is not a details dataset made by `oneruler publish` (it holds {shown}); "
                    f"publish never overwrites another dataset: give {named_setting('details')} a new name")
        if title != TITLE + model:
            return (f"dataset {repo} holds the details of {title[len(TITLE):]}, not of {model}; give "
                    f"{named_setting('details')} another name")
        return None

    return problem


def by_length(table) -> dict[str, Any]:
    """The table's rows per length label (``8k`` …), lengths ascending."""
    lengths = sorted(set(table.column("length").to_pylist()))
    return {render_length(n): table.filter(pc.equal(table["length"], n)) for n in lengths}


def front_matter(model: str, files: Sequence[str]) -> dict[str, Any]:
    """The card's YAML: ``all`` (default) and one config per length."""
    configs = [{"config_name": "all", "default": True, "data_files": [{"split": SPLIT, "path": list(files)}]}]
    configs += [{"config_name": f.split("/")[1], "data_files": [{"split": SPLIT, "path": f}]} for f in files]
    return {"pretty_name": TITLE + model, "tags": ["oneruler", "evaluation", "long-context",
                                                                    "multilingual"], "configs": configs}


def _settings(document: ScoresDocument) -> list[str]:
    run = document.run
    if run is None:
        return ["- generation: not recorded (the predictions were not written by `oneruler run`)"]
    sampling = json.dumps(run.sampling, sort_keys=True)
    return [f"- served model name: `{run.model}`, API `{run.api}`, preset `{run.preset}`",
            f"- sampling: `{sampling}` (`max_tokens` null: each row's reserve, the paper's setting)",
            f"- run: {run.started_at} – {run.ended_at}"]


def details_card(model: str, document: ScoresDocument, entries: Sequence, rows_by_length: dict[str, int]) -> str:
    """The card's text after the front matter."""
    dataset = document.dataset
    first = entries[0] if entries else None
    where = f"`{first.dataset_id}` at commit `{first.dataset_revision}`" if first else f"`{dataset.name}`"
    lines = [f"# ONERULER per-row details: {model}", "",
             f"One row per prediction of `{model}` on ONERULER ({where}; manifest sha256 "
             f"`{dataset.manifest_sha256 if dataset else None}`), scored by `oneruler score` with the paper's metric "
             f"(RULER's rows with RULER's graded one: their `score` is the share of references found). "
             f"Rows per length: " + ", ".join(f"{k} {v:,}" for k, v in rows_by_length.items()) + ".", "",
             "## Settings", "", *_settings(document),
             f"- scoring: `{json.dumps(document.options.as_json(), sort_keys=True)}` (`correct` below is in the "
             f"paper's mode)", "", "## Leaderboard results", "", "| task | value (%) | notes |", "|---|---|---|"]
    lines += [f"| `{e.task_id}` | {e.value} | {(e.notes or '').replace('<', '&lt;')} |" for e in entries]
    lines += ["", "## Fields", ""] + [f"- `{name}`: {FIELDS[name]}" for name in DETAILS_SCHEMA.names]
    return "\n".join(lines) + "\n"


def details_files(model: str, document: ScoresDocument, entries: Sequence, table) -> dict[str, bytes]:
    """README.md and ``data/{length}/test.parquet`` per length: the files of the details dataset."""
    parts = by_length(table)
    data = {f"data/{label}/{SPLIT}.parquet": parquet_bytes(part) for label, part in parts.items()}
    card = details_card(model, document, entries, {label: len(part) for label, part in parts.items()})
    readme = f"---\n{dump_front_matter(front_matter(model, list(data)))}---\n\n{card}"
    return {"README.md": readme.encode("utf-8"), **data}
