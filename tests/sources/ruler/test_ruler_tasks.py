"""RULER's templates, task settings and metric rules, read as data and compared with RULER's own files run as Python
(the test's oracle; the package never executes them), and everything unexpected refused in one line."""

from __future__ import annotations

import runpy

import pytest
import yaml

from builders.base.errors import SourceError
from builders.sources.ruler.tasks import FAMILIES, parse_metrics, parse_task_settings, parse_templates

TEMPLATES = "scripts/data/synthetic/constants.py"
SETTINGS = "scripts/synthetic.yaml"
METRIC = "scripts/eval/synthetic/constants.py"


def test_templates_are_rulers_tasks_dict(ruler_mirror):
    parsed = parse_templates((ruler_mirror / TEMPLATES).read_bytes(), TEMPLATES)
    oracle = runpy.run_path(str(ruler_mirror / TEMPLATES))["TASKS"]
    assert list(parsed) == list(oracle) == list(FAMILIES)
    for family, value in oracle.items():
        t = parsed[family]
        assert (t.template, t.answer_prefix, t.tokens_to_generate) == (value["template"], value["answer_prefix"],
                                                                       value["tokens_to_generate"])


def test_settings_are_the_yaml_in_file_order(ruler_mirror):
    data = (ruler_mirror / SETTINGS).read_bytes()
    parsed = parse_task_settings(data, SETTINGS)
    oracle = yaml.safe_load(data)
    assert list(parsed) == list(oracle)
    assert {name: {"task": s.family, "args": dict(s.args)} for name, s in parsed.items()} == oracle


def test_metric_names_are_the_functions_ruler_calls(ruler_mirror):
    parsed = parse_metrics((ruler_mirror / METRIC).read_bytes(), METRIC)
    oracle = runpy.run_path(str(ruler_mirror / METRIC))["TASKS"]
    assert parsed == {family: value["metric_fn"].__name__ for family, value in oracle.items()}


def test_the_store_joins_them_per_task(ruler_sources, ruler_mirror):
    tasks = ruler_sources.tasks
    oracle = runpy.run_path(str(ruler_mirror / TEMPLATES))["TASKS"]
    assert tasks.template("qa_2").answer_prefix == oracle["qa"]["answer_prefix"]
    assert tasks.metric("qa_1") == "string_match_part" and tasks.metric("vt") == "string_match_all"
    assert tasks.setting("niah_multikey_3").args["type_needle_k"] == "uuids"
    assert [f.path for f in tasks.files] == [TEMPLATES, SETTINGS, METRIC, "scripts/data/synthetic/niah.py"]
    with pytest.raises(SourceError, match="unknown RULER task 'niah_single_9'; RULER's tasks: niah_single_1, "):
        tasks.setting("niah_single_9")


GOOD = {"tokens_to_generate": 10, "template": "x {context} {query}", "answer_prefix": " A:"}


def constants(tasks: str) -> bytes:
    return f'"""doc"""\nimport os\nTASKS = {tasks}\n'.encode()


def every(**changed) -> str:
    return repr({f: {**GOOD, **changed} if f == "qa" else GOOD for f in FAMILIES})


@pytest.mark.parametrize("text, message", [
    (b"TASKS = {'niah': open('x')}", "TASKS is not a literal"),
    (b"X = 1", r"expected one module-level `TASKS = \{...\}`, found 0"),
    (b"TASKS = {}\nTASKS = {}", "found 2"),
    (b"TASKS = {", "not valid Python"),
    (constants(repr({f: GOOD for f in FAMILIES[:-1]})), r"names the families \["),
    (constants(every(template="no context here")), r"TASKS\['qa'\]\['template'\] has no \{context\}"),
    (constants(every(template="{context} {secret}")), r"placeholders \['secret'\]"),
    (constants(every(answer_prefix="{0}")), r"placeholders \['0'\]"),
    (constants(every(tokens_to_generate=0)), r"'tokens_to_generate'\] must be a positive integer \(got 0\)"),
    (constants(every(tokens_to_generate=True)), "must be a positive integer"),
    (constants(every(extra=1)), "must be a dict with"),
])
def test_templates_refuse_the_unexpected(text, message):
    with pytest.raises(SourceError, match=message) as info:
        parse_templates(text, "constants.py")
    assert str(info.value).startswith("constants.py: ") and "\n" not in str(info.value)


@pytest.mark.parametrize("text, message", [
    ("a: [", "not valid YAML"),
    ("- 1", "expected a mapping of task names"),
    ("t:\n  task: summarise\n  args: {}", "t.task = 'summarise'; expected one of niah, "),
    ("t:\n  task: qa\n  args: {dataset: trivia}", "t.args.dataset = 'trivia'; expected squad | hotpotqa"),
    ("t:\n  task: qa\n  args: {dataset: squad, extra: 1}", r"t.args has \['dataset', 'extra'\]; a qa task takes"),
    ("t:\n  task: variable_tracking\n  args: {type_haystack: noise, num_chains: 0, num_hops: 4}",
     "num_chains = 0; expected a positive integer"),
    ("t:\n  task: freq_words_extraction\n  args: {alpha: -2}", "alpha = -2; expected a positive number"),
    ("T:\n  task: qa\n  args: {dataset: squad}", "'T' must be a lower-case name"),
    ("t:\n  task: qa", "must be a lower-case name mapping to"),
])
def test_settings_refuse_the_unexpected(text, message):
    with pytest.raises(SourceError, match=message) as info:
        parse_task_settings(text.encode(), "synthetic.yaml")
    assert str(info.value).startswith("synthetic.yaml: ")


def metric_file(**metric_of) -> bytes:
    body = ", ".join(f"{f!r}: {{'metric_fn': {metric_of.get(f, 'string_match_all')}}}" for f in FAMILIES)
    return (f"def string_match_all(p, r):\n    return 0\n\ndef string_match_part(p, r):\n    return 0\n\n"
            f"TASKS = {{{body}}}\n").encode()


def test_metrics_refuse_the_unexpected():
    assert parse_metrics(metric_file(qa="string_match_part"), "m.py")["qa"] == "string_match_part"
    with pytest.raises(SourceError, match=r"m.py: TASKS\['qa'\] must be \{'metric_fn': NAME\}"):
        parse_metrics(metric_file(qa="rouge"), "m.py")
    with pytest.raises(SourceError, match="defined in the file"):
        parse_metrics(metric_file().replace(b"def string_match_all", b"def other"), "m.py")
    with pytest.raises(SourceError, match="names the families"):
        parse_metrics(b"def string_match_all(p, r):\n    return 0\nTASKS = {'niah': {'metric_fn': string_match_all}}",
                      "m.py")
