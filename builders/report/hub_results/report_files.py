"""What ``oneruler score`` adds to a report for the Hub: ``.eval_results/oneruler.yaml``, ``details.parquet`` and
the lines it prints about them (``hub_results``).

The results file needs the Hub identity of the rows scored: a Hub dataset has it (name and the
commit it was read at); a local export has none unless ``dataset_id`` names the Hub dataset and
commit it was pushed as. Without one, or when the report covers no leaderboard in full, no
results file is written (and one left by an earlier scoring into the same folder is removed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from ...base.errors import OneRulerError, named_setting
from ...dataset.source import DatasetIdentity
from ..report_data import Report
from ..score.prediction import Prediction
from .details import DETAILS_FILE, details_table, parquet_bytes
from .eval_results import EVAL_RESULTS_FILE, HubIdentity, eval_results_bytes, result_entries
from .notes import ceiling_note
from .values import LeaderboardValue, leaderboard_values


@dataclass
class HubResults:
    """Files to write into the report folder (None: remove that file if there) and the lines to print."""

    files: dict[str, bytes | None] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)


def hub_identity(identity: DatasetIdentity | None, given: HubIdentity | None) -> HubIdentity | None:
    """The Hub identity of the rows: the Hub dataset's own, else ``given`` (a local export's); an error for both."""
    if identity is not None and identity.revision is not None:
        if given is not None:
            raise OneRulerError(f"{named_setting('dataset_id')} applies to a local export; {identity.name} is a Hub "
                                f"dataset, scored at commit {identity.revision}")
        return HubIdentity(identity.name, identity.revision)
    return given


def value_line(value: LeaderboardValue, report: Report | None = None) -> str:
    """``oneruler_8k: 63.42 % [61.20, 65.60]`` (and the ceiling rows that cannot fit put on it) or why it has no
    value."""
    if not value.complete:
        return f"  {value.id}: incomplete, {value.shortfall()}"
    if value.value is None:
        return f"  {value.id}: not determined (no counted row)"
    ci = value.interval
    ceiling = ceiling_note(report, value) if report is not None else ""
    return (f"  {value.id}: {value.value:.2f} %" + (f" [{100 * ci.low:.2f}, {100 * ci.high:.2f}]" if ci else "")
            + (f"; {ceiling}" if ceiling else ""))


def hub_results(report: Report, config_names: Iterable[str], predictions: dict[str, Prediction],
                rows: dict[str, dict], identity: HubIdentity | None) -> HubResults:
    """details.parquet always; the results file when the rows have a Hub identity and a leaderboard is complete."""
    out = HubResults({DETAILS_FILE: parquet_bytes(details_table(report.records, predictions, rows))})
    values = leaderboard_values(report, config_names)
    if not values:
        out.lines.append("Hub leaderboards: the dataset serves none (none has its whole pool of configs in it); "
                         "no .eval_results file")
        out.files[EVAL_RESULTS_FILE] = None
        return out
    out.lines.append("Hub leaderboards (value %, 95 % interval):")
    out.lines += [value_line(v, report) for v in values]
    entries = result_entries(report, values, identity) if identity is not None else []
    if identity is None:
        out.lines.append("no Hub identity: the rows come from a local export that names no Hub dataset; push it and "
                         "score the Hub copy, or pass --dataset-id ORG/NAME@COMMIT; no .eval_results file")
    elif not entries:
        out.lines.append(f"no leaderboard of {identity.dataset_id} is covered in full; no .eval_results file")
    elif not (report.dataset and report.dataset.manifest_sha256):
        out.lines.append(f"{identity}: no manifest.json was found with the rows, so nothing can show they are that "
                         f"dataset's; no .eval_results file (score a dataset pushed by `oneruler push`)")
        entries = []
    if not entries:
        out.files[EVAL_RESULTS_FILE] = None
        return out
    out.files[EVAL_RESULTS_FILE] = eval_results_bytes(entries, [v for v in values if v.value is None])
    out.lines.append(f"{EVAL_RESULTS_FILE}: {len(entries)} result(s) for {identity}; "
                     f"`oneruler publish REPORT --model ORG/MODEL` opens the pull request")
    return out
