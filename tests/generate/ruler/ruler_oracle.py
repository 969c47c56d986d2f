"""RULER's rules written again from its scripts (``niah.py``, ``variable_tracking.py``, ``prepare.py`` of the pinned
mirror), independently of ``builders/generate/ruler/``: the tests of this folder read rows back with these."""

from __future__ import annotations

import re

import numpy as np

NOISE = "The grass is green. The sky is blue. The sun is yellow. Here we go. There and back again."
NEEDLE_RE = re.compile(r"One of the special magic (numbers|uuids|words) for ([^\n]+?) is: (\S+)\.")  # keys may hold spaces (ad hoc-…)
DEPTHS = [int(d) for d in np.round(np.linspace(0, 100, num=40, endpoint=True)).astype(int)]
UUID_RE = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")
KINDS = {"numbers": re.compile(r"[1-9][0-9]{6}"), "uuids": UUID_RE}


def prompt_parts(template, args: dict, query: str) -> tuple[str, str]:
    """(text before the context, text after it, answer prefix included) of a NIAH prompt: prepare.py's
    ``template + answer_prefix``, niah.py's singular rewrite, ``str.format``."""
    text = template.template + template.answer_prefix
    kind = args["type_needle_v"]
    if args["num_needle_q"] * args["num_needle_v"] == 1:
        for old, new in (("Some", "A"), ("are all", "is"), ("are", "is"), ("answers", "answer")):
            text = text.replace(old, new)
        kind = kind[:-1]
    head, tail = text.split("{context}")
    return head.format(type_needle_v=kind, query=query), tail.format(type_needle_v=kind, query=query)


def query_join(queries: list[str]) -> str:
    """niah.py's ``', '.join(queries[:-1]) + ', and ' + queries[-1]``."""
    return ", ".join(queries[:-1]) + ", and " + queries[-1] if len(queries) > 1 else queries[0]


def essay_sentences(words, punkt, n: int) -> list[str]:
    """niah.py: the first n words (repeated past the end), joined by spaces, ``sent_tokenize(text.strip())``."""
    repeats = (n + len(words) - 1) // len(words)
    return punkt.tokenize(" ".join((list(words) * repeats)[:n]).strip())


def essay_context(sentences: list[str], needles: list[str], depths: list[int]) -> str:
    """niah.py's essay context: needle j before sentence ``int(len * depth / 100)`` of the sorted depths."""
    points = [0] + sorted(int(len(sentences) * (d / 100)) for d in depths) + [len(sentences)]
    parts = []
    for i in range(1, len(points)):
        parts.append(" ".join(sentences[points[i - 1]:points[i]]))
        if i - 1 < len(needles):
            parts.append(needles[i - 1])
    return " ".join(parts)


def is_word_key(key: str, lists) -> bool:
    """Whether a key is one of RULER's ``f"{adj}-{noun}"`` (adjectives and nouns may hold hyphens themselves)."""
    adjectives, nouns = set(lists.adjectives), set(lists.nouns)
    return any(key[:i] in adjectives and key[i + 1:] in nouns for i, c in enumerate(key) if c == "-")


def value_ok(kind: str, value: str, lists) -> bool:
    """A key or value of RULER's kind."""
    return is_word_key(value, lists) if kind == "words" else bool(KINDS[kind].fullmatch(value))
