"""How each request is made, as typed settings: sampling (the paper's presets applied, Appendix B.1; a limit of new
tokens per task family or task id), run limits (the retry policy is ``base/retry.py``'s, shared with the Hub calls).

Paper defaults (SPEC §8): greedy decoding (temperature 0) and at most the row's ``reserve`` new
tokens (30 NIAH, 50 CWE: upstream's budget constants). The presets (``spec/presets.py``) reproduce the two reasoning
models of Appendix B.1; "10k"/"8k" output tokens are read as 10,000/8,000 (k = 1,000 throughout).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from ..base.errors import SettingError
from ..spec.presets import preset_values
from ..spec.tasks import FAMILIES, get_task, limit_keys

APIS = ("chat", "completions")
MAX_TOKENS_PARAMS = ("max_tokens", "max_completion_tokens")
REASONING_EFFORTS = ("low", "medium", "high")


@dataclass(frozen=True)
class SamplingSettings:
    """Every generation parameter sent with a request (None: not sent, the server's default). In ``run/`` a typed record
    of what a run does is a *setting* (this, ``settings.py``); the command line's raw values are its *options*."""

    temperature: float | None = 0.0
    top_p: float | None = None
    seed: int | None = None
    stop: tuple[str, ...] = ()
    max_tokens: int | None = None  # None: the row's reserve (the paper's setting)
    max_tokens_param: str = "max_tokens"
    reasoning_effort: str | None = None
    extra_body: dict[str, Any] = field(default_factory=dict)
    max_tokens_by_task: dict[str, int] = field(default_factory=dict)  # a task id or family (niah, cwe) -> its limit

    def __post_init__(self) -> None:
        if self.max_tokens is not None and self.max_tokens < 1:
            raise SettingError("max_tokens", f"must be at least 1 (got {self.max_tokens})")
        for key, value in self.max_tokens_by_task.items():
            if value < 1:
                raise SettingError("max_tokens", f"{key}={value}: a limit must be at least 1")
        if self.temperature is not None and not (0.0 <= self.temperature <= 2.0):
            raise SettingError("temperature", f"must be between 0 and 2 (got {self.temperature})")
        if self.top_p is not None and not (0.0 < self.top_p <= 1.0):
            raise SettingError("top_p", f"must be in (0, 1] (got {self.top_p})")
        if self.max_tokens_param not in MAX_TOKENS_PARAMS:
            raise SettingError("max_tokens_param", f"{self.max_tokens_param!r}: use one of {', '.join(MAX_TOKENS_PARAMS)}")

    def new_tokens(self, reserve: int, task: str | None = None) -> int:
        """The maximum number of new tokens for a row of ``task`` whose budget reserved ``reserve`` tokens: the limit
        given for its task or its family (``cwe=200``), else the one given for every row, else the reserve."""
        if task is not None:
            for key in limit_keys(task):
                if key in self.max_tokens_by_task:
                    return self.max_tokens_by_task[key]
        return self.max_tokens if self.max_tokens is not None else reserve

    def request_kwargs(self, reserve: int, api: str, task: str | None = None) -> dict[str, Any]:
        """Keyword arguments of ``chat.completions.create`` / ``completions.create`` for one row."""
        kwargs: dict[str, Any] = {}
        param = self.max_tokens_param if api == "chat" else "max_tokens"  # /v1/completions knows only max_tokens
        kwargs[param] = self.new_tokens(reserve, task)
        for name in ("temperature", "top_p", "seed"):
            if getattr(self, name) is not None:
                kwargs[name] = getattr(self, name)
        if self.stop:
            kwargs["stop"] = list(self.stop)
        if self.reasoning_effort is not None and api == "chat":
            kwargs["reasoning_effort"] = self.reasoning_effort
        if self.extra_body:
            kwargs["extra_body"] = dict(self.extra_body)
        return kwargs

    def to_meta(self) -> dict[str, Any]:
        """Every parameter, JSON-ready (``max_tokens`` null = the row's reserve; ``max_tokens_by_task`` only when
        given, so that a run resumed from an older meta keeps its settings)."""
        data = asdict(self)
        data["stop"] = list(self.stop)
        if not self.max_tokens_by_task:
            del data["max_tokens_by_task"]
        return data


def max_tokens_limits(text: str | None) -> dict[str, Any]:
    """``--max-tokens``: ``300`` (every row), ``cwe=200`` (a task family such as niah or cwe, or a task id such as
    cwe_hard), or both, comma-separated (``300,cwe=200``), as ``max_tokens`` and ``max_tokens_by_task``."""
    if text is None:
        return {}
    out: dict[str, Any] = {}
    by_task: dict[str, int] = {}
    for item in (part.strip() for part in str(text).split(",")):
        key, _, value = item.rpartition("=")
        try:
            limit = int(value)
        except ValueError:
            limit = 0
        if limit < 1 or (key and key not in FAMILIES and not _is_task(key)):
            raise SettingError("max_tokens", f"{item!r}: give a number of new tokens (300), or TASK=N for a task "
                                             f"family ({', '.join(FAMILIES)}) or a task id (cwe_hard=200), "
                                             f"comma-separated")
        if key:
            by_task[key] = limit
        else:
            out["max_tokens"] = limit
    if by_task:
        out["max_tokens_by_task"] = by_task
    return out


def _is_task(name: str) -> bool:
    try:
        get_task(name)
        return True
    except ValueError:
        return False


def sampling_settings(preset: str | None = None, **given: Any) -> SamplingSettings:
    """The paper's defaults, then the preset's values, then every option given explicitly (not None)."""
    values = preset_values(preset, given)
    if "stop" in values:
        values["stop"] = tuple(values["stop"])
    return replace(SamplingSettings(), **values)


def parse_extra_body(text: str | None) -> dict[str, Any]:
    """``--extra-body`` as a JSON object (e.g. '{"top_k": 1}'); anything else is a clear error."""
    if text is None:
        return {}
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SettingError("extra_body", f"is not valid JSON ({exc.msg}, column {exc.colno}); "
                                         f"give an object such as '{{\"top_k\": 1}}'") from None
    if not isinstance(value, dict):
        raise SettingError("extra_body", f"must be a JSON object such as '{{\"top_k\": 1}}', got {type(value).__name__}")
    return value


def failure_limit(text: str, rows: int) -> int:
    """``--max-failed`` ("10" rows or "1%" of the rows to send) as a number of rows."""
    raw = text.strip()
    try:
        if raw.endswith("%"):
            share = float(raw[:-1])
            if not 0 <= share <= 100:
                raise ValueError
            return math.floor(rows * share / 100)
        count = int(raw)
        if count < 0:
            raise ValueError
        return count
    except ValueError:
        raise SettingError("max_failed", f"{text!r}: give a number of rows (e.g. 10) or a percentage (e.g. 1%)") from None


