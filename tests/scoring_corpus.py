"""The scoring tests' corpus, shared by the scoring package's tests and the Inspect scorer's (tests/inspect_eval):
an independent oracle of the upstream rules, hand-worked categories, and Hypothesis strategies of outputs."""

from __future__ import annotations

import re
import unicodedata

from hypothesis import strategies as st

from builders.scoring import NONE_WORDS

# A literal transcription of the upstream rules quoted in SPEC §5 (with int(), as upstream does).


def _clean(s: str) -> str:
    return s.strip().lower().replace("\u200c", "").replace(" ", "")


def oracle_numbers(output: str, gold: list[str], lang: str) -> bool:
    if not output:
        return False
    out = unicodedata.normalize("NFKC", output)
    if any(w in out or _clean(w) in out for w in NONE_WORDS[lang]):
        return False
    nums = list(dict.fromkeys(n for n in re.findall(r"\d+", out) if len(n) > 1))
    ints = [int(n) for n in nums]
    return len(ints) == len(gold) and set(ints) == {int(g) for g in gold}


def oracle_none(output: str, lang: str) -> bool:
    if not output:
        return False
    c = re.sub(r"\b\d\b", "", _clean(unicodedata.normalize("NFKC", output)))
    return any(_clean(w) in c for w in NONE_WORDS[lang])


def oracle_cwe(output: str, gold: list[str]) -> bool:
    out = output.strip().lower()
    return all(g.strip().lower() in out for g in gold)


WORDS = ["apple", "Bridge", "cat", "door", "eagle", "fire", "grape", "house", "ink", "jam"]

NEEDLES = [{"key": "k1", "value": "1111111", "depth": 0}, {"key": "k2", "value": "2222222", "depth": 33},
           {"key": "k3", "value": "3333333", "depth": 66}, {"key": "k4", "value": "4444444", "depth": 100}]


# Outputs with the category and recall the rules give them, worked out by hand (tests/inspect_eval reuses them).
CATEGORY_CASES = [
    ("mk_niah", ["2222222"], "2222222", "correct", 1.0),
    ("mk_niah", ["2222222"], "3333333", "distractor", 0.0),
    ("mk_niah", ["2222222"], "2222222 3333333", "distractor", 1.0),
    ("mk_niah", ["2222222"], "none", "none_when_present", 0.0),
    ("mk_niah", ["2222222"], "none, 2222222", "none_when_present", 1.0),
    ("mk_niah", ["2222222"], "9999999", "wrong", 0.0),
    ("mk_niah", ["2222222"], "I could not find it.", "no_answer", 0.0),
    ("mk_niah", ["2222222"], "   ", "no_answer", 0.0),
    ("mv_niah", ["1111111", "2222222", "3333333", "4444444"], "1111111 4444444", "partial", 0.5),
    ("mv_niah", ["1111111", "2222222", "3333333", "4444444"], "1111111 2222222 3333333 4444444 5555555",
     "wrong", 1.0),
    ("mq_niah", ["1111111", "2222222"], "2222222", "partial", 0.5),
    ("none_niah", ["none"], "none", "correct", 1.0),
    ("none_niah", ["none"], "4444444", "distractor", 0.0),
    ("none_niah", ["none"], "9999999", "wrong", 0.0),
    ("none_niah", ["none"], "No such number.", "no_answer", 0.0),
]


_pieces = st.one_of(
    st.sampled_from(["4817290", "1111111", "04817290", "12", "7", " ", ", ", "\n", "none", "None", "brak",
                     "Keine vorhanden", "keinevorhanden", "なし", "数字はありません", "хнетх", "४८१७२९०",
                     "４８１７２９０", "۱۱۱۱۱۱۱", "\u200c", "\u00a0", "Ⅻ", "²³", "①", "ﬁ"]),
    st.text(max_size=8),
    st.integers(0, 10**9).map(str),
)
OUTPUTS = st.lists(_pieces, max_size=12).map("".join)
LANGS = st.sampled_from(sorted(NONE_WORDS))
GOLD_SETS = st.sampled_from([["4817290"], ["1111111", "4817290"], ["1111111", "2222222", "3333333", "4817290"]])
