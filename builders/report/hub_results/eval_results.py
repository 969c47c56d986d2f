"""``.eval_results/oneruler.yaml``: a report's results in the Hub's model-repo format, one writer, one reader.

Format: huggingface/hub-docs ``eval_results.yaml`` and ``docs/hub/eval-results.md`` ("Adding
Evaluation Results"): a list of entries ``{dataset: {id, task_id, revision}, value, date, source,
notes}``, built and parsed with ``huggingface_hub``'s ``EvalResultEntry``,
``eval_result_entries_to_yaml`` and ``parse_eval_result_entries`` (huggingface_hub >= 1.4). One
entry per leaderboard the report covers in full: ``dataset.id`` and ``dataset.revision`` are the
Hub dataset and commit scored against, ``value`` the percentage, ``date`` when the run ended
(``oneruler run``'s meta; left out without one: the Hub then takes the commit's time), ``notes``
the interval and every departure from the paper's setting. ``source`` (the per-row details) is
added by ``oneruler publish``. The leaderboards not covered are listed in the header comment.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

import yaml

from ...base.errors import OneRulerError, SettingError
from ...export.frontmatter import dump_front_matter
from ...export.hub import valid_repo_id
from ...spec.run_meta import RunMeta
from ..report_data import Report
from .notes import result_notes
from .values import LeaderboardValue

EVAL_RESULTS_FILE = ".eval_results/oneruler.yaml"
HUB_DATASET_KEY = "hub_dataset"  # scores.json: the Hub copy (id, revision) a local export was scored as (--dataset-id)
SOURCE_NAME = "ONERULER per-row details"
_DATASET_ID = re.compile(r"(?P<name>[\w.-]+/[\w.-]+)@(?P<revision>[0-9a-f]{40})")


@dataclass(frozen=True)
class HubIdentity:
    """The Hub dataset a report's rows are: its repo id and the commit they were read at."""

    dataset_id: str
    revision: str

    def __str__(self) -> str:
        return f"{self.dataset_id}@{self.revision}"


def parse_dataset_id(text: str) -> HubIdentity:
    """``ORG/NAME@COMMIT`` (a Hub repo id and the 40-hex commit a push printed) as a HubIdentity; a SettingError
    otherwise."""
    m = _DATASET_ID.fullmatch(text.strip())
    if m is None or not valid_repo_id(m["name"]):
        raise SettingError("dataset_id", f"{text!r}: expected ORG/NAME@COMMIT, the Hub dataset this export was pushed "
                                         f"to and the 40-hex commit `oneruler push` printed")
    return HubIdentity(m["name"], m["revision"])


def run_date(run: RunMeta | None) -> str | None:
    """When the run ended (else started), ISO 8601, from the run's meta; None when not recorded."""
    if run is None:
        return None
    for value in (run.ended_at, run.started_at):
        try:
            return dt.datetime.fromisoformat(value).isoformat() if isinstance(value, str) else None
        except ValueError:
            continue
    return None


def result_entries(report: Report, values: Sequence[LeaderboardValue], identity: HubIdentity) -> list:
    """One ``EvalResultEntry`` per leaderboard with a value."""
    from huggingface_hub import EvalResultEntry

    date = run_date(report.run)
    return [EvalResultEntry(dataset_id=identity.dataset_id, task_id=v.id, value=v.value,
                            dataset_revision=identity.revision, date=date, notes=result_notes(report, v))
            for v in values if v.value is not None]


def with_source(entries: Sequence, url: str, user: str | None = None) -> list:
    """The entries with their ``source`` set to the per-row details at ``url``."""
    return [replace(e, source_url=url, source_name=SOURCE_NAME, source_user=user) for e in entries]


def eval_results_bytes(entries: Sequence, incomplete: Sequence[LeaderboardValue] = ()) -> bytes:
    """The file: a header comment (the leaderboards left out and why), then the entries as YAML."""
    from huggingface_hub import eval_result_entries_to_yaml

    header = "# ONERULER results written by `oneruler score`; publish them with `oneruler publish`.\n"
    header += "".join(f"# not covered in full, so not here: {v.id} ({v.shortfall()})\n" for v in incomplete)
    return (header + dump_front_matter(eval_result_entries_to_yaml(list(entries)))).encode("utf-8")


def parse_eval_results(text: str) -> list:
    """The entries of a results file's text (``EvalResultEntry``); ValueError when it is not a list of them."""
    from huggingface_hub import parse_eval_result_entries

    try:
        data = yaml.safe_load(text)
        if not isinstance(data, list):
            raise ValueError("not a list of entries")
        return parse_eval_result_entries(data)
    except (yaml.YAMLError, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"not a list of evaluation results ({type(exc).__name__}: {exc})") from None


def read_eval_results(folder: Path) -> list:
    """The entries of a report folder's results file; one error naming it when absent or invalid."""
    path = Path(folder) / EVAL_RESULTS_FILE
    if not path.is_file():
        raise OneRulerError(f"{folder}: no {EVAL_RESULTS_FILE}")
    try:
        return parse_eval_results(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise OneRulerError(f"{path}: {exc}") from None
