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

from pathlib import Path

from ...base.errors import OneRulerError, one_line, problems_error
from ...spec.ids import check_id
from ...spec.prediction_line import finish_reason_of
from ...spec.run_meta import DatasetRecord
from .prediction import Prediction

INSTALL_HINT = "pip install 'oneruler[inspect]'"


def is_inspect_log(path: Path) -> bool:
    """A ``.eval`` file, or a ``.json`` file whose first line opens a document (not a JSON line)."""
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json":
        return False
    with path.open("rb") as handle:
        return handle.readline().strip() == b"{"


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
            predictions[pred.id] = pred
    except OneRulerError:
        raise
    except Exception as exc:  # Inspect's reader raises its own, pydantic's and zipfile's errors
        raise OneRulerError(f"cannot read Inspect log {path}: {one_line(exc)}") from None
    if problems:
        raise problems_error(problems, f"problem(s) in {path}")
    if not predictions:
        raise OneRulerError(f"no samples in Inspect log {path}")
    return predictions


def logged_dataset(path: Path) -> DatasetRecord | None:
    """The dataset an Inspect log of the task read (name, Hub commit, manifest sha256, as the task recorded it in
    the eval's metadata), so that ``score`` reads the same commit; None: not an Inspect log, or nothing recorded."""
    if not is_inspect_log(path):
        return None
    try:
        from inspect_ai.log import read_eval_log

        recorded = (read_eval_log(str(path), header_only=True).eval.metadata or {}).get("dataset")
        return DatasetRecord.from_json(recorded, "dataset") if isinstance(recorded, dict) else None
    except Exception:  # noqa: BLE001 - unreadable here means unreadable in read_inspect_log, which says why
        return None
