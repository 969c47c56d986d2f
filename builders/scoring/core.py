"""The ONERULER metric (SPEC §5): per-example pass/fail, RULER-style recall, NIAH error categories.

Paper mode (the default) reproduces upstream `eval/evaluate.py` exactly; strict mode (opt-in) matches
none words and CWE words as whole tokens (docs/scoring.md). Standard library only and self-contained:
metrics/oneruler/oneruler_scoring.py is a byte-identical copy (sha256-checked) for a Hugging Face Space.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Iterable, Literal, Mapping, Sequence, get_args

NUMBER_TASKS: tuple[str, ...] = ("s_niah", "mk_niah", "mv_niah", "mq_niah", "s_niah_nonone")
NONE_TASKS: tuple[str, ...] = ("none_niah",)
NIAH_TASKS: tuple[str, ...] = NUMBER_TASKS + NONE_TASKS
CWE_TASKS: tuple[str, ...] = ("cwe_easy", "cwe_hard")
TASK_IDS: tuple[str, ...] = NIAH_TASKS + CWE_TASKS
# Multi-evidence variants of mv_niah (Counting-Stars style): K values for one key, ``e`` = evenly spaced.
MULTI_VALUE_TASK = re.compile(r"mv(?P<values>[0-9]+)(?P<even>e?)_niah")

# The none words the paper's scorer accepts, per instruction language (upstream eval/evaluate.py).
NONE_WORDS: dict[str, tuple[str, ...]] = {
    "en": ("none",), "ko": ("없음",), "pl": ("brak",), "zh": ("无",), "vi": ("Không có",),
    "ja": ("なし", "数字はありません"), "ta": ("ஏதுமில்லை",), "hu": ("nincs",), "fr": ("aucun",),
    "no": ("ingen",), "uk": ("немає", "Нема"), "ru": ("нет",), "de": ("Keine vorhanden",),
    "es": ("ninguno",), "sv": ("inga",), "fi": ("ei mikään",), "cs": ("žádné", "žádná"),
    "sr": ("nema",), "pt": ("nenhum",), "it": ("nessuno",), "fa": ("هیچ کدام",), "sw": ("hakuna",),
    "nl": ("geen",), "st": ("ha ho letho",), "hi": ("कोई नहीं",), "da": ("ingen",),
}
CATEGORIES: tuple[str, ...] = ("correct", "none_when_present", "distractor", "partial", "wrong", "no_answer")
TruncationPolicy = Literal["paper", "score", "wrong"]  # finish_reason "length": no response / as written / wrong
TRUNCATION_POLICIES: tuple[str, ...] = get_args(TruncationPolicy)
# paper: null NIAH outputs dropped, null CWE ones wrong (footnote 10); upstream: null and truncated dropped.
MissingPolicy = Literal["paper", "upstream"]
MISSING_POLICIES: tuple[str, ...] = get_args(MissingPolicy)
ScoreStatus = Literal["scored", "no_response", "truncated", "missing"]  # "missing": reports' rows without a line
_ZWNJ = "\u200c"
_THINK_OPEN = re.compile(r"\s*<think>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</think>", re.IGNORECASE)
_ANSWER_BLOCK = re.compile(r"<answer>(.*?)</answer>", re.IGNORECASE | re.DOTALL)
_NUMBER = re.compile(r"\d{2,}")  # the paper's \d+ minus the length-1 runs it drops
_SINGLE_DIGIT = re.compile(r"\b\d\b")
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class ExampleScore:
    """The score of one example: ``passed`` (0/1), ``recall`` (fraction of gold answers found, RULER's partial
    credit), ``category`` (one of CATEGORIES), ``counted`` (in the accuracy's denominator: False only for NIAH
    outputs that are null, or truncated under the paper policy) and ``status`` (null output: "no_response";
    finish_reason "length": "truncated")."""

    passed: bool
    recall: float
    category: str
    counted: bool = True
    status: ScoreStatus = "scored"

    def to_dict(self) -> dict[str, Any]:
        """Plain dict (for JSON)."""
        return {"passed": self.passed, "recall": self.recall, "category": self.category, "counted": self.counted,
                "status": self.status}


def task_kind(task: str) -> str | None:
    """"number", "none" (none_niah) or "cwe" for a standard or ``mv{K}[e]_niah`` task id; None if unknown."""
    if task in NUMBER_TASKS or (isinstance(task, str) and MULTI_VALUE_TASK.fullmatch(task) is not None):
        return "number"
    return "none" if task in NONE_TASKS else "cwe" if task in CWE_TASKS else None


def is_niah(task: str) -> bool:
    """Whether a task is a needle task (under the paper policy a null answer is dropped from its accuracy)."""
    return task_kind(task) in ("number", "none")


def normalize(text: str) -> str:
    """Unicode NFKC, as the paper applies to NIAH outputs."""
    return unicodedata.normalize("NFKC", text)


def clean(text: str) -> str:
    """The paper's clean(): strip, lower-case, delete U+200C and every ASCII space."""
    return text.strip().lower().replace(_ZWNJ, "").replace(" ", "")


def none_words(language: str) -> tuple[str, ...]:
    """The none words the paper accepts for an instruction language."""
    if language not in NONE_WORDS:
        raise ValueError(f"unknown instruction language {language!r}; valid: {', '.join(sorted(NONE_WORDS))}")
    return NONE_WORDS[language]


def as_text(prediction: Any) -> str | None:
    """A prediction as text: None stays None (no response), bytes are decoded, others str()."""
    if prediction is None or isinstance(prediction, str):
        return prediction
    if isinstance(prediction, (bytes, bytearray, memoryview)):
        return bytes(prediction).decode("utf-8", errors="replace")
    return str(prediction)


def split_reasoning(text: str) -> tuple[str | None, str]:
    """(reasoning, answer) of an output: a leading ``<think>…</think>`` block is the reasoning.

    No leading block: (None, text). A block that opens but never closes is all reasoning and
    the answer is "" (the model never answered).
    """
    opened = _THINK_OPEN.match(text)
    if not opened:
        return None, text
    closed = _THINK_CLOSE.search(text, opened.end())
    if not closed:
        return text[opened.end():], ""
    return text[opened.end():closed.start()], text[closed.end():]


def extract_answer(prediction: Any, *, strip_think: bool = True, answer_tag: bool = False) -> str | None:
    """The part of an output the rules score (None stays None: no response).

    strip_think: drop a leading ``<think>…</think>`` block (an unclosed one leaves ""). answer_tag:
    keep only the text inside the last ``<Answer>…</Answer>`` block, case-insensitive ("" if none).
    """
    text = as_text(prediction)
    if text is not None and strip_think:
        text = split_reasoning(text)[1]
    if text is not None and answer_tag:
        blocks = _ANSWER_BLOCK.findall(text)
        text = blocks[-1] if blocks else ""
    return text


def _is_word_char(char: str) -> bool:
    # Python's \w plus combining marks (Devanagari/Tamil vowel signs are marks, not alnum).
    return char.isalnum() or char == "_" or unicodedata.category(char)[0] == "M"


def _token_search(term: tuple[re.Pattern[str], bool, bool], text: str) -> bool:
    """Whether a term from _token_pattern occurs in text as a whole token (no word character around it)."""
    pattern, left, right = term
    pos = 0
    while True:
        match = pattern.search(text, pos)
        if match is None:
            return False
        start, end = match.span()
        if not (left and start > 0 and _is_word_char(text[start - 1])) and not (
            right and end < len(text) and _is_word_char(text[end])
        ):
            return True
        pos = start + 1


def _token_pattern(parts: Sequence[str]) -> tuple[re.Pattern[str], bool, bool]:
    """A (possibly multi-word) term, any whitespace or none between its parts, plus which sides need a boundary."""
    body = r"\s*".join(re.escape(p) for p in parts)
    left, right = _is_word_char(parts[0][0]), _is_word_char(parts[-1][-1])
    # (?!\w) prunes most candidates inside the regex engine; marks are checked in Python.
    return re.compile(body + (r"(?!\w)" if right else "")), left, right


@functools.lru_cache(maxsize=None)
def _strict_none_patterns(language: str) -> tuple[tuple[re.Pattern[str], bool, bool], ...]:
    return tuple(_token_pattern(word.lower().replace(_ZWNJ, "").split()) for word in none_words(language))


def mentions_none(prediction: Any, language: str, strict: bool = False) -> bool:
    """Whether an output contains a none word of the instruction language.

    Paper: `w` or `clean(w)` is a substring of NFKC(output), case-sensitive (so "none" counts
    in English, "None" does not). Strict: NFKC, lower-cased, U+200C removed, then any none word
    as a whole token (no letter, digit, mark or "_" on either side), its words separated by any
    whitespace or none.
    """
    text = as_text(prediction)
    if not text:
        return False
    out = normalize(text)
    if not strict:
        return any(w in out or clean(w) in out for w in none_words(language))
    out = out.lower().replace(_ZWNJ, "")
    return any(_token_search(term, out) for term in _strict_none_patterns(language))


def _digit_key(digits: str) -> str:
    """The integer value of a run of Unicode decimal digits, as canonical ASCII (int() without its size limit)."""
    if not digits.isascii():
        digits = "".join(str(unicodedata.decimal(c)) for c in digits)
    return digits.lstrip("0") or "0"


def _gold_keys(values: Iterable[Any], what: str) -> list[str]:
    keys = []
    for value in values:
        text = str(value).strip()
        if not _DIGITS.fullmatch(text):
            raise ValueError(f"{what} {value!r} is not a number")
        keys.append(_digit_key(text))
    return keys


@functools.lru_cache(maxsize=1)
def _to_ascii_digits() -> dict[int, str]:
    everything = "".join(map(chr, range(0x110000)))
    return {ord(c): str(unicodedata.decimal(c)) for c in re.findall(r"\d", everything) if not c.isascii()}


def _found_values(out: str, keys: Iterable[str]) -> set[str]:
    """Which canonical numbers occur in out as a whole digit run of length >= 2 (any script, leading zeros)."""
    if not out.isascii():
        out = out.translate(_to_ascii_digits())  # 1:1 per character, so positions and runs are kept
    found = set()
    for key in set(keys):
        pos = out.find(key)
        while pos != -1:
            start, end = pos, pos + len(key)
            while start > 0 and out[start - 1] == "0":
                start -= 1
            if (start == 0 or not out[start - 1].isdecimal()) and (end == len(out) or not out[end].isdecimal()):
                if end - start >= 2:
                    found.add(key)
                    break
            pos = out.find(key, pos + 1)
    return found


def values_found(text: str, values: Sequence[Any]) -> list[bool]:
    """Per gold number in ``values``: whether it occurs in NFKC(``text``) as a whole digit run (recall's test)."""
    keys = _gold_keys(values, "gold value")
    found = _found_values(normalize(text), keys) if text else set()
    return [key in found for key in keys]


def _numbers_pass(out: str, gold: Sequence[str]) -> bool:
    seen: set[str] = set()
    for match in _NUMBER.finditer(out):
        seen.add(match.group())
        if len(seen) > len(gold):  # the count can only grow: fail early on huge outputs
            return False
    return len(seen) == len(gold) and {_digit_key(s) for s in seen} == set(gold)


def _needle_values(needles: Iterable[Any] | None) -> list[str]:
    if not needles:
        return []
    values = [n["value"] if isinstance(n, Mapping) else n for n in needles]
    return _gold_keys(values, "needle value")


def _score_numbers(text: str, answers: Sequence[str], language: str, needles, strict: bool):
    gold = _gold_keys(answers, "gold answer")
    if not gold:
        raise ValueError("a NIAH number task needs at least one gold value")
    out = normalize(text)
    none = bool(text) and mentions_none(text, language, strict)
    passed = bool(text) and not none and _numbers_pass(out, gold)
    distractors = set(_needle_values(needles)) - set(gold)
    found = _found_values(out, set(gold) | distractors) if text else set()
    recall = len(found & set(gold)) / len(set(gold))
    if passed:
        category = "correct"
    elif not text.strip():
        category = "no_answer"
    elif none:
        category = "none_when_present"
    elif _NUMBER.search(out) is None:
        category = "no_answer"
    elif found & distractors:
        category = "distractor"
    elif 0 < len(found & set(gold)) < len(set(gold)):
        category = "partial"
    else:
        category = "wrong"
    return passed, recall, category


def _none_niah_pass(text: str, language: str, strict: bool) -> bool:
    if strict:
        return mentions_none(text, language, strict=True)
    cleaned = _SINGLE_DIGIT.sub("", clean(normalize(text)))
    return any(clean(w) in cleaned for w in none_words(language))


def _score_none(text: str, language: str, needles, strict: bool):
    none_words(language)  # validate even for empty outputs
    passed = bool(text) and _none_niah_pass(text, language, strict)
    out = normalize(text)
    if passed:
        category = "correct"
    elif not text.strip():
        category = "no_answer"
    elif _found_values(out, _needle_values(needles)):
        category = "distractor"
    elif _NUMBER.search(out) is None:
        category = "no_answer"
    else:
        category = "wrong"
    return passed, float(passed), category


@functools.lru_cache(maxsize=4096)
def _word_pattern(word: str) -> tuple[re.Pattern[str], bool, bool]:
    return _token_pattern([word])


def _cwe_found(text: str, answers: Sequence[str], strict: bool) -> list[bool]:
    out = text.strip().lower()
    words = [str(a).strip().lower() for a in answers]
    if not strict:
        return [w in out for w in words]
    return [(not w) or _token_search(_word_pattern(w), out) for w in words]


def _score_cwe(text: str, answers: Sequence[str], strict: bool):
    if not answers:
        raise ValueError("a CWE task needs its gold words")
    found = _cwe_found(text, answers, strict)
    passed, hits = all(found), sum(found)
    category = "correct" if passed else "no_answer" if not text.strip() else "partial" if hits else "wrong"
    return passed, hits / len(found), category


def _check_options(task: str, instruction_language: str | None, truncation: str, missing_policy: str) -> None:
    if task_kind(task) is None:
        raise ValueError(f"unknown task {task!r}; valid: {', '.join(TASK_IDS)}, mv{{K}}_niah, mv{{K}}e_niah")
    if truncation not in TRUNCATION_POLICIES:
        raise ValueError(f"unknown truncation policy {truncation!r}; valid: {', '.join(TRUNCATION_POLICIES)}")
    if missing_policy not in MISSING_POLICIES:
        raise ValueError(f"unknown missing policy {missing_policy!r}; valid: {', '.join(MISSING_POLICIES)}")
    if is_niah(task):
        none_words(instruction_language)  # type: ignore[arg-type]


def _unscored(task: str, is_null: bool, truncation: TruncationPolicy, missing_policy: MissingPolicy) -> ExampleScore:
    """The score of a null or length-truncated output that is not scored as text."""
    dropped = missing_policy == "upstream" or (is_niah(task) and (is_null or truncation == "paper"))
    return ExampleScore(False, 0.0, "no_answer", counted=not dropped, status="no_response" if is_null else "truncated")


def score_example(
    prediction: Any,
    answers: Sequence[str],
    task: str,
    instruction_language: str | None = None,
    *,
    needles: Iterable[Any] | None = None,
    strict: bool = False,
    finish_reason: str | None = None,
    truncation: TruncationPolicy = "paper",
    missing_policy: MissingPolicy = "paper",
    strip_think: bool = True,
    answer_tag: bool = False,
) -> ExampleScore:
    """Score one output against a row's gold `answers` for `task`.

    `instruction_language` is required for NIAH tasks (it selects the none words). `needles`
    (the row's list of {key, value, depth}, or just the values) enables the `distractor`
    category; without it distractors are reported as `wrong`/`partial`. A None prediction is
    "no response": under `missing_policy="paper"` left out of the accuracy for NIAH and counted wrong for
    CWE; under `missing_policy="upstream"` left out for every task, as are length-truncated outputs.
    Otherwise, when `finish_reason == "length"`, `truncation` decides: "paper" treats the output
    as no response, "wrong" counts it wrong for every task, "score" scores the text like any other.
    The text scored is `extract_answer(prediction, strip_think=..., answer_tag=...)`.
    """
    _check_options(task, instruction_language, truncation, missing_policy)
    text = as_text(prediction)
    truncated = finish_reason == "length"
    if text is None or (truncated and (missing_policy == "upstream" or truncation != "score")):
        return _unscored(task, text is None, truncation, missing_policy)
    text = extract_answer(text, strip_think=strip_think, answer_tag=answer_tag)
    kind = task_kind(task)
    if kind == "number":
        passed, recall, category = _score_numbers(text, answers, instruction_language, needles, strict)
    elif kind == "none":
        passed, recall, category = _score_none(text, instruction_language, needles, strict)
    else:
        passed, recall, category = _score_cwe(text, answers, strict)
    return ExampleScore(passed, recall, category, status="truncated" if truncated else "scored")


def summarize(scores: Iterable[ExampleScore]) -> dict[str, Any]:
    """Aggregate: accuracy = passed / counted (None when nothing is counted), mean recall, counts."""
    total = counted = passed = no_response = truncated = 0
    recall = 0.0
    categories = dict.fromkeys(CATEGORIES, 0)
    for score in scores:
        total += 1
        no_response += score.status == "no_response"
        truncated += score.status == "truncated"
        if score.counted:
            counted += 1
            passed += score.passed
            recall += score.recall
            categories[score.category] += 1
    return {"accuracy": passed / counted if counted else None, "recall": recall / counted if counted else None,
            "passed": passed, "counted": counted, "dropped": total - counted, "total": total,
            "no_response": no_response, "truncated": truncated, "categories": categories}
