"""A build request is checked when it is made: each bad setting fails naming it, before anything loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from builders.base.errors import OneRulerError, SettingError
from builders.cli.handler import flag_of
from builders.export.request import BuildRequest


def test_a_request_holds_its_settings_normalised_and_the_configs_it_selects(tmp_path):
    request = BuildRequest(["pl_s_niah_8k", "ko_*_8k_llama3"], str(tmp_path / "out"), samples=3,
                           tokenizers={"llama3": "/tok"})
    assert request.patterns == ("pl_s_niah_8k", "ko_*_8k_llama3") and request.out == tmp_path / "out"
    assert request.seed == 42 and request.num_proc == 1 and request.grid == "standard" and not request.force
    assert request.specs[0].name == "pl_s_niah_8k" and len(request.specs) == 1 + 8  # 7 tasks and s_niah_nonone
    assert all(s.alias == "llama3" for s in request.specs[1:])
    with pytest.raises(TypeError):
        request.tokenizers["o"] = "o200k_base"  # read-only, as the whole request
    depth = BuildRequest(("pl_s_niah_8k_at*",), Path("x"), grid="depth")
    assert {s.depth for s in depth.specs} == set(range(0, 101, 10))  # the depth grid over the selected glob


@pytest.mark.parametrize("settings, says, flag", [
    ({"samples": 0}, "samples must be at least 1 (got 0)", "--samples must be at least 1 (got 0)"),
    ({"num_proc": 0}, "num_proc must be at least 1 (got 0)", "--num-proc must be at least 1 (got 0)"),
    ({"wait": -1}, "wait must be 0 (fail at once) or a number of seconds (got -1)", "--wait must be 0"),
    ({"samples": "3"}, "samples must be an integer (got '3')", "--samples must be an integer"),
    ({"seed": True}, "seed must be an integer (got True)", "--seed must be an integer"),
    ({"wait": "soon"}, "wait must be a number of seconds (got 'soon')", "--wait must be a number"),
    ({"tokenizers": {"x": 3}}, "tokenizers must map aliases to tokenizer locations", "--tokenizer must map"),
    ({"patterns": 7}, "patterns must be config names or globs (got 7)", "--patterns must be"),
    ({"out": None}, "out must be a folder path (got None)", "--out must be a folder path"),
])
def test_each_bad_setting_is_named(settings, says, flag):
    fields = {"patterns": ("pl_s_niah_8k",), "out": "x", **settings}
    with pytest.raises(SettingError) as info:
        BuildRequest(**fields)
    assert str(info.value).startswith(says) and info.value.worded(flag_of).startswith(flag)


def test_names_are_checked_with_the_request():
    with pytest.raises(OneRulerError, match="no config to build"):
        BuildRequest((), "x")
    with pytest.raises(OneRulerError, match="'pl_s_niha_8k'") as info:
        BuildRequest(("pl_s_niha_8k",), "x")
    assert isinstance(info.value, ValueError)  # a bad name is a ValueError too, as `datasets` expects
    with pytest.raises(OneRulerError, match=r"register others with tokenizers foo=HUB_ID_OR_PATH\)$") as info:
        BuildRequest(("pl_s_niah_8k_foo",), "x")
    assert info.value.worded(flag_of).endswith("register others with --tokenizer foo=HUB_ID_OR_PATH)")
