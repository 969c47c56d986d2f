"""The upstreams of an export's rows (export/upstreams.py): which configs each credits, in the pinned order, and the
one line `push` warns with before publishing Paul Graham's essays."""

from __future__ import annotations

from test_card import entry

from builders.export.records import ConfigEntry
from builders.export.upstreams import export_upstreams, unlicensed_warning, upstreams_section


def configs(*names: tuple[str, str]) -> dict[str, ConfigEntry]:
    return {name: ConfigEntry.from_json(entry(name, task, name.split("_")[0].split("-")[0], "en", 8192), name)
            for name, task in names}


ONERULER = ("en_s_niah_8k", "s_niah")
ESSAY = ("en_ruler_niah_single_2_8192", "ruler_niah_single_2")
NOISE = ("en_ruler_niah_single_1_8192", "ruler_niah_single_1")
XQUAD = ("de-en_ruler_qa_xquad_8192", "ruler_qa_xquad")


def test_each_upstream_lists_the_configs_made_from_it_in_the_pinned_order():
    users = export_upstreams(configs(ONERULER, ESSAY, NOISE, XQUAD))
    assert list(users) == ["ruler", "paul_graham_essays", "xquad", "nltk_punkt"]
    assert users["ruler"] == sorted([ESSAY[0], NOISE[0], XQUAD[0]])
    assert users["paul_graham_essays"] == users["nltk_punkt"] == [ESSAY[0]] and users["xquad"] == [XQUAD[0]]
    assert export_upstreams(configs(ONERULER)) == {}


def test_push_warns_only_for_essays_naming_at_most_three_configs():
    assert unlicensed_warning(configs(ONERULER, NOISE, XQUAD)) is None
    one = unlicensed_warning(configs(ONERULER, ESSAY))
    assert one.startswith(f"warning: 1 config ({ESSAY[0]}) holds Paul Graham's essays as haystacks") and "\n" not in one
    many = configs(*[(f"en_ruler_niah_single_2_{n}", "ruler_niah_single_2") for n in (4096, 8192, 16384, 32768)])
    line = unlicensed_warning(many)
    assert line.startswith("warning: 4 configs (en_ruler_niah_single_2_16384, en_ruler_niah_single_2_32768, "
                           "en_ruler_niah_single_2_4096, …) hold Paul Graham's essays")


def test_the_card_section_says_so_when_no_third_party_input_is_held():
    assert upstreams_section(configs(ONERULER)) == ("This export holds no config made from RULER's or other "
                                                    "third-party inputs.")
    section = upstreams_section(configs(XQUAD))
    assert "CC BY-SA 4.0" in section and "Paul Graham" not in section
