"""RULER's NIAH rows (generate/ruler/niah.py, haystacks.py) read back against RULER's rules (ruler_oracle.py, written
from niah.py): the prompt, needles, keys, values, answers, each haystack, the budget re-tokenised whole."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ProcessPoolExecutor

import pytest
from ruler_oracle import (DEPTHS, NEEDLE_RE, NOISE, essay_context, essay_sentences, prompt_parts, query_join,
                          value_ok)

from builders.generate.rows import RowGenerator
from builders.spec.configs import ConfigSpec, parse_config_name
from builders.spec.families.ruler_niah import TASKS

NAMES = [t.name for t in TASKS]
SAMPLES = 2


@pytest.fixture(scope="module")
def rows(generator):
    """Two rows of every RULER NIAH task at 4096 (text-control)."""
    return {name: [generator.example(ConfigSpec("en", name, 4096), i) for i in range(SAMPLES)] for name in NAMES}


def args_of(ruler_sources, task: str) -> dict:
    return dict(ruler_sources.tasks.setting(task.removeprefix("ruler_")).args)


def context_of(row: dict) -> str:
    s, e = row["context_span"]
    return row["input"][s:e]


@pytest.mark.parametrize("name", NAMES)
def test_prompt_is_rulers_template_and_answer_prefix(rows, name, ruler_sources):
    args = args_of(ruler_sources, name)
    template = ruler_sources.tasks.template(name.removeprefix("ruler_"))
    for row in rows[name]:
        head, tail = prompt_parts(template, args, query_join(row["queries"]))
        s, e = row["context_span"]
        assert row["input"][:s] == head and row["input"][e:] + row["answer_prefix"] == tail
        assert row["answer_prefix"] == tail[tail.rfind(template.answer_prefix[:10]):]  # prepare.py's cut
        assert row["reserve"] == template.tokens_to_generate == 128
        singular = args["num_needle_q"] * args["num_needle_v"] == 1
        assert row["input"].startswith("A special magic" if singular else "Some special magic")


@pytest.mark.parametrize("name", NAMES)
def test_needles_keys_values_queries_and_answers(rows, name, ruler_sources):
    args = args_of(ruler_sources, name)
    lists = ruler_sources.wonderwords
    n_keys = max(args["num_needle_k"], args["num_needle_q"])
    for row in rows[name]:
        found = NEEDLE_RE.findall(context_of(row))
        real = [(k, v) for kind, k, v in found if k in {n["key"] for n in row["needles"]}]
        assert [(n["key"], n["value"]) for n in row["needles"]] == real  # the records, in text order
        assert len(real) == n_keys * args["num_needle_v"] and {kind for kind, _, _ in found} == {args["type_needle_v"]}
        keys = list(dict.fromkeys(k for k, _ in real))
        assert len(keys) == n_keys and len({v for _, v in real}) == len(real)  # distinct keys and values
        assert all(value_ok(args["type_needle_k"], k, lists) and value_ok(args["type_needle_v"], v, lists)
                   for k, v in real)
        assert len(row["queries"]) == args["num_needle_q"] and set(row["queries"]) <= set(keys)
        key_of = {v: k for k, v in real}
        assert Counter(row["answers"]) == Counter(v for q in row["queries"] for k, v in real if k == q)
        assert [key_of[v] for v in row["answers"]] == [q for q in row["queries"] for _ in range(args["num_needle_v"])]


def test_the_needles_of_a_config_keep_one_order(generator):
    """RULER shuffles the needles with random.Random(seed): every row of a config has the same order."""
    orders = set()
    for i in range(4):
        row = generator.example(ConfigSpec("en", "ruler_niah_multivalue", 4096), i)
        text_order = [n["value"] for n in row["needles"]]
        orders.add(tuple(row["answers"].index(v) for v in text_order))  # answers: draw order
    assert len(orders) == 1


def test_noise_haystack(rows):
    for row in rows["ruler_niah_single_1"]:
        lines = context_of(row).split("\n")
        assert Counter(lines)[NOISE] == row["num_units"] == len(lines) - 1 and lines[-1] == NOISE
        (needle,) = row["needles"]
        index = next(i for i, line in enumerate(lines) if line != NOISE)  # noise lines before it
        assert needle["actual_depth"] == pytest.approx(100 * index / row["num_units"])
        assert needle["depth"] == int(100 * index / row["num_units"] + 0.5)


@pytest.mark.parametrize("name", ["ruler_niah_multikey_2", "ruler_niah_multikey_3"])
def test_distractor_haystack(rows, name, ruler_sources):
    args = args_of(ruler_sources, name)
    for row in rows[name]:
        lines = context_of(row).split("\n")
        parsed = [NEEDLE_RE.fullmatch(line) for line in lines]
        assert all(parsed) and len(lines) == row["num_units"] + 1
        real = {n["key"] for n in row["needles"]}
        distractors = [m for m in parsed if m[2] not in real]
        assert len(distractors) == row["num_units"]  # every other line is a distractor, none with a real key
        assert all(value_ok(args["type_needle_k"], m[2], ruler_sources.wonderwords) for m in distractors)
        assert len({m[2] for m in distractors}) > 0.9 * len(distractors)  # fresh keys, not one repeated


@pytest.mark.parametrize("name", [n for n in NAMES if n.endswith(("single_2", "single_3", "multikey_1", "multivalue",
                                                                     "multiquery"))])
def test_essay_haystack_is_rulers_punkt_split_of_the_first_words(rows, name, ruler_sources):
    words, punkt = ruler_sources.essays.words, ruler_sources.sentence_tokenizer
    for row in rows[name]:
        sentences = essay_sentences(words, punkt, row["num_units"])
        needles = [f"One of the special magic {args_of(ruler_sources, name)['type_needle_v']} for {n['key']} is: "
                   f"{n['value']}." for n in row["needles"]]
        depths = [n["depth"] for n in row["needles"]]
        assert set(depths) <= set(DEPTHS) and len(set(depths)) == len(depths)
        assert context_of(row) == essay_context(sentences, needles, depths)
        for n, d in zip(row["needles"], sorted(depths)):
            assert n["actual_depth"] == pytest.approx(100 * int(len(sentences) * (d / 100)) / len(sentences))


def one_more_unit(row: dict, ruler_sources, generator) -> str:
    """The row's prompt with one haystack unit more, by RULER's rules (noise line; essay word) or, for distractor
    needles, the generator's next one; the needles where they are (at the same depths)."""
    name, context = row["task"], context_of(row)
    s, e = row["context_span"]
    if name == "ruler_niah_single_1":
        context = NOISE + "\n" + context
    elif name in ("ruler_niah_multikey_2", "ruler_niah_multikey_3"):
        from builders.generate.ruler.haystacks import make_haystack
        from builders.generate.ruler.niah import draw_niah, frame_of
        from builders.generate.material import RowMaterial

        spec, task = parse_config_name(row["config"], generator.tokenizers.aliases), TASKS[NAMES.index(name)]
        args = args_of(ruler_sources, name)
        material = RowMaterial(generator.sources, generator.tokenizer_for(spec), generator.prepared)
        draw = draw_niah(task, args, material, spec.length, row["index"], row["seed"])
        haystack = make_haystack(args, spec, task, row["index"], row["seed"], draw, frame_of(task, args, material, draw),
                                 material)
        context = haystack.text(haystack.measure(row["num_units"] + 1)[1])
    else:
        needles = NEEDLE_RE.findall(context)
        real = [f"One of the special magic {kind} for {k} is: {v}." for kind, k, v in needles]
        sentences = essay_sentences(ruler_sources.essays.words, ruler_sources.sentence_tokenizer, row["num_units"] + 1)
        context = essay_context(sentences, real, [n["depth"] for n in row["needles"]])
    return row["input"][:s] + context + row["input"][e:] + row["answer_prefix"]


@pytest.mark.parametrize("name", NAMES)
def test_budget_is_filled_to_one_unit(rows, name, ruler_sources, generator, cl100k):
    for row in rows[name]:
        assert row["num_tokens"] == cl100k.count(row["input"] + row["answer_prefix"])
        assert row["num_tokens"] + row["reserve"] <= row["length"] and row["budget"] == row["length"] - 128
        assert cl100k.count(one_more_unit(row, ruler_sources, generator)) > row["budget"]


@pytest.mark.parametrize("name", ["en_ruler_niah_single_2_8192_llama3", "en_ruler_niah_multikey_2_8192_llama3",
                                  "en_ruler_niah_single_1_8192_llama3"])
def test_token_control_with_llama3(name, generator, registry, ruler_sources):
    llama = registry.get("llama3")
    row = generator.example(parse_config_name(name, registry.aliases), 0)
    assert row["tokenizer"] == llama.identity and row["num_tokens"] == llama.count(row["input"] + row["answer_prefix"])
    assert row["num_tokens"] + 128 <= 8192 < llama.count(one_more_unit(row, ruler_sources, generator)) + 128


def _rows_in_subprocess(args):
    name, indices = args
    from builders.sources.store import load_sources

    generator = RowGenerator(load_sources())
    return [generator.example(parse_config_name(name), i) for i in indices]


def test_rows_are_the_same_whatever_the_order_or_process(generator, sources, registry):
    names = ["en_ruler_niah_multikey_3_4096", "en_ruler_vt_4096"]  # no word keys: a process starts in seconds
    here = [generator.example(parse_config_name(n), i) for n in names for i in range(3)]
    with ProcessPoolExecutor(2) as pool:
        parts = list(pool.map(_rows_in_subprocess, [(n, [2, 1, 0]) for n in names]))
    assert here == [r for part in parts for r in reversed(part)]
    essays = [parse_config_name(f"en_{n}_8192") for n in ("ruler_niah_multivalue", "ruler_niah_single_2")]
    fresh = RowGenerator(sources, registry)  # its own prepared split and counts, made in another order
    assert [fresh.example(s, i) for s in reversed(essays) for i in (1, 0)] == [
        generator.example(s, i) for s in reversed(essays) for i in (1, 0)]
    assert generator.example(parse_config_name(names[0]), 0, seed=7)["needles"] != here[0]["needles"]


def test_a_length_ruler_cannot_fill_is_one_line(generator):
    with pytest.raises(Exception) as info:
        generator.example(ConfigSpec("en", "ruler_niah_multikey_3", 200), 0)
    message = str(info.value)
    assert message.startswith("config 'en_ruler_niah_multikey_3_200': 200 tokens cannot hold this task by RULER's "
                              "rules: with its smallest haystack (1 distractor needle) the prompt takes ")
    assert "the shortest length is" in message and "\n" not in message
