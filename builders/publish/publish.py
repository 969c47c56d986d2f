"""``oneruler publish REPORT --model ORG/MODEL``: a report's Hub results into the model's repository.

``plan_publication`` reads the report folder (scores.json, ``.eval_results/oneruler.yaml``,
``details.parquet``) and lays out every file and where it goes, without the Hub; ``publish``
then checks the Hub (the benchmark's ``eval.yaml`` at the commit scored defines each task and its
manifest is the report's; the model repo exists; with ``create_pr`` off, the token may write to
it), pushes the details dataset when asked (its URL becomes each result's ``source``) and commits
the results file to the model repo, as a pull request by default (the Hub's community path).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

from ..base.errors import OneRulerError
from ..dataset.source import DatasetSource
from ..export.hub import check_repo_id, hub_token
from ..export.layout import EVAL_YAML_NAME
from ..report.documents.scores_json import ScoresDocument, read_scores
from ..report.hub_results.details import read_details
from ..report.hub_results.eval_results import EVAL_RESULTS_FILE, eval_results_bytes, read_eval_results, with_source
from . import hub
from .details_dataset import details_files


@dataclass
class Publication:
    """What ``publish`` sends: the results (to ``model``), and the details files (to ``details``, when asked)."""

    report: Path
    model: str
    document: ScoresDocument
    entries: list
    create_pr: bool
    details: str | None = None
    details_files: dict[str, bytes] = field(default_factory=dict)

    @property
    def dataset(self) -> tuple[str, str | None]:
        """(Hub dataset id, commit) the results are for."""
        return self.entries[0].dataset_id, self.entries[0].dataset_revision

    def results_bytes(self, source_url: str | None = None) -> bytes:
        """The results file as uploaded (with ``source`` when the details have a URL)."""
        entries = with_source(self.entries, source_url, self.details.split("/")[0]) if source_url else self.entries
        return eval_results_bytes(entries)

    def describe(self) -> list[str]:
        """The files and where they would go (``--dry-run``)."""
        lines = []
        if self.details:
            rows = ", ".join(f"{path} ({len(data):,} bytes)" for path, data in self.details_files.items())
            lines.append(f"dataset {self.details} (created if missing): {rows}")
        how = "a pull request on" if self.create_pr else "a commit to main of"
        source = " (source: the details dataset's URL)" if self.details else ""
        lines.append(f"{how} model {self.model}: {EVAL_RESULTS_FILE}{source}, {len(self.entries)} result(s):")
        return lines + ["  " + line for line in self.results_bytes().decode("utf-8").splitlines()]


def missing_results(report: Path, document: ScoresDocument) -> OneRulerError:
    """Why a report has no results file: no Hub identity, or no leaderboard covered in full."""
    dataset = document.dataset
    if dataset is None or dataset.revision is None:
        name = dataset.name if dataset is not None else "a dataset"
        return OneRulerError(f"{report}: no Hub identity: its rows come from the local export {name}; push the export "
                             f"(`oneruler push`) and score the Hub copy, or rescore with --dataset-id ORG/NAME@COMMIT")
    return OneRulerError(f"{report}: covers no leaderboard of {dataset.name} in full, so it has no "
                         f"{EVAL_RESULTS_FILE}: finish the run (every row of a leaderboard's pool) and rescore")


def plan_publication(report: Path, model: str, details: str | None = None, create_pr: bool = True) -> Publication:
    """Read the report and lay out what would be sent (no Hub call); one error for a report that cannot be published."""
    check_repo_id(model, "model")
    if details is not None:
        check_repo_id(details, "details")
    report = Path(report)
    document = read_scores(report)
    if not (report / EVAL_RESULTS_FILE).is_file():
        raise missing_results(report, document)
    entries = read_eval_results(report)
    if not entries:
        raise OneRulerError(f"{report / EVAL_RESULTS_FILE}: holds no result")
    if len({(e.dataset_id, e.dataset_revision) for e in entries}) != 1:
        raise OneRulerError(f"{report / EVAL_RESULTS_FILE}: results for several datasets; rescore the report")
    plan = Publication(report, model, document, entries, create_pr, details)
    if details is not None:
        plan.details_files = details_files(model, document, entries, read_details(report))
    return plan


def check_benchmark(plan: Publication) -> None:
    """The dataset's eval.yaml at the commit scored defines every task, and its manifest is the report's."""
    dataset, revision = plan.dataset
    source = DatasetSource.open(dataset, revision, "the results' dataset.revision")
    path = source.file(EVAL_YAML_NAME)
    if path is None:
        raise OneRulerError(f"dataset {dataset}@{revision} has no {EVAL_YAML_NAME}: it is not registered as a "
                            f"benchmark; push an export built by this version (`oneruler build`, `oneruler push`)")
    try:
        tasks = yaml.safe_load(path.read_text(encoding="utf-8")).get("tasks") or []
        defined = [t.get("id") for t in tasks]
    except (yaml.YAMLError, AttributeError) as exc:
        raise OneRulerError(f"{EVAL_YAML_NAME} of dataset {dataset}@{revision} does not parse ({exc})") from None
    for entry in plan.entries:
        if entry.task_id not in defined:
            raise OneRulerError(f"task {entry.task_id!r} is not defined by the {EVAL_YAML_NAME} of dataset "
                                f"{dataset}@{revision} (it defines: {', '.join(map(str, defined)) or 'none'})")
    scored = plan.document.dataset.manifest_sha256 if plan.document.dataset else None
    found = source.identity().manifest_sha256
    if scored and found and scored != found:
        raise OneRulerError(f"{plan.report}: its rows are not those of dataset {dataset}@{revision} (manifest sha256 "
                            f"{scored[:12]}… scored, {found[:12]}… on the Hub): rescore the predictions against that dataset")


def publish(plan: Publication, echo: Callable[[str], None]) -> str:
    """Check, push the details (if asked), commit the results; the URL of the pull request (or commit)."""
    hub_token()  # no token: say so before anything is read
    check_benchmark(plan)
    hub.check_model_repo(plan.model, write=not plan.create_pr)
    source_url = None
    if plan.details:
        source_url = hub.push_details(plan.details, plan.details_files)
        echo(f"pushed the per-row details to {source_url}")
    dataset, revision = plan.dataset
    description = (f"ONERULER results for {', '.join(e.task_id for e in plan.entries)} on {dataset}@{revision}, "
                   f"written by `oneruler score` and uploaded with `oneruler publish`.")
    return hub.upload_results(plan.model, EVAL_RESULTS_FILE, plan.results_bytes(source_url), plan.create_pr,
                              description)
