"""Reading an Inspect AI log of the ONERULER task (``inspect eval oneruler/oneruler``) as predictions.

A log is a ``.eval`` file (Inspect's default: a zip archive) or a ``.json`` file (``--log-format
json``: one pretty-printed JSON document, which a predictions file, one object a line, is not).
It is read with Inspect's own reader (``inspect_ai.log``: the format is Inspect's to define), one
sample at a time, so the ``inspect`` extra must be installed. Each sample is the prediction of
the row its id names: the completion Inspect kept (reasoning taken off, as ``oneruler run`` keeps
it) and its stop reason as a ``finish_reason`` ("max_tokens" → "length", so the paper's
truncation rules apply as for a predictions file); a sample that ended in an error is a failed
line, left out of every accuracy. Every sample of a config that was not run (Inspect's
``--limit``, ``-T limit``) is a missing row: the config is reported partial.
"""

from __future__ import annotations

import json
from pathlib import Path

from ...base.errors import OneRulerError, one_line, problems_error
from ...spec.ids import check_id
from ...spec.prediction_line import finish_reason_of
from ...spec.presets import PRESETS
from ...spec.run_meta import DatasetRecord, RunMeta
from .prediction import Prediction

INSTALL_HINT = "pip install 'oneruler[inspect]'"
INSPECT_FORMAT = "inspect-ai log"  # the ``format`` of a run's meta made from an Inspect log


def is_inspect_log(path: Path) -> bool:
    """A ``.eval`` file, or a ``.json`` file that is one JSON document with Inspect's ``eval`` header: pretty-printed
    (its first line opens the document) or on one line (not a predictions line, which has an ``id``)."""
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json":
        return False
    with path.open("rb") as handle:
        first = handle.readline().strip()
        if first == b"{":
            return True
        if handle.readline().strip():  # a second line: JSON lines
            return False
    try:
        document = json.loads(first)
    except ValueError:
        return False
    return isinstance(document, dict) and isinstance(document.get("eval"), dict) and "id" not in document


def sample_prediction(sample, number: int) -> Prediction:
    """One Inspect sample as the prediction of its row; ValueError naming the sample."""
    ident = str(sample.id)
    try:
        check_id(ident, number)
    except ValueError:
        raise ValueError(f"sample {number}: id {ident!r} is not a ONERULER row id ('{{config}}/{{index}}'); only "
                         f"logs of the oneruler/oneruler task can be scored") from None
    if sample.error is not None:
        return Prediction(ident, None, None, number, status="failed")
    output = sample.output
    return Prediction(ident, output.completion, finish_reason_of(output.stop_reason), number, status="ok")


def read_inspect_log(path: Path) -> dict[str, Prediction]:
    """Row id → prediction of every sample in an Inspect log; every bad sample is reported at once."""
    try:
        from inspect_ai.log import read_eval_log, read_eval_log_samples
    except ImportError:
        raise OneRulerError(f"{path} is an Inspect log; reading it needs inspect-ai ({INSTALL_HINT})") from None
    try:
        epochs = read_eval_log(str(path), header_only=True).eval.config.epochs or 1
        if epochs > 1:
            raise OneRulerError(f"Inspect log {path} holds {epochs} epochs of each sample; a report scores one answer "
                                f"per row: run the task with --epochs 1")
        samples = read_eval_log_samples(str(path), all_samples_required=False, resolve_attachments=True)
        predictions, problems = {}, []
        for number, sample in enumerate(samples, 1):
            try:
                pred = sample_prediction(sample, number)
            except ValueError as exc:
                problems.append(str(exc))
                continue
            if pred.id in predictions:  # as a predictions file's duplicate line: which answer is the row's?
                problems.append(f"sample {number}: duplicate id {pred.id!r} (first as sample {predictions[pred.id].line})")
                continue
            predictions[pred.id] = pred
    except OneRulerError:
        raise
    except Exception as exc:  # Inspect's reader raises its own, pydantic's and zipfile's errors
        raise OneRulerError(f"cannot read Inspect log {path}: {one_line(exc)}") from None
    problems += _unread(path, predictions)
    if problems:
        raise problems_error(problems, f"problem(s) in {path}")
    if not predictions:
        listed = _listed_samples(path)
        if listed:
            raise OneRulerError(f"Inspect log {path} lists {listed} sample(s) but none can be read: their ids do not "
                                f"match the log's own summaries (was the log edited?); score the log Inspect wrote")
        raise OneRulerError(f"no samples in Inspect log {path}")
    return predictions


def _header(path: Path):
    """The log's header (Inspect's ``EvalLog`` without samples), or None when it is not a readable log."""
    if not is_inspect_log(path):
        return None
    try:
        from inspect_ai.log import read_eval_log

        return read_eval_log(str(path), header_only=True)
    except Exception:  # noqa: BLE001 - unreadable here means unreadable in read_inspect_log, which says why
        return None


def _unread(path: Path, predictions: dict) -> list[str]:
    """Samples a finished log lists that were not read (Inspect's reader skips an id without its own sample: a
    duplicated or renamed one), each a problem: a finished run has an answer for every sample it lists."""
    header = _header(path)
    if header is None or header.status != "success" or not header.eval.dataset.sample_ids:
        return []
    read = {p.id for p in predictions.values()}
    return [f"sample id {str(i)!r} is listed by the log but has no sample of its own (was the log edited?)"
            for i in header.eval.dataset.sample_ids if str(i) not in read and check_id_ok(str(i))]


def check_id_ok(ident: str) -> bool:
    """Whether ``ident`` is a row id (a listed id that is not one is named by its sample's own problem)."""
    try:
        check_id(ident, 0)
        return True
    except ValueError:
        return False


def _listed_samples(path: Path) -> int:
    header = _header(path)
    results = getattr(header, "results", None)
    return int(getattr(results, "total_samples", 0) or 0)


def logged_status(path: Path) -> str | None:
    """The status Inspect gave the run (``success``, ``cancelled``, ``error``, ``started``); None: not a log."""
    header = _header(path)
    return str(header.status) if header is not None else None


def logged_run(path: Path) -> RunMeta | None:
    """What an Inspect log records of its run, as a run's meta: the model, the generation settings (the task's
    ``max_tokens`` and ``preset``, greedy otherwise), when it started and ended, the dataset it read; None: not a
    log. ``score`` copies it into scores.json as it copies ``oneruler run``'s meta, so the Hub notes state the
    settings and the date."""
    header = _header(path)
    if header is None:
        return None
    args = header.eval.task_args or {}
    sampling = {"temperature": 0.0, "max_tokens": args.get("max_tokens")}
    preset = args.get("preset")
    if preset in PRESETS:
        sampling.update({k: v for k, v in PRESETS[preset].items() if k in ("temperature", "max_tokens",
                                                                           "reasoning_effort")})
        sampling["max_tokens"] = args.get("max_tokens") or sampling.get("max_tokens")
    stats = header.stats
    dataset = logged_dataset(path)
    return RunMeta.of(format=INSPECT_FORMAT, model=header.eval.model, api="inspect-ai",
                      preset=preset if isinstance(preset, str) else None, sampling=sampling,
                      **({"dataset": dataset} if dataset is not None else {}),
                      started_at=stats.started_at or None, ended_at=stats.completed_at or None)


def logged_dataset(path: Path) -> DatasetRecord | None:
    """The dataset an Inspect log of the task read (name, Hub commit, manifest sha256, as the task recorded it in
    the eval's metadata), so that ``score`` reads the same commit; None: not an Inspect log, or nothing recorded."""
    header = _header(path)
    recorded = (header.eval.metadata or {}).get("dataset") if header is not None else None
    try:
        return DatasetRecord.from_json(recorded, "dataset") if isinstance(recorded, dict) else None
    except ValueError:
        return None
