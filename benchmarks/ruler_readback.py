"""RULER's rows and ours read back from their text alone by RULER's rules (``ruler_fidelity.py``'s readers): per
task the prompt frame, needle formats and kinds, answers, the haystack (noise lines, distractor needles, the essays as
RULER splits them), VT's statements and example, CWE's and FWE's counts, QA's documents, and each row's fill."""

from __future__ import annotations

import bisect
import re
from collections import Counter
from itertools import accumulate

import numpy as np
import scipy.special
import tiktoken
from ruler_reference import ruler_scripts

from builders.generate.niah import DEPTHS
from builders.generate.ruler.frame import ruler_frame
from builders.sources.ruler.instructions import singular
from builders.sources.ruler.store import RulerSources
from builders.sources.ruler.texts import noise_line

NIAH = ("niah_single_1", "niah_single_2", "niah_single_3", "niah_multikey_1", "niah_multikey_2", "niah_multikey_3",
        "niah_multivalue", "niah_multiquery")
HERE = (*NIAH, "vt", "cwe", "fwe", "qa_1")  # qa_2 needs HotpotQA, which is not on this machine
RESERVE = {**{t: 128 for t in NIAH}, "vt": 30, "cwe": 120, "fwe": 50, "qa_1": 32}
ENC = tiktoken.get_encoding("cl100k_base")
# RULER's noise line, read from its niah.py in the mirror (variable_tracking.py has the same line at the pinned commit)
NOISE = noise_line((ruler_scripts() / "data" / "synthetic" / "niah.py").read_bytes(), "niah.py")
NEEDLE_RE = re.compile(r"One of the special magic (numbers|uuids|words) for ([^\n]+?) is: (\S+)\.")
SPLIT_RE = re.compile(f" ?{NEEDLE_RE.pattern} ?")
KINDS = {"numbers": re.compile(r"[1-9][0-9]{6}"),
         "uuids": re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}")}


class Reader:
    """What reading a row back needs: RULER's settings and templates, wonderwords, the essays and our split of them."""

    def __init__(self, ruler: RulerSources):
        from builders.generate.ruler.essay import EssaySplit

        self.ruler = ruler
        self.adjectives, self.nouns = set(ruler.wonderwords.adjectives), set(ruler.wonderwords.nouns)
        self.cwe_words = set(ruler.cwe_words.words)
        self.words = ruler.essays.words
        self.chars = [0, *accumulate(len(w) for w in self.words)]
        self.split = EssaySplit(self.words, ruler.sentence_tokenizer)

    def kind_ok(self, kind: str, value: str) -> bool:
        if kind != "words":
            return bool(KINDS[kind].fullmatch(value))
        return any(value[:i] in self.adjectives and value[i + 1:] in self.nouns for i, c in enumerate(value) if c == "-")

    def essay_words(self, letters: int) -> int | None:
        """The N whose first N essay words (repeated past the end) hold ``letters`` non-space characters."""
        full, rest = divmod(letters, self.chars[-1])
        i = bisect.bisect_left(self.chars, rest)
        return full * len(self.words) + i if i < len(self.chars) and self.chars[i] == rest else None


def niah_facts(row: dict, args: dict, template, reader: Reader) -> dict:
    text, prefix = row["input"], row["answer_prefix"]
    head_end, tail_start = text.index("\n") + 1, text.rindex("\nWhat ")
    head, context, tail = text[:head_end], text[head_end:tail_start], text[tail_start:]
    query = re.search(r"for (.+) mentioned in the provided text\?$", tail)[1]
    one = args["num_needle_q"] * args["num_needle_v"] == 1
    kind = args["type_needle_v"][:-1] if one else args["type_needle_v"]
    rewrite = (lambda t: singular(t, reader.ruler.tasks.singular)) if one else None  # niah.py's, read from it
    frame = ruler_frame(template, {"type_needle_v": kind, "query": query}, rewrite)
    needles = NEEDLE_RE.findall(context)
    first, _, last = query.rpartition(", and ")
    queries = [*first.split(", "), last] if first else [query]
    real = [(k, v) for _, k, v in needles if args["type_haystack"] != "needle" or k in queries]
    facts = {"frame": (frame.head, frame.tail, frame.answer_prefix) == (head, tail, prefix),
             "needle_kinds": all(reader.kind_ok(args["type_needle_k"], k) and reader.kind_ok(args["type_needle_v"], v)
                                 for _, k, v in needles),
             "answers": sorted(row["outputs"]) == sorted(v for k, v in real if k in queries),
             "real_needles": len(real) == max(args["num_needle_k"], args["num_needle_q"]) * args["num_needle_v"]}
    lines = context.split("\n")
    if args["type_haystack"] == "noise":
        facts |= {"units": sum(line == NOISE for line in lines),
                  "lines_ok": all(line == NOISE or NEEDLE_RE.fullmatch(line) for line in lines)}
    elif args["type_haystack"] == "needle":
        matches = [NEEDLE_RE.fullmatch(line) for line in lines]
        facts |= {"units": len(lines) - 1, "lines_ok": all(matches),
                  "no_distractor_with_real_key": sum(1 for m in matches if m and m[2] in queries) == 1}
    else:
        facts |= essay_facts(context, len(needles), reader)
    return facts


def needle_places(segments: list[str], sentences: list[str]) -> list[int] | None:
    """Sentences before each needle, reading the text between needles as runs of ``sentences`` (None: it is not)."""
    places, pos = [], 0
    for segment in segments[:-1]:
        if segment:
            q, length = pos, -1
            while length < len(segment) and q < len(sentences):
                length, q = length + len(sentences[q]) + 1, q + 1
            if " ".join(sentences[pos:q]) != segment:
                return None
            pos = q
        places.append(pos)
    return places


def essay_facts(context: str, n_needles: int, reader: Reader) -> dict:
    segments = SPLIT_RE.split(context)[::4]  # the text between needles (the regex's three groups come in between)
    haystack = " ".join(s for s in segments if s)
    n = reader.essay_words(len("".join(haystack.split())))
    if n is None:
        return {"units": None, "essay_identical": False, "depth_rule": False}
    sentences = reader.split.sentence_list(n)
    places = needle_places(segments, sentences)
    allowed = {int(len(sentences) * (d / 100)) for d in DEPTHS}
    return {"units": n, "essay_identical": haystack == " ".join(sentences),
            "depth_rule": places is not None and len(places) == n_needles and set(places) <= allowed}


def vt_facts(row: dict, template) -> dict:
    text = row["input"]
    head = template.template.split("{context}")[0]
    start = text.rindex(head)
    example, task = text[:start - 1], text[start:]
    ex_lines, lines = example.split("\n"), task[len(head):].split("\n")
    statement = r"VAR [A-Z]{%d} = (?:[0-9]{5}|VAR [A-Z]{%d} )"
    return {"units": sum(line == NOISE for line in lines),
            "example_statements": sum(bool(re.fullmatch(statement % (3, 3), line)) for line in ex_lines) == 5,
            "example_answer": bool(re.search(r"they are:  [A-Z]{3}( [A-Z]{3}){4}$", example.rstrip("\n"))),
            "statements": sum(bool(re.fullmatch(statement % (5, 5), line)) for line in lines) == 5,
            "answers": len(row["outputs"]) == 5 and all(f"VAR {a} " in task for a in row["outputs"])}


def numbered(text: str) -> list[str]:
    parts = re.split(r"(?:^| )(\d+)\. ", text)
    return parts[2::2] if [int(n) for n in parts[1::2]] == list(range(1, len(parts) // 2 + 1)) else []


def cwe_facts(row: dict, reader: Reader) -> dict:
    lines = row["input"].split("\n")
    example, task = numbered(lines[1]), numbered(lines[4])
    ex, tk = Counter(example), Counter(task)
    top = [w for w, _ in tk.most_common(10)]
    long_form = row["length"] >= 4096
    return {"units": len(task),
            "example_counts": sorted(set(ex.values())) == ([3, 10] if long_form else [1, 3]),
            "counts": sorted(set(tk.values())) == ([3, 30] if long_form else [1, 6]),
            "answers": sorted(top) == sorted(row["outputs"]) and all(tk[w] > tk[top[-1]] - 1 for w in row["outputs"]),
            "wonderwords": set(tk) <= reader.cwe_words and set(ex) <= reader.cwe_words}


def fwe_facts(row: dict) -> dict:
    words = row["input"].split("coded words. ", 1)[1].split("\nQuestion:", 1)[0].split(" ")
    counts = Counter(words)
    ranked = [w for w, _ in counts.most_common()]
    vocab = (row["length"] - RESERVE["fwe"]) // 50
    seen = sorted(counts.values(), reverse=True)
    k = np.arange(1, vocab + 1)
    zeta = [n for n in range(sum(seen), 2 * sum(seen) + vocab)
            if (n * (k ** -2.0) / scipy.special.zeta(2.0)).astype(int).tolist() == seen + [0] * (vocab - len(seen))]
    return {"units": len(words), "zeta_counts": bool(zeta), "noise_first": ranked[0] == "...",
            "answers": ranked[1:4] == list(row["outputs"])}


def qa_facts(row: dict, gold: str) -> dict:
    context = row["input"].split("The following are given documents.\n\n", 1)[1].rsplit("\n\nAnswer the question", 1)[0]
    blocks = re.split(r"(?:^|\n\n)Document (\d+):\n", context)
    numbers, documents = [int(n) for n in blocks[1::2]], blocks[2::2]
    places = [i for i, d in enumerate(documents) if d == gold]
    return {"units": len(documents), "numbered": numbers == list(range(1, len(documents) + 1)),
            "gold_once": len(places) == 1, "gold_depth": round(100 * places[0] / len(documents)) if places else None}


def facts_of(task: str, rows: list[dict], reader: Reader) -> list[dict]:
    """Per row: the task's facts and the fill, from the text alone (RULER's rows and ours alike)."""
    template = reader.ruler.tasks.template(task)
    out = []
    for i, row in enumerate(rows):
        if task.startswith("niah"):
            facts = niah_facts(row, dict(reader.ruler.tasks.setting(task).args), template, reader)
        elif task == "vt":
            facts = vt_facts(row, template)
        elif task == "cwe":
            facts = cwe_facts(row, reader)
        elif task == "fwe":
            facts = fwe_facts(row)
        else:
            squad = reader.ruler.squad
            facts = qa_facts(row, squad.documents[squad.questions[i].context[0]])
        fill = (len(ENC.encode_ordinary(row["input"] + row["answer_prefix"])) + RESERVE[task]) / row["length"]
        out.append({**facts, "fill": fill})
    return out
