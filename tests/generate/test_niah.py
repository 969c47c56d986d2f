"""Position-controlled NIAH rows (docs/generation.md, "Position-controlled configs" and "Depth in tokens"):
``_at{D}`` fixed depths and ``mv{K}[e]_niah`` multi-evidence tasks, on the real books and tokenizers."""

from __future__ import annotations

import functools
from fractions import Fraction

import pytest
from test_rows import check_needle_outside_quotations, check_token_depths, needle_text

from builders.generate.niah import DEPTHS, draw_niah
from builders.generate.rows import RowGenerator
from builders.spec.configs import ConfigSpec, parse_config_name
from builders.spec.languages import LANGUAGE_CODES
from builders.spec.tasks import get_task

SAME_FIELDS = ("task", "context_language", "instruction_language", "length", "tokenizer", "answers", "queries",
               "index", "seed", "reserve", "budget")


def even(k: int) -> list[Fraction]:
    """Counting-Stars' spacing, written out here: value j of k at 100 × (j + 0.5) / k percent."""
    return [Fraction(100 * (2 * j + 1), 2 * k) for j in range(k)]


def placement_slack(total: int) -> float:
    """Tokens by which two boundaries' distances to a depth may differ and still count as a tie: the builder
    measures positions with each sentence tokenised alone (with its joiner), this test with the haystack
    tokenised whole; the two differ by at most a token at the first sentence, and in zh/ja by the tokens
    merged across joins (under 0.2 % of a haystack)."""
    return 2 + 0.003 * total


def check_token_placement(row: dict, named: list, book, sources, tokenizer) -> list[int]:
    """Each needle's token depth is recomputed from the text (``check_token_depths``), and the needle sits at
    the boundary nearest its named depth in the haystack's tokens or was moved by the quotation rule: every
    boundary nearer that depth lies inside a quotation. Without a move the needle is within the width of the
    sentence its named depth falls in. Returns the needles' boundaries."""
    points, k, tokens = check_token_depths(row, book, sources, tokenizer)
    total, context = tokens(k), row["input"][slice(*row["context_span"])]
    slack = placement_slack(total)
    for needle, point, depth in zip(row["needles"], points, named, strict=True):
        target = Fraction(depth) * total / 100
        after = point  # the first boundary with at least ``target`` tokens before it, walking from the needle
        while after > 0 and tokens(after - 1) >= target:
            after -= 1
        while after < k and tokens(after) < target:
            after += 1
        near = after - 1 if after and target - tokens(after - 1) <= tokens(after) - target else after
        far = abs(tokens(point) - target)
        nearer = set()  # the boundaries nearer the depth than the needle: an interval around ``near``
        for step in (-1, 1):
            b = near
            while 0 <= b <= k and b != point and abs(tokens(b) - target) < far:
                nearer.add(b)
                b += step
        for b in nearer:  # a nearer boundary outside quotations may only be a tie within the slack
            assert (b < k and not book.is_safe(b)) or abs(tokens(b) - target) >= far - slack, (row["id"], depth, b)
        if not any(b < k and not book.is_safe(b) for b in nearer):  # not moved by the quotation rule
            width = tokens(after) - tokens(max(after - 1, 0))
            assert abs(needle["token_depth"] - depth) <= 100 * (width + (point != near) * slack) / total, (
                row["id"], needle, width)
    texts = [needle_text(n["key"], n["value"], row["context_language"], sources) for n in row["needles"]]
    for text in texts:  # each needle alone in the haystack: other needles' «key» marks are not the book's
        alone = functools.reduce(lambda c, other: c.replace(other, "") if other != text else c, texts, context)
        check_needle_outside_quotations(row["context_language"], alone, text)
    return points


@pytest.mark.parametrize("lang", LANGUAGE_CODES)
def test_fixed_depths_in_every_language_at_8k(generator, sources, cl100k, lang):
    book = generator.prepared.book(lang, cl100k)
    standard = generator.example(ConfigSpec(lang, "s_niah", 8_000), 1)
    (point,), k, _ = check_token_depths(standard, book, sources, cl100k)  # standard rows state it too
    assert standard["needles"][0]["actual_depth"] == 100 * point / k  # where the standard needle landed
    for depth in (0, 50, 100):
        row = generator.example(parse_config_name(f"{lang}_s_niah_8k_at{depth}"), 1)
        (point,) = check_token_placement(row, [depth], book, sources, cl100k)
        k = row["num_units"]
        assert point == {0: 0, 100: k}.get(depth, point)  # before the first sentence, after the last
        needle = row["needles"][0]
        assert needle["depth"] == depth and needle["actual_depth"] == 100 * point / k  # in sentences
        assert abs(needle["token_depth"] - depth) < 5
        # everything but the position is the standard row of the same index
        assert {f: row[f] for f in SAME_FIELDS} == {f: standard[f] for f in SAME_FIELDS}
        assert [(n["key"], n["value"]) for n in row["needles"]] == [(n["key"], n["value"]) for n in standard["needles"]]
        assert abs(row["num_units"] - standard["num_units"]) <= 1
        assert row["num_tokens"] == cl100k.count(row["input"]) and row["num_tokens"] <= row["budget"]
        assert row["id"] == f"{lang}_s_niah_8k_at{depth}/1"
    row = generator.example(parse_config_name(f"{lang}_mv16e_niah_8k"), 0)
    points = check_token_placement(row, even(16), book, sources, cl100k)
    assert points == sorted(points)
    assert [n["depth"] for n in row["needles"]] == [int(d + Fraction(1, 2)) for d in even(16)]


def test_several_needles_at_one_depth_go_consecutively(generator, sources, cl100k):
    book = generator.prepared.book("de", cl100k)
    for task in ("mk_niah", "none_niah", "mq_niah"):
        standard = generator.example(ConfigSpec("de", task, 8_000), 0)
        row = generator.example(parse_config_name(f"de_{task}_8k_at30"), 0)
        points = check_token_placement(row, [30] * len(row["needles"]), book, sources, cl100k)
        assert len(set(points)) == 1
        assert [n["value"] for n in row["needles"]] == [n["value"] for n in standard["needles"]]  # drawn order kept
        assert len({(n["actual_depth"], n["token_depth"]) for n in row["needles"]}) == 1
        assert (row["answers"], row["queries"]) == (standard["answers"], standard["queries"])


def test_sixty_four_values_evenly_spaced_at_32k(generator, sources, cl100k):
    spec = parse_config_name("pl_mv64e_niah_32k")
    row = generator.example(spec, 0)
    book = generator.prepared.book("pl", cl100k)
    values = [n["value"] for n in row["needles"]]
    assert len(values) == len(set(values)) == 64 and sorted(row["answers"]) == sorted(values)
    assert len({n["key"] for n in row["needles"]}) == 1 and len(row["queries"]) == 1
    points = check_token_placement(row, even(64), book, sources, cl100k)
    k = row["num_units"]
    for needle, point, exact in zip(row["needles"], points, even(64)):
        assert needle["depth"] == int(exact + Fraction(1, 2)) and needle["actual_depth"] == 100 * point / k
        assert abs(needle["token_depth"] - exact) < 1  # 32k: a Polish sentence is well under a point
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
    """Token-control sweeps: counts and token depths in the alias's tokenizer."""
    spec = parse_config_name(name, registry.aliases)
    tokenizer = registry.get(spec.alias)
    row = generator.example(spec, 0)
    assert row["num_tokens"] == tokenizer.count(row["input"]) and row["num_tokens"] + row["reserve"] <= row["length"]
    named = even(16) if "mv16e" in name else [spec.depth] * len(row["needles"])
    check_token_placement(row, named, generator.prepared.book(spec.context_language, tokenizer), sources, tokenizer)


def test_rows_are_the_same_counted_or_tokenised_whole(generator, sources, registry):
    """Placement and token depths come out the same when every count tokenises whole (``--full-count``,
    what ``oneruler verify`` rebuilds with), standard rows and sweeps, zh/ja joins included."""
    whole = RowGenerator(sources, registry, full_count=True)
    for name in ("zh_s_niah_8k_at40", "ja_mv16e_niah_8k", "en_mk_niah_8k", "ko-en_s_niah_8k_at75_llama3"):
        spec = parse_config_name(name, registry.aliases)
        assert whole.example(spec, 1) == generator.example(spec, 1), name
