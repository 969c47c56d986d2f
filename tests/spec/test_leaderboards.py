"""The leaderboards ONERULER defines (spec/leaderboards.py): their pools and which a dataset serves."""

from __future__ import annotations

from builders.spec.configs import STANDARD_LENGTHS, render_length
from builders.spec.grids import grid_configs
from builders.spec.leaderboards import (LEADERBOARDS, find_leaderboard, listed_leaderboards, served_leaderboards,
                                       touched_leaderboards)
from builders.spec.tasks import MAIN_TASKS, TASKS

STANDARD = [c.name for c in grid_configs("standard")]
# the paper's main grid, read off the standard grid: monolingual, no s_niah_nonone ablation (Fig. 14)
MAIN = [c.name for c in grid_configs("standard") if not c.is_cross_lingual and c.task != "s_niah_nonone"]


def test_the_headline_pools_the_main_grid_and_each_length_board_one_length_of_it():
    boards = {b.id: b for b in LEADERBOARDS}
    assert list(boards) == ["oneruler"] + [f"oneruler_{render_length(n)}" for n in STANDARD_LENGTHS] + ["ruler"]
    assert sorted(boards["oneruler"].config_names()) == sorted(MAIN) and len(MAIN) == 26 * 7 * 4
    per_length = [set(boards[f"oneruler_{render_length(n)}"].config_names()) for n in STANDARD_LENGTHS]
    assert all(len(p) == 182 for p in per_length)
    assert set().union(*per_length) == set(MAIN) and sum(map(len, per_length)) == len(MAIN)  # a partition
    assert all(name.endswith(f"_{render_length(n)}") for p, n in zip(per_length, STANDARD_LENGTHS) for name in p)
    assert {TASKS[c.task].name for c in boards["oneruler"].specs()} == set(MAIN_TASKS)


def test_a_dataset_serves_the_boards_whose_whole_pool_it_holds():
    assert [s.id for s in served_leaderboards(STANDARD)] == [b.id for b in LEADERBOARDS if b.id != "ruler"]
    eight = [n for n in MAIN if n.endswith("_8k")]
    served = served_leaderboards(eight + ["ko-en_s_niah_8k", "pl_s_niah_nonone_8k"])
    assert [(s.id, s.alias, s.config, s.split) for s in served] == [("oneruler_8k", None, "en_s_niah_8k", "test")]
    assert served_leaderboards(eight[1:]) == []  # one config short: nothing
    assert [s.config for s in served_leaderboards(STANDARD)] == ["en_s_niah_128k", "en_s_niah_8k", "en_s_niah_32k",
                                                                "en_s_niah_64k", "en_s_niah_128k"]


def test_token_control_configs_serve_in_their_tokenizer_and_text_control_wins():
    llama = [f"{n}_llama3" for n in MAIN if n.endswith("_32k")]
    served = served_leaderboards(llama)
    assert [(s.id, s.alias, s.config) for s in served] == [("oneruler_32k", "llama3", "en_s_niah_32k_llama3")]
    assert set(served[0].config_names) == set(llama) and "llama3" in served[0].length_control
    mixed = served_leaderboards(llama + [n for n in MAIN if n.endswith("_8k")])
    assert [(s.id, s.alias) for s in mixed] == [("oneruler_8k", None)]  # one tokenizer per dataset: text-control


def test_find_leaderboard():
    assert find_leaderboard("oneruler_64k").lengths == (64_000,)
    assert find_leaderboard("pl") is None


def test_the_ruler_board_pools_the_ruler_grid_and_is_valued_by_rulers_average():
    ruler = find_leaderboard("ruler")
    grid = [c.name for c in grid_configs("ruler")]
    assert sorted(ruler.config_names()) == sorted(grid) and len(grid) == 13 * 6
    assert ruler.value == "ruler_avg" and "RULER's Avg." in ruler.value_rule and ruler.reference == ("RULER's paper", 500)
    assert ruler.describe() == "1 language × 13 tasks × 4096, 8192, 16384, 32768, 65536, 131072 (78 configs)"
    served = served_leaderboards(grid + STANDARD)
    assert [s.id for s in served][-1] == "ruler" and served[-1].config == "en_ruler_niah_single_1_131072"
    assert served_leaderboards(grid[1:]) == []  # one config short
    tokens = served_leaderboards([f"{n}_llama3" for n in grid])
    assert [(s.id, s.alias, s.config) for s in tokens] == [("ruler", "llama3", "en_ruler_niah_single_1_131072_llama3")]


def test_a_card_lists_the_ruler_board_only_for_an_export_with_ruler_configs():
    assert [b.id for b in listed_leaderboards(STANDARD)] == [b.id for b in LEADERBOARDS if b.id != "ruler"]
    assert listed_leaderboards(["en_ruler_vt_4096_llama3"])[-1].id == "ruler"


def test_a_report_touches_each_board_it_holds_a_config_of_in_its_tokenizer():
    grid = [c.name for c in grid_configs("ruler")]
    assert [(s.id, s.alias) for s in touched_leaderboards(grid[1:])] == [("ruler", None)]  # one short: touched
    assert [(s.id, s.alias) for s in touched_leaderboards(["en_ruler_vt_4096_llama3", "pl_s_niah_8k"])] == [
        ("oneruler", None), ("oneruler_8k", None), ("ruler", "llama3")]
    assert touched_leaderboards(["pl_s_niah_nonone_8k", "ko-en_s_niah_8k", "en_ruler_vt_2048"]) == []  # no pool's
