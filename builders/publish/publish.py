"""``oneruler publish REPORT --model ORG/MODEL``: a report's Hub results into the model's repository.

``plan_publication`` reads the report folder once, consistently, and checks it (``checked_report.py``:
the results made again from scores.json and examples.jsonl and the report's file checked equal to
them, the details checked against the examples) and lays out every file and where it goes, without
the Hub. ``publish`` then checks the Hub, failing closed (the benchmark's ``eval.yaml`` at the commit
scored defines each task and its manifest is the one the report scored; the model repo exists; with
``create_pr`` off, the token may write to it; a details dataset is new or one a publication of this
model made), pushes the details dataset when asked (its URL becomes each result's ``source``) and
puts the results file on the model repo, as a pull request by default (the Hub's community path): our
own open pull request when there is one, so that a rerun never opens a second. A results commit that
fails after the details were pushed leaves the details dataset as it was before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import yaml

from ..base.errors import OneRulerError
from ..base.redact import public_url
from ..dataset.source import DatasetSource
from ..export.hub import check_repo_id, hub_token
from ..export.layout import EVAL_YAML_NAME
from ..report.hub_results.eval_results import EVAL_RESULTS_FILE, eval_results_bytes, with_source
from . import hub
from .checked_report import CheckedReport, checked_report
from .details_dataset import details_files, not_ours


@dataclass
class Publication:
    """What ``publish`` sends: the results (to ``model``), and the details files (to ``details``, when asked)."""

    checked: CheckedReport
    model: str
    create_pr: bool
    details: str | None = None
    details_files: dict[str, bytes] = field(default_factory=dict)

    @property
    def report(self) -> Path:
        """The report folder."""
        return self.checked.folder

    @property
    def entries(self) -> list:
        """The results, one per leaderboard the report covers in full."""
        return self.checked.entries

    @property
    def dataset(self) -> tuple[str, str]:
        """(Hub dataset id, commit) the results are for."""
        return self.checked.identity.dataset_id, self.checked.identity.revision

    def results_bytes(self, source_url: str | None = None) -> bytes:
        """The results file as uploaded (with ``source`` when the details have a URL)."""
        entries = with_source(self.entries, source_url, self.details.split("/")[0]) if source_url and self.details \
            else self.entries
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


def plan_publication(report: Path, model: str, details: str | None = None, create_pr: bool = True,
                     log: Callable[[str], None] | None = None) -> Publication:
    """Read and check the report and lay out what would be sent (no Hub call); one error for a report that cannot be
    published. ``log`` says when the report's lock is waited for (a ``score`` writing into it)."""
    check_repo_id(model, "model")
    if details is not None:
        check_repo_id(details, "details")
    checked = checked_report(Path(report), details is not None, log)
    plan = Publication(checked, model, create_pr, details)
    if details is not None:
        plan.details_files = details_files(model, checked.document, checked.entries, checked.details)
    return plan


def check_benchmark(plan: Publication) -> None:
    """The dataset's eval.yaml at the commit scored defines every task, and its manifest is the report's; failing
    closed: a file the Hub cannot serve is an error, never a check skipped."""
    dataset, revision = plan.dataset
    source = DatasetSource.on_hub(dataset, revision)
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
    scored = plan.checked.document.manifest_sha256()
    found = source.identity().manifest_sha256
    if found is None:
        raise OneRulerError(f"dataset {dataset}@{revision} has no manifest.json, so nothing shows that the report's rows "
                            f"are its rows: publish against a dataset pushed by `oneruler push`")
    if scored != found:
        raise OneRulerError(f"{plan.report}: its rows are not those of dataset {dataset}@{revision} (manifest sha256 "
                            f"{str(scored)[:12]}… scored, {found[:12]}… on the Hub): rescore the predictions against "
                            f"that dataset")


def _words(committed: hub.Committed, create_pr: bool) -> str:
    if committed.how == "already there":
        return f"already there ({'our open pull request' if create_pr else 'main'} holds these results)"
    return {"opened": "opened a pull request", "updated": "updated our open pull request",
            "committed": "committed"}[committed.how]


def publish(plan: Publication, echo: Callable[[str], None]) -> str:
    """Check, push the details (if asked), put the results on the model repo; what was done, with its URL."""
    hub_token()  # no token: say so before anything is read
    with hub.publish_lock(plan.model):
        check_benchmark(plan)
        hub.check_model_repo(plan.model, write=not plan.create_pr)
        target = hub.details_target(plan.details, not_ours(plan.details, plan.model)) if plan.details else None
        source_url, pushed = None, False
        if target is not None:
            source_url, pushed = hub.push_details(target, plan.details_files)
            echo(f"{'pushed the per-row details to' if pushed else 'the per-row details are already at'} "
                 f"{public_url(source_url)}")
        dataset, revision = plan.dataset
        description = (f"ONERULER results for {', '.join(e.task_id for e in plan.entries)} on {dataset}@{revision}, "
                       f"written by `oneruler score` and uploaded with `oneruler publish`.")
        try:
            committed = hub.commit_results(plan.model, EVAL_RESULTS_FILE, plan.results_bytes(source_url),
                                           plan.create_pr, description)
        except OneRulerError as exc:
            raise (hub.undo_details(target, exc) if pushed else exc) from None
    return f"{_words(committed, plan.create_pr)} on {plan.model}: {public_url(committed.url)}"

