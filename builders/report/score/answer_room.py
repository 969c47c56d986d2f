"""The answers that cannot fit: rows whose gold answer alone takes more tokens than the run allowed (``answer_room``).

The paper's limit is the row's reserve (30 new tokens NIAH, 50 CWE), and a correct CWE answer (the
ten words, ``", "``-joined) is longer than 50 tokens in about half of the 8k CWE rows of several
languages under cl100k (ta, hi, sr: 93–161 tokens; docs/running.md, "Max new tokens"): such a row
cannot be answered right, whatever the model. ``score`` counts them per config against the limit
the run used (its meta's ``max_tokens_by_task`` for the row's task id or task family, else ``max_tokens``,
else the row's reserve, as ``run`` sent it), in the tokens of the tokenizer the run counted prompts
with when its meta names a tiktoken encoding, else cl100k_base, and says which. The counts go into
scores.json (``answer_room`` and each config's ``over_limit``), scores.csv, the console and the Hub
notes, as the ceiling they put on the accuracy.

Only rows that pass or fail whole are counted: a row of a task whose scoring rule is graded (RULER's
``string_match_all``/``string_match_part``, which score a length-cut answer as written and give partial
credit) can still earn part of its score with an answer cut at the limit, so a long gold answer puts no
ceiling there; such rows are left out of ``answer_room`` (no task family of this version uses those rules).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...base.errors import one_line
from ...scoring import get_rule
from ...spec.run_meta import RunMeta
from ...spec.tasks import get_task, limit_keys

DEFAULT_ENCODING = "cl100k_base"
ANSWER_SEPARATOR = ", "  # the shortest correct answer: the gold answers joined, no framing


def pass_fail(task: str) -> bool:
    """Whether a row of ``task`` passes or fails whole (its rule is not graded), so that a gold answer longer than the
    limit caps its score at 0; an id this version does not know is taken as pass/fail, as the paper's tasks are."""
    try:
        return not get_rule(get_task(task).scoring_rule).graded
    except ValueError:
        return True


def row_limit(row: dict, sampling: dict[str, Any] | None) -> int:
    """The new tokens the run allowed the row: a limit for its task id or its family (``--max-tokens cwe=200``), else
    one for all, else its reserve."""
    sampling = sampling or {}
    by_task = sampling.get("max_tokens_by_task") or {}
    for key in limit_keys(row["task"]):
        if isinstance(by_task.get(key), int):
            return by_task[key]
    given = sampling.get("max_tokens")
    return given if isinstance(given, int) and not isinstance(given, bool) else int(row["reserve"])


def run_encoding(meta: RunMeta | None) -> str | None:
    """The tiktoken encoding the run counted prompts with (``--tokenizer cl100k_base``), when its meta says so."""
    for session in reversed(meta.runs if meta is not None else ()):
        said = (session.prompt_count or "").split()
        if len(said) > 1 and said[0] == "tokenizer":
            return said[1]
    return None


def encoding_of(meta: RunMeta | None) -> tuple[Any, str]:
    """(a tiktoken encoding, its name): the run's when it is one, else cl100k_base (tiktoken keeps each encoding once
    loaded, so loading it ahead, in the background, makes this call instant)."""
    import tiktoken

    name = run_encoding(meta)
    try:
        return tiktoken.get_encoding(name), name
    except (ValueError, KeyError, TypeError):
        return tiktoken.get_encoding(DEFAULT_ENCODING), DEFAULT_ENCODING


@dataclass
class AnswerRoom:
    """Per config: rows whose gold answer exceeds the limit, of its rows with a gold answer; in which tokenizer."""

    tokenizer: str
    over: dict[str, int] = field(default_factory=dict)
    rows: dict[str, int] = field(default_factory=dict)
    limits: dict[str, list[int]] = field(default_factory=dict)  # config -> the limits its rows had (min, max)
    unavailable: str | None = None  # why nothing was counted (no tokenizer here)

    def to_json(self) -> dict[str, Any]:
        """scores.json's ``answer_room``."""
        out = {"tokenizer": None if self.unavailable else self.tokenizer, "rule": "rows whose gold answers, joined by "
               "', ', take more tokens than the run's limit of new tokens", "over_limit": dict(sorted(self.over.items())),
               "limits": dict(sorted(self.limits.items()))}
        return {**out, "not_counted": self.unavailable} if self.unavailable else out


def answer_room(rows: dict[str, dict], meta: RunMeta | None) -> AnswerRoom:
    """Count, per config, the rows of ``rows`` (id -> dataset row) whose gold answer cannot fit the run's limit."""
    sampling = meta.sampling if meta is not None else None
    room = AnswerRoom(DEFAULT_ENCODING)
    long: list[tuple[str, str, int]] = []
    whole = {task: pass_fail(task) for task in {row["task"] for row in rows.values()}}
    for row in rows.values():
        if not whole[row["task"]]:
            continue
        config, limit = row["config"], row_limit(row, sampling)
        text = ANSWER_SEPARATOR.join(str(a) for a in row["answers"])
        room.rows[config] = room.rows.get(config, 0) + 1
        room.over.setdefault(config, 0)
        low, high = room.limits.get(config, [limit, limit])
        room.limits[config] = [min(low, limit), max(high, limit)]
        if len(text.encode("utf-8")) > limit:  # a token is at least one byte: shorter texts always fit
            long.append((config, text, limit))
    if not long:
        return room
    try:
        encoding, room.tokenizer = encoding_of(meta)
    except Exception as exc:  # noqa: BLE001 - no tokenizer file and no network: the room is not counted, and said
        room.unavailable = f"{DEFAULT_ENCODING} could not be loaded ({one_line(exc)})"
        room.over = {}
        return room
    counts = encoding.encode_ordinary_batch([text for _, text, _ in long])
    for (config, _, limit), tokens in zip(long, counts):
        room.over[config] += len(tokens) > limit
    return room


def room_of(extra: dict[str, Any]) -> dict[str, Any] | None:
    """scores.json's ``answer_room`` as a report carries it (None: scored before it was counted)."""
    found = extra.get("answer_room")
    return found if isinstance(found, dict) else None
