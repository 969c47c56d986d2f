"""What RULER's aggregation and QA generators share: the frame cut as RULER cuts it, the fixed-seed shuffle as keys,
random orders, the fit's refusal, a missing source named for its config, number costs."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from builders.base.errors import OneRulerError
from builders.generate.ruler.common import (FixedOrder, NumberCosts, random_order, ruler_template, running_argmax,
                                            source_for)
from builders.sources.mirror import MissingSource
from builders.spec.configs import parse_config_name
from builders.spec.tasks import get_task

def test_template_reserve_is_checked(ruler_sources):
    assert ruler_template(ruler_sources.tasks, get_task("ruler_qa_xquad"), "qa").tokens_to_generate == 32
    assert ruler_template(ruler_sources.tasks, get_task("ruler_cwe")).family == "common_words_extraction"
    with pytest.raises(OneRulerError, match="RULER's tokens_to_generate is 32, the task record reserves 120"):
        ruler_template(ruler_sources.tasks, replace(get_task("ruler_qa_xquad"), reserve=120), "qa")


def test_fixed_order_is_one_permutation_a_longer_list_inserts_into():
    order = FixedOrder("test", 42, "task")
    short, longer = order.order(50).tolist(), order.order(80).tolist()
    assert sorted(longer) == list(range(80))
    assert [s for s in longer if s < 50] == short  # the longer list only inserts slots 50..79
    assert FixedOrder("test", 42, "task").order(80).tolist() == longer  # the same for every row
    assert FixedOrder("test", 43, "task").order(80).tolist() != longer
    assert all(order.last_slot(n) == order.order(n)[-1] for n in (1, 7, 50, 80))
    assert order.keys(5, "other").tolist() == FixedOrder("test", 42, "task").keys(9, "other")[:5].tolist()


def test_running_argmax_and_random_order():
    values = np.asarray([3, 1, 4, 1, 5, 9, 2, 6, 9], dtype=np.uint64)
    assert running_argmax(values).tolist() == [int(np.argmax(values[: j + 1])) for j in range(len(values))]
    drawn = random_order(1000, "row", 1)
    assert sorted(drawn.tolist()) == list(range(1000)) and drawn.tolist() == random_order(1000, "row", 1).tolist()
    assert drawn[:10].tolist() != random_order(1000, "row", 2)[:10].tolist()


def test_a_missing_source_names_the_config_in_one_line():
    spec = parse_config_name("en_ruler_qa_1_8192")

    def read():
        raise MissingSource("dataset/dev-v2.0.json: not found in the mirror; save URL as dataset/dev-v2.0.json")

    with pytest.raises(MissingSource) as caught:
        source_for(spec, "SQuAD v2.0 dev", read)
    assert str(caught.value) == ("config en_ruler_qa_1_8192: needs SQuAD v2.0 dev: dataset/dev-v2.0.json: not found "
                                 "in the mirror; save URL as dataset/dev-v2.0.json")
    assert source_for(spec, "x", lambda: 7) == 7


def test_number_costs_are_each_numbers_tokens(cl100k):
    costs = NumberCosts(cl100k, ".")
    prefix = costs.prefix(1200)
    assert prefix[1200] == sum(cl100k.count(f" {i}.") for i in range(1, 1201)) and prefix[0] == 0
    assert costs.prefix(3)[:4] == prefix[:4]
