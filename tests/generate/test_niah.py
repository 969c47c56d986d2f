"""Position-controlled NIAH rows (docs/generation.md, "Position-controlled configs"): ``_at{D}`` fixed depths
and ``mv{K}[e]_niah`` multi-evidence tasks, on the real books and tokenizers."""

from __future__ import annotations

from fractions import Fraction

import pytest
from test_rows import check_needle_outside_quotations, needle_text

from builders.generate.niah import DEPTHS, draw_niah
from builders.spec.configs import ConfigSpec, parse_config_name
from builders.spec.languages import LANGUAGE_CODES, get_language
from builders.spec.tasks import get_task

SAME_FIELDS = ("task", "context_language", "instruction_language", "length", "tokenizer", "answers", "queries",
               "index", "seed", "reserve", "budget")


def layout(row: dict, book, sources) -> tuple[list[int], int]:
    """Read the context back as book sentences and needles: (sentences before each needle, sentences in all).

    Fails unless the context is exactly the book's first sentences with the needles between them.
    """
    ctx = row["context_language"]
    joiner = get_language(ctx).joiner
    s, e = row["context_span"]
    context = row["input"][s:e]
    needles = [needle_text(n["key"], n["value"], ctx, sources) for n in row["needles"]]
    sentences = book.take(row["num_units"])
    cursor, p, points = 0, 0, []
    while cursor < len(context):
        if cursor:
            assert context.startswith(joiner, cursor)
            cursor += len(joiner)
        if len(points) < len(needles) and context.startswith(needles[len(points)], cursor):
            points.append(p)
            cursor += len(needles[len(points) - 1])
        else:
            assert context.startswith(sentences[p], cursor), (row["id"], context[cursor:cursor + 80])
            cursor += len(sentences[p])
            p += 1
    assert len(points) == len(needles) and p == row["num_units"]
    return points, p


def expected_point(k: int, depth, book) -> int:
    """The nominal boundary floor(k × depth / 100), moved on to the next boundary outside quotations."""
    point = int(Fraction(k) * Fraction(depth) / 100)
    while point < k and not book.is_safe(point):
        point += 1
    return point


@pytest.mark.parametrize("lang", LANGUAGE_CODES)
def test_fixed_depths_in_every_language_at_8k(generator, sources, cl100k, lang):
    book = generator.prepared.book(lang, cl100k)
    standard = generator.example(ConfigSpec(lang, "s_niah", 8_000), 1)
    points, k = layout(standard, book, sources)
    assert standard["needles"][0]["actual_depth"] == 100 * points[0] / k  # where the standard needle landed
    for depth in (0, 50, 100):
        row = generator.example(parse_config_name(f"{lang}_s_niah_8k_at{depth}"), 1)
        (point,), k = layout(row, book, sources)
        assert point == expected_point(k, depth, book) and point == {0: 0, 100: k}.get(depth, point)
        needle = row["needles"][0]
        assert needle["depth"] == depth and needle["actual_depth"] == 100 * point / k
        assert abs(needle["actual_depth"] - depth) < 5  # 8k holds 200-700 sentences; a move is a few
        check_needle_outside_quotations(lang, row["input"][slice(*row["context_span"])],
                                        needle_text(needle["key"], needle["value"], lang, sources))
        # everything but the position is the standard row of the same index
        assert {f: row[f] for f in SAME_FIELDS} == {f: standard[f] for f in SAME_FIELDS}
        assert [(n["key"], n["value"]) for n in row["needles"]] == [(n["key"], n["value"]) for n in standard["needles"]]
        assert abs(row["num_units"] - standard["num_units"]) <= 1
        assert row["num_tokens"] == cl100k.count(row["input"]) and row["num_tokens"] <= row["budget"]
        assert row["id"] == f"{lang}_s_niah_8k_at{depth}/1"


def test_several_needles_at_one_depth_go_consecutively(generator, sources, cl100k):
    book = generator.prepared.book("de", cl100k)
    for task in ("mk_niah", "none_niah", "mq_niah"):
        standard = generator.example(ConfigSpec("de", task, 8_000), 0)
        row = generator.example(parse_config_name(f"de_{task}_8k_at30"), 0)
        points, k = layout(row, book, sources)
        assert len(set(points)) == 1 and points[0] == expected_point(k, 30, book)
        assert [n["value"] for n in row["needles"]] == [n["value"] for n in standard["needles"]]  # drawn order kept
        assert {n["actual_depth"] for n in row["needles"]} == {100 * points[0] / k}
        assert (row["answers"], row["queries"]) == (standard["answers"], standard["queries"])


def test_sixty_four_values_evenly_spaced_at_32k(generator, sources, cl100k):
    spec = parse_config_name("pl_mv64e_niah_32k")
    row = generator.example(spec, 0)
    book = generator.prepared.book("pl", cl100k)
    values = [n["value"] for n in row["needles"]]
    assert len(values) == len(set(values)) == 64 and sorted(row["answers"]) == sorted(values)
    assert len({n["key"] for n in row["needles"]}) == 1 and len(row["queries"]) == 1
    points, k = layout(row, book, sources)
    for j, (needle, point) in enumerate(zip(row["needles"], points)):
        exact = Fraction(100 * (2 * j + 1), 2 * 64)  # 100·(j+0.5)/K
        assert point == expected_point(k, exact, book)
        assert needle["depth"] == int(exact + Fraction(1, 2)) and needle["actual_depth"] == 100 * point / k
    # the budget holds exactly with the larger reserve, tight to one sentence
    assert row["reserve"] == 30 + 9 * 64 == get_task("mv64e_niah").reserve
    assert row["budget"] == 32_000 - row["reserve"]
    assert row["num_tokens"] == cl100k.count(row["input"]) <= row["budget"]
    assert row["budget"] - row["num_tokens"] < book.cost(row["num_units"]) + 3
    # mv64e and mv64 share their draws (values and their order); both draw mv_niah's key and first values
    random = generator.example(parse_config_name("pl_mv64_niah_32k"), 0)
    assert [n["value"] for n in random["needles"]] == values
    mv = generator.example(ConfigSpec("pl", "mv_niah", 32_000), 0)
    assert set(mv["answers"]) < set(row["answers"]) and mv["queries"] == row["queries"]


def test_more_values_than_grid_depths_use_every_depth(sources):
    for k, index in ((40, 0), (50, 1), (256, 2)):
        draw = draw_niah(get_task(f"mv{k}_niah"), 32_000, index, 42, sources.nouns, cross_lingual=False)
        assert list(draw.depths) == sorted(draw.depths) and set(draw.depths) <= set(DEPTHS)
        assert min(draw.depths.count(d) for d in DEPTHS) == k // 40
        assert max(draw.depths.count(d) for d in DEPTHS) == -(-k // 40)
        assert len(set(draw.needle_values)) == k


@pytest.mark.parametrize("name", ["zh_mk_niah_8k_at50_qwen", "ja_mv16e_niah_8k_llama3", "ko-en_s_niah_8k_at100_qwen"])
def test_exact_counts_by_construction_hold_for_new_layouts(generator, registry, sources, name):
    spec = parse_config_name(name, registry.aliases)
    tokenizer = registry.get(spec.alias)
    row = generator.example(spec, 0)
    assert row["num_tokens"] == tokenizer.count(row["input"]) and row["num_tokens"] + row["reserve"] <= row["length"]
    layout(row, generator.prepared.book(spec.context_language, tokenizer), sources)
