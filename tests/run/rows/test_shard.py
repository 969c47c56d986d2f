"""``--shard I/N``: balanced by prompt tokens, deterministic, each row in exactly one share."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from builders.base.errors import OneRulerError
from builders.cli.handler import flag_of
from builders.run.rows.shard import Shard, deal


@dataclass(frozen=True)
class Row:
    id: str
    num_tokens: int


def rows(n: int) -> list[Row]:
    # sizes of a real grid: a few lengths, many rows each, not sorted
    sizes = (7_970, 127_950, 31_970, 63_950)
    return [Row(f"c{i % 7}_s_niah_{sizes[i % 4] // 1000}k/{i}", sizes[i % 4] - (i * 37) % 400) for i in range(n)]


@pytest.mark.parametrize("count", [1, 2, 3, 7])
def test_every_row_lands_in_exactly_one_share(count):
    selected = rows(200)
    shares = [Shard(i, count).share(selected) for i in range(count)]
    ids = [r.id for share in shares for r in share]
    assert sorted(ids) == sorted(r.id for r in selected) and len(ids) == len(set(ids))
    for share in shares:  # each share keeps the selection's order
        positions = [selected.index(r) for r in share]
        assert positions == sorted(positions)


def test_shares_are_balanced_by_tokens_not_rows():
    selected = [Row(f"a/{i}", 100_000) for i in range(3)] + [Row(f"b/{i}", 1_000) for i in range(300)]
    shares = [Shard(i, 3).share(selected) for i in range(3)]
    tokens = [sum(r.num_tokens for r in s) for s in shares]
    assert max(tokens) - min(tokens) <= 1_000  # within one row's tokens
    assert sorted(len(s) for s in shares) == [101, 101, 101]  # each long row is balanced by short ones
    assert max(tokens) - min(tokens) < 100_000  # a row-count split (101 rows each, longs together) would not be


def test_the_deal_is_the_same_whatever_the_order_it_is_given_in():
    selected = rows(120)
    assert deal(selected, 4) == deal(list(reversed(selected)), 4)
    assert Shard(2, 4).share(selected) == [r for r in selected if r.id in set(deal(selected, 4)[2])]


@pytest.mark.parametrize("text", ["3/3", "-1/2", "1/0", "a/b", "1", "1/2/3", ""])
def test_bad_shards_are_one_clear_error(text):
    with pytest.raises(OneRulerError, match=f"^shard {text!r}: ") as info:
        Shard.parse(text)
    assert info.value.worded(flag_of).startswith(f"--shard {text!r}: ")  # as the CLI says it


def test_parse_and_render():
    assert Shard.parse(" 1 / 3 ") == Shard(1, 3) and str(Shard(1, 3)) == "1/3"
