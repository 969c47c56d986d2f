"""Row ids: one grammar, sorted by config then numeric index."""

import pytest

from builders.spec.ids import check_id, config_of, id_order, row_id


def test_row_id_round_trips_through_config_of():
    assert row_id("ko-en_s_niah_8k", 12) == "ko-en_s_niah_8k/12"
    assert config_of(row_id("pl_cwe_easy_128k_llama3", 0)) == "pl_cwe_easy_128k_llama3"


def test_id_order_sorts_indices_as_numbers_not_text():
    ids = ["a_s_niah_8k/10", "a_s_niah_8k/9", "a_s_niah_8k/100", "a_mk_niah_8k/2"]
    assert sorted(ids, key=id_order) == ["a_mk_niah_8k/2", "a_s_niah_8k/9", "a_s_niah_8k/10", "a_s_niah_8k/100"]


@pytest.mark.parametrize("bad", ["pl_s_niah_8k", "/3", "pl_s_niah_8k/x", "pl_s_niah_8k/-1", ""])
def test_check_id_refuses_what_is_not_config_slash_index(bad):
    with pytest.raises(ValueError, match="line 7"):
        check_id(bad, 7)
