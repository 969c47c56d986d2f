"""RULER's variable-tracking rows (generate/ruler/vt.py) read back against RULER's rules (variable_tracking.py):
the in-context example, the chain's statements, the noise lines, the answer prefix, the budget re-tokenised whole."""

from __future__ import annotations

import re
from collections import Counter

import pytest
from ruler_oracle import NOISE

from builders.generate.budget import BudgetError
from builders.spec.configs import ConfigSpec, parse_config_name

FIRST = re.compile(r"VAR ([A-Z]{%d}) = ([0-9]{5})")
NEXT = re.compile(r"VAR ([A-Z]{%d}) = VAR ([A-Z]{%d}) ")


@pytest.fixture(scope="module")
def rows(generator):
    return [generator.example(ConfigSpec("en", "ruler_vt", 4096), i) for i in range(3)]


def chain_of(lines: list[str], letters: int) -> tuple[list[str], str, list[str]]:
    """(the chain's variables in order, its value, the noise lines) of a context's lines, checked to be RULER's
    statements: ``VAR A = NNNNN`` first, then each ``VAR B = VAR A `` (trailing space) naming the one before."""
    first, nxt = re.compile(FIRST.pattern % letters), re.compile(NEXT.pattern % (letters, letters))
    statements = [line for line in lines if line != NOISE]
    head = first.fullmatch(statements[0])
    names, value = [head[1]], head[2]
    for line in statements[1:]:
        m = nxt.fullmatch(line)
        assert m and m[2] == names[-1], line
        names.append(m[1])
    return names, value, [line for line in lines if line == NOISE]


def parts(row: dict, template) -> tuple[str, str]:
    """(the in-context example, the task's prompt): RULER puts the example, then a newline, before the prompt."""
    start = row["input"].rfind(template.template.split("{context}")[0])
    assert row["input"][start - 1] == "\n"
    return row["input"][:start - 1], row["input"][start:]


def test_statements_noise_answers_and_answer_prefix(rows, ruler_sources):
    template = ruler_sources.tasks.template("vt")
    args = ruler_sources.tasks.setting("vt").args
    for row in rows:
        s, e = row["context_span"]
        context = row["input"][s:e]
        names, value, noise = chain_of(context.split("\n"), 5)
        assert len(names) == args["num_hops"] + 1 == len(set(names)) and 10000 <= int(value) <= 99998
        assert row["answers"] == names and row["queries"] == [value] and len(noise) == row["num_units"]
        assert ". \n" not in context
        _, prompt = parts(row, template)
        head, tail = (template.template + template.answer_prefix).split("{context}")
        assert prompt == head + context + tail.format(query=value, num_v=5)[:-len(row["answer_prefix"])]
        assert row["answer_prefix"] == template.answer_prefix.format(query=value, num_v=5)
        assert [(n["key"], n["value"]) for n in row["needles"]] == [(value, names[0])] + [
            (f"VAR {a}", b) for a, b in zip(names, names[1:])]
        lines = context.split("\n")
        for n in row["needles"]:
            before = lines.index(next(line for line in lines if line.startswith(f"VAR {n['value']} ")))
            before -= sum(1 for line in lines[:before] if line != NOISE)
            assert n["actual_depth"] == pytest.approx(100 * before / row["num_units"])


def test_in_context_example_is_rulers_with_fresh_names_per_row(rows, ruler_sources):
    template = ruler_sources.tasks.template("vt")
    examples = []
    for row in rows:
        example, _ = parts(row, template)
        assert example.endswith("\n")  # RULER's example: prompt + " " + answer + "\n", then "\n" before the task
        body = example[:-1]
        lines = body.split("\n")
        names, value, noise = chain_of([line for line in lines if line == NOISE or line.startswith("VAR ")], 3)
        assert body.endswith(f"they are:  {' '.join(names)}")  # the answer prefix's space, then " " + answer
        assert len(set(names)) == 5 and "VAR" not in names and 10000 <= int(value) <= 99998
        assert f"assigned the value {value} in the text above. Answer: According" in body
        assert "12345" not in body or value == "12345"
        examples.append((tuple(names), value, len(noise), tuple(line == NOISE for line in lines)))
    assert len({e[2:] for e in examples}) == 1  # one example per config: same lines, renamed per row
    assert len({e[:2] for e in examples}) == len(examples)


def test_the_example_fits_500_tokens_before_it_is_renamed(generator, cl100k):
    from builders.generate.material import RowMaterial
    from builders.generate.ruler.vt import in_context_example

    from builders.spec.tasks import get_task

    spec = ConfigSpec("en", "ruler_vt", 8192)
    setting = generator.sources.ruler.tasks.setting("vt")
    material = RowMaterial(generator.sources, cl100k, generator.prepared)
    example = in_context_example(spec, get_task("ruler_vt"), dict(setting.args), 42, material)
    prompt = example.text[:-1].rpartition(" ")[0]  # without its answer
    assert "12345" in prompt and cl100k.count(prompt) <= 500
    assert cl100k.count(prompt.replace("\n", f"\n{NOISE}\n", 1)) > 500  # one noise line more does not fit


def test_budget_is_filled_to_one_noise_line(rows, cl100k):
    for row in rows:
        assert row["num_tokens"] == cl100k.count(row["input"] + row["answer_prefix"])
        assert row["num_tokens"] + 30 <= 4096 == row["budget"] + row["reserve"]
        s, e = row["context_span"]
        more = row["input"][:s] + NOISE + "\n" + row["input"][s:] + row["answer_prefix"]
        assert cl100k.count(more) + 30 > 4096


def test_token_control_with_llama3(generator, registry):
    llama = registry.get("llama3")
    row = generator.example(parse_config_name("en_ruler_vt_8192_llama3", registry.aliases), 1)
    assert row["num_tokens"] == llama.count(row["input"] + row["answer_prefix"]) <= 8192 - 30
    s = row["context_span"][0]
    assert llama.count(row["input"][:s] + NOISE + "\n" + row["input"][s:] + row["answer_prefix"]) > 8192 - 30
    assert Counter(row["input"][slice(*row["context_span"])].split("\n"))[NOISE] == row["num_units"]


def test_rows_are_pure_functions_of_their_index(generator, rows):
    assert [generator.example(ConfigSpec("en", "ruler_vt", 4096), i) for i in (2, 0)] == [rows[2], rows[0]]


def test_refusals_are_one_line(generator):
    with pytest.raises(BudgetError, match=r"^config 'en_ruler_vt_700': 700 tokens cannot hold this task by RULER's "
                                          r"rules: with its smallest haystack \(5 noise lines\) the prompt takes "
                                          r"[0-9]+ tokens and the answer 30; the shortest length is [0-9]+$"):
        generator.example(ConfigSpec("en", "ruler_vt", 700), 0)
