"""One line of a predictions file as ``oneruler run`` writes it: the contract between ``run`` and ``score``.

``{"id": "<config>/<index>", "prediction": str | null, "finish_reason": str | null, "reasoning": …,
"usage": {…}, "latency_s": …, "error": …, "status": "ok" | "failed" | "skipped"[, "wait_s": …]}``.
``run`` writes it (``to_json``); ``run`` (resume, merge) and ``score`` read it (``from_json``). Other
writers may give only ``id``, ``prediction`` and ``finish_reason``: the rest takes its default.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal, get_args

from .ids import check_id

LineStatus = Literal["ok", "failed", "skipped"]
LINE_STATUSES: tuple[LineStatus, ...] = get_args(LineStatus)
UNSCORED_STATUSES: tuple[LineStatus, ...] = ("failed", "skipped")  # lines `oneruler run` wrote without a model output
# Inspect AI's stop reasons as the OpenAI finish_reason a line holds (Inspect reads an OpenAI "length" as
# "max_tokens"; "model_length": the context window ran out mid-answer): both are a cut answer.
STOP_REASON_FINISH: dict[str, str] = {"stop": "stop", "max_tokens": "length", "model_length": "length",
                                      "tool_calls": "tool_calls", "content_filter": "content_filter"}


def finish_reason_of(stop_reason: str | None) -> str | None:
    """The finish_reason of an Inspect stop reason ("max_tokens" → "length"); None when unknown."""
    return STOP_REASON_FINISH.get(stop_reason or "")


@dataclass(frozen=True)
class PredictionLine:
    """What a run recorded for one row: the model's output (or why there is none) and how it went."""

    id: str
    prediction: str | None
    finish_reason: str | None = None
    reasoning: str | None = None
    usage: dict[str, Any] | None = None
    latency_s: float | None = None
    error: str | None = None
    status: LineStatus | None = "ok"  # None: a status this version does not know (read leniently)
    wait_s: float | None = None  # time queued before the server started answering (streamed rows only)

    @property
    def outcome(self) -> tuple:
        """What the line says the model did (latency and token counts aside): equal outcomes are one answer."""
        return self.prediction, self.finish_reason, self.reasoning, self.status, self.error

    def to_json(self) -> dict[str, Any]:
        """The JSON object of the line, in the order ``run`` has always written its keys."""
        doc = {"id": self.id, "prediction": self.prediction, "finish_reason": self.finish_reason,
               "reasoning": self.reasoning, "usage": self.usage, "latency_s": self.latency_s, "error": self.error,
               "status": self.status}
        if self.wait_s is not None:
            doc["wait_s"] = self.wait_s
        return doc

    @classmethod
    def from_json(cls, obj: Any, number: int, lenient: bool = False) -> PredictionLine:
        """Read one parsed line; ValueError naming the line (``number``) and the field at fault.

        ``lenient`` (scoring a file another tool may have written): a line without ``status`` or with one this
        version does not know is read with status None instead of "ok" or refused."""
        if not isinstance(obj, dict):
            raise ValueError(f"line {number}: expected a JSON object, got {type(obj).__name__}")
        ident = obj.get("id")
        if not isinstance(ident, str):
            raise ValueError(f"line {number}: field 'id' must be a string like 'en_s_niah_8k/0', got {ident!r}")
        check_id(ident, number)
        if "prediction" not in obj:
            raise ValueError(f"line {number} (id {ident!r}): missing field 'prediction' (null means no response)")
        for key in ("prediction", "finish_reason"):
            if obj.get(key) is not None and not isinstance(obj[key], str):
                raise ValueError(f"line {number} (id {ident!r}): '{key}' must be a string or null, "
                                 f"got {type(obj[key]).__name__}")
        status = obj.get("status", None if lenient else "ok")
        if status not in LINE_STATUSES and lenient:
            status = None
        elif status not in LINE_STATUSES:
            raise ValueError(f"line {number} (id {ident!r}): 'status' must be one of {', '.join(LINE_STATUSES)}, "
                             f"got {status!r}")
        usage = obj.get("usage")
        return cls(ident, obj["prediction"], obj.get("finish_reason"), obj.get("reasoning"),
                   usage if isinstance(usage, dict) else None, obj.get("latency_s"), obj.get("error"), status,
                   obj.get("wait_s"))
