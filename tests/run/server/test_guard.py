"""The truncation guard's three rules, on answers as servers send them."""

from __future__ import annotations

from builders.run.server.guard import STOP_AFTER, TruncationGuard


def usage(prompt_tokens):
    return {"prompt_tokens": prompt_tokens, "completion_tokens": 3, "reasoning_tokens": None}


def test_exact_counts_flag_a_prompt_read_clearly_shorter():
    guard = TruncationGuard({"a/0": 8000, "a/1": 8000}, {"a/0": 30, "a/1": 30}, 16_000, exact=True)
    assert guard.check("a/0", usage(7995)) is None  # template differences of a few tokens pass
    reason = guard.check("a/1", usage(4096))
    assert reason == ("prompt cut short: the server read 4096 prompt tokens of the 8000 counted; its 16000-token window "
                      "is not the cause")
    assert guard.cut == ["a/1"] and not guard.stop and not guard.window_cause and guard.first == (8000, 4096)
    unknown = TruncationGuard({"a/0": 8000}, {"a/0": 30}, None, exact=True)
    assert unknown.check("a/0", usage(4096)) == "truncated by the server: the server read 4096 prompt tokens of the 8000 counted"


def test_a_prompt_that_fills_the_window_was_cut_whatever_the_count():
    guard = TruncationGuard({"a/0": 3000}, {"a/0": 30}, 4096, exact=False)
    assert guard.check("a/0", usage(4096)).endswith("filling its 4096-token window") and guard.window_cause


def test_estimates_learn_the_ratio_per_config():
    """Tamil reads at 0.2 of its estimate while English reads whole: neither is a cut; a drop within a config is."""
    counts = {f"ta/{i}": 10_000 for i in range(5)} | {f"en/{i}": 10_000 for i in range(5)}
    guard = TruncationGuard(counts, dict.fromkeys(counts, 30), None, exact=False)
    for i in range(4):
        assert guard.check(f"ta/{i}", usage(2000)) is None and guard.check(f"en/{i}", usage(9000)) is None
    assert guard.check("ta/4", usage(1900)) is None
    assert "the config's other rows came back whole" in guard.check("en/4", usage(4000))


def test_stop_after_a_few_cut_rows_and_no_usage_is_counted():
    counts = {f"a/{i}": 8000 for i in range(STOP_AFTER + 1)}
    guard = TruncationGuard(counts, dict.fromkeys(counts, 30), 4096, exact=True)
    assert guard.check("a/0", None) is None and guard.no_usage == 1
    for i in range(1, STOP_AFTER + 1):
        guard.check(f"a/{i}", usage(4096))
    assert guard.stop and guard.cut == [f"a/{i}" for i in range(1, STOP_AFTER + 1)]
