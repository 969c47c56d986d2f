"""RULER's family records (spec/families/ruler*.py) against RULER's pinned files: every number a record states is
RULER's (reserve = tokens_to_generate, the metric, the settings its card text describes)."""

from __future__ import annotations

import pytest

from builders.spec.families import ruler_cwe, ruler_fwe, ruler_niah, ruler_qa, ruler_vt
from builders.spec.family import LanguageRule
from builders.spec.languages import LANGUAGE_CODES
from builders.spec.schema import features_of, field_names
from builders.spec.tasks import FAMILIES, get_task

RULER_MODULES = (ruler_niah, ruler_vt, ruler_cwe, ruler_fwe, ruler_qa)
RULER_TASKS = [t for module in RULER_MODULES for t in module.TASKS]


def test_the_thirteen_tasks_are_rulers_in_rulers_order(ruler_sources):
    named = [t.ruler_name for t in RULER_TASKS if t.ruler_name is not None]
    assert named == list(ruler_sources.tasks.settings)  # synthetic.yaml's 13, in its order
    assert [t.name for t in RULER_TASKS] == [f"ruler_{n}" for n in named[:13]] + ["ruler_qa_xquad"]
    assert all(not t.main for t in RULER_TASKS)  # never in the standard grid


@pytest.mark.parametrize("task", RULER_TASKS, ids=lambda t: t.name)
def test_reserve_and_rule_are_rulers_tokens_to_generate_and_metric(task, ruler_sources):
    ruler_name = task.ruler_name or "qa_1"  # XQuAD takes RULER's QA rule
    assert task.reserve == ruler_sources.tasks.template(ruler_name).tokens_to_generate == task.family.reserve
    assert task.scoring_rule == ruler_sources.tasks.metric(ruler_name) == task.family.scoring_rule
    assert get_task(task.name) is task and FAMILIES[task.family.name] is task.family
    assert "answer_prefix" in field_names(task.family) and features_of(task.name)["answer_prefix"].dtype == "string"


def describe(args: dict) -> str:
    """A NIAH setting in the words of the records' setup cells, written from synthetic.yaml's arguments."""
    kinds = {"words": "word", "numbers": "number", "uuids": "UUID"}
    haystack = {"noise": "noise", "essay": "essay", "needle": "distractor-needle"}[args["type_haystack"]]
    many_keys = args["num_needle_k"] > 1 or args["num_needle_q"] > 1
    key = kinds[args["type_needle_k"]] + (" keys" if many_keys or args["type_haystack"] == "needle" else " key")
    many_values = args["num_needle_v"] > 1 or many_keys or args["type_haystack"] == "needle"
    value = kinds[args["type_needle_v"]] + (" values" if many_values else " value")
    text = f"{haystack} haystack; {key}, {value}"
    if args["num_needle_q"] > 1:
        text += f"; {args['num_needle_q']} keys queried"
    elif args["num_needle_k"] > 1:
        text += f"; 1 of {args['num_needle_k']} keys queried"
    return text


@pytest.mark.parametrize("task", ruler_niah.TASKS, ids=lambda t: t.name)
def test_niah_setups_say_what_synthetic_yaml_sets(task, ruler_sources):
    setting = ruler_sources.tasks.setting(task.ruler_name)
    assert task.setup == describe(dict(setting.args))


def test_upstreams_are_the_pinned_ones_each_task_reads(ruler_sources):
    from builders.sources.ruler.pins import PINNED_UPSTREAMS

    for task in RULER_TASKS:
        upstreams = task.family.upstreams_of(task.name)
        assert upstreams[0] == "ruler" and set(upstreams) <= set(PINNED_UPSTREAMS)
        setting = ruler_sources.tasks.settings.get(task.ruler_name)
        essay = setting is not None and setting.args.get("type_haystack") == "essay"
        assert ("paul_graham_essays" in upstreams) == essay == ("nltk_punkt" in upstreams), task.name
    assert ruler_qa.RULER_QA.upstreams_of("ruler_qa_xquad") == ("ruler", "xquad")
    assert FAMILIES["niah"].upstreams_of("s_niah") == ()  # ONERULER's own release only


def test_vt_cwe_fwe_setups_say_what_synthetic_yaml_sets(ruler_sources):
    vt = ruler_sources.tasks.setting("vt").args
    assert f"{vt['type_haystack']} haystack; {vt['num_chains']} chain of {vt['num_hops']} hops" in ruler_vt.TASKS[0].setup
    cwe = ruler_sources.tasks.setting("cwe").args
    assert ruler_cwe.TASKS[0].setup.startswith(f"{cwe['num_cw']} words ×{cwe['freq_cw']}, others ×{cwe['freq_ucw']}")
    assert f"α = {ruler_sources.tasks.setting('fwe').args['alpha']:g}" in ruler_fwe.TASKS[0].setup


def test_language_rules():
    english = [get_task(t.name).family.language_rule(t.name) for t in RULER_TASKS
               if t.name not in ("ruler_vt", "ruler_qa_xquad")]
    assert all(rule.allows("en", "en") and not rule.allows("de", "en") and not rule.allows("de", "de")
               for rule in english)
    vt = ruler_vt.RULER_VT.language_rule("ruler_vt")
    assert all(vt.allows(code, "en") and (code == "en") == vt.allows(code, code) for code in LANGUAGE_CODES)
    xquad = ruler_qa.RULER_QA.language_rule("ruler_qa_xquad")
    assert [c for c in LANGUAGE_CODES if xquad.allows(c, "en")] == sorted(ruler_qa.XQUAD_LANGUAGES)
    assert ruler_qa.RULER_QA.language_rule("ruler_qa_1") is not xquad
    assert LanguageRule().allows("pl", "ko")  # ONERULER's families: any pair their family allows


def test_xquad_languages_are_xquads_that_are_onerulers(ruler_sources):
    assert sorted(ruler_qa.XQUAD_LANGUAGES) == sorted(set(ruler_sources.xquad_languages) & set(LANGUAGE_CODES))


def test_which_families_read_a_languages_book():
    """The card's book sections follow the records: ONERULER's NIAH reads every language's book, RULER's VT every
    one but English (RULER's noise lines), no other family a book."""
    from builders.spec.languages import LANGUAGE_CODES
    from builders.spec.tasks import FAMILIES

    readers = {name: [c for c in LANGUAGE_CODES if family.reads_book(c)] for name, family in FAMILIES.items()}
    assert readers.pop("niah") == list(LANGUAGE_CODES) and len(LANGUAGE_CODES) == 26
    assert readers.pop("ruler_vt") == [c for c in LANGUAGE_CODES if c != "en"]
    assert all(not codes for codes in readers.values()), readers
