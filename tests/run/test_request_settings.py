"""Sampling options: the paper's defaults, the Appendix B.1 presets, explicit options over presets."""

from __future__ import annotations

import pytest

from builders.base.errors import OneRulerError
from builders.cli.handler import flag_of
from builders.run.request_settings import failure_limit, parse_extra_body, sampling_settings


def test_paper_defaults_are_greedy_with_the_rows_reserve():
    s = sampling_settings()
    assert s.request_kwargs(30, "chat") == {"max_tokens": 30, "temperature": 0.0}
    assert s.request_kwargs(50, "completions") == {"max_tokens": 50, "temperature": 0.0}


def test_o3_mini_high_preset():
    s = sampling_settings("o3-mini-high")
    assert s.request_kwargs(30, "chat") == {"max_completion_tokens": 10_000, "temperature": 1.0, "reasoning_effort": "high"}
    # the legacy completions endpoint knows neither field
    assert s.request_kwargs(30, "completions") == {"max_tokens": 10_000, "temperature": 1.0}


def test_deepseek_r1_preset_and_explicit_options_win():
    assert sampling_settings("deepseek-r1").request_kwargs(50, "chat") == {"max_tokens": 8_000, "temperature": 0.6}
    s = sampling_settings("deepseek-r1", temperature=0.0, top_p=0.95, seed=7, stop=("</s>",),
                         extra_body={"top_k": 1})
    assert s.request_kwargs(50, "chat") == {"max_tokens": 8_000, "temperature": 0.0, "top_p": 0.95, "seed": 7,
                                            "stop": ["</s>"], "extra_body": {"top_k": 1}}
    assert s.to_meta()["stop"] == ["</s>"] and s.to_meta()["max_tokens"] == 8_000


@pytest.mark.parametrize("kwargs, setting, needle", [
    (dict(preset="o4"), "unknown preset 'o4'", "unknown --preset 'o4'"),
    (dict(max_tokens=0), "max_tokens must be at least 1", "--max-tokens must be at least 1"),
    (dict(temperature=3.0), "temperature must be between 0 and 2", "--temperature must be between 0 and 2"),
    (dict(top_p=0.0), "top_p must be in (0, 1]", "--top-p must be in (0, 1]"),
])
def test_bad_options_are_named(kwargs, setting, needle):
    """Below the CLI the setting is named; the CLI words it as its flag."""
    with pytest.raises(OneRulerError) as info:
        sampling_settings(**kwargs)
    assert str(info.value).startswith(setting) and info.value.worded(flag_of).startswith(needle)


def test_extra_body_must_be_a_json_object():
    assert parse_extra_body('{"top_k": 1, "repetition_penalty": 1.0}') == {"top_k": 1, "repetition_penalty": 1.0}
    assert parse_extra_body(None) == {}
    with pytest.raises(OneRulerError, match="not valid JSON"):
        parse_extra_body("{top_k: 1}")
    with pytest.raises(OneRulerError, match="must be a JSON object"):
        parse_extra_body("[1]")


def test_failure_limit_counts_and_percentages():
    assert failure_limit("10", 5) == 10
    assert failure_limit("1%", 1800) == 18
    assert failure_limit("1%", 50) == 0
    assert failure_limit("100%", 7) == 7
    for bad in ("-1", "x", "150%", "1.5"):
        with pytest.raises(OneRulerError, match="max_failed") as info:
            failure_limit(bad, 10)
        assert info.value.worded(flag_of).startswith(f"--max-failed {bad!r}: give a number of rows")


def test_max_tokens_per_task_family_or_id():  # issue 36: `run --max-tokens cwe=200`
    from builders.run.request_settings import max_tokens_limits
    from builders.spec.tasks import FAMILIES

    assert max_tokens_limits("300") == {"max_tokens": 300}
    given = max_tokens_limits("300,cwe=200,cwe_hard=250")
    assert given == {"max_tokens": 300, "max_tokens_by_task": {"cwe": 200, "cwe_hard": 250}}
    sampling = sampling_settings(**max_tokens_limits("cwe=200"))
    assert [sampling.new_tokens(50, "cwe_easy"), sampling.new_tokens(30, "s_niah"), sampling.new_tokens(50)] == [200, 30, 50]
    sampling = sampling_settings(**given)
    assert [sampling.new_tokens(50, "cwe_hard"), sampling.new_tokens(50, "cwe_easy"), sampling.new_tokens(30, "mk_niah")] \
        == [250, 200, 300]
    assert sampling.to_meta()["max_tokens_by_task"] == {"cwe": 200, "cwe_hard": 250}
    assert "max_tokens_by_task" not in sampling_settings().to_meta()  # an older run's meta still resumes
    # a family's name reaches the ids its forms make on demand; an id this version does not know takes no family's
    by_family = sampling_settings(**max_tokens_limits("niah=64,mv16_niah=200"))
    assert [by_family.new_tokens(30, "mv8_niah"), by_family.new_tokens(30, "mv16_niah"), by_family.new_tokens(50, "cwe_easy"),
            by_family.new_tokens(30, "future_task")] == [64, 200, 50, 30]
    for bad in ("cwe=0", "cwe=lots", "bogus=200", "mv1_niah=200", "0", ""):
        with pytest.raises(OneRulerError, match="give a number of new tokens") as info:
            max_tokens_limits(bad)
        assert f"a task family ({', '.join(FAMILIES)}) or a task id" in str(info.value)  # every registered family
    assert list(FAMILIES)[:2] == ["niah", "cwe"] and max_tokens_limits("ruler_vt=30") == {"max_tokens_by_task": {"ruler_vt": 30}}
