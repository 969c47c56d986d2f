"""A task family is one record: a toy family registered here, in this test module, is built, exported, shown,
scored and reported by the real commands without any change to a module outside ``spec/``, ``generate/`` and the
scoring rule it names (docs/architecture.md, "Adding a task family").

The toy family ("variable tracking" in miniature) has its own record, task, row fields, generator and scoring
rule, all defined below and registered the way a new family's modules register theirs: ``spec/tasks.py``
(``register_family``), ``generate/rows.py`` (``register_generator``) and ``scoring`` (``register_rule``). The
registrations are undone after the test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from itertools import accumulate
from pathlib import Path

import datasets
import pytest
from click.testing import CliRunner

from builders import scoring
from builders.cli import cli
from builders.generate import rows as generate_rows
from builders.generate.material import RowMaterial
from builders.run.rows.selection import RowRef
from builders.run.server.estimate import estimate
from builders.spec import tasks as task_table
from builders.spec.configs import ConfigNameError, ConfigSpec, parse_config_name
from builders.spec.family import RowField, TaskFamily
from builders.spec.schema import CORE_FEATURES, features_of

TOY_FIELDS = (RowField("toy_prefix", "string", "the words the answer starts with"),
              RowField("toy_statements", "int32", "statements in the context"))


@dataclass(frozen=True)
class ToyTask:
    """A toy task: follow ``hops`` assignments of a variable through noise statements."""

    name: str
    paper_name: str
    hops: int
    reserve: int = 20
    scoring_rule: str = "toy_last_value"
    main: bool = False

    @property
    def family(self) -> TaskFamily:
        return TOY

    @property
    def gold(self) -> str:
        return "the last value of X0"

    @property
    def card_cells(self) -> tuple[str, str]:
        return "—", f"{self.hops} hops"

    @property
    def order(self) -> tuple[str, int]:
        return self.name, 0


def show_toy(row: dict) -> list[str]:
    return [f"toy: {row['toy_statements']} statements, answer prefix {row['toy_prefix']!r}"]


TOY = TaskFamily(name="toy", label="TOY", summary="follow a variable through noise statements", unit="statements",
                 reserve=20, count_margin=0.25, needles=False, cross_lingual=False, depth_sweeps=False,
                 scoring_rule="toy_last_value", tasks=(ToyTask("toy_vars", "Toy variable tracking", hops=3),),
                 row_fields=TOY_FIELDS, show_lines=show_toy)


def toy_fields(spec: ConfigSpec, task: ToyTask, index: int, seed: int, material: RowMaterial) -> dict:
    """The toy generator: ``VAR X0 = n`` chained ``hops`` times among noise statements, filled to the budget."""
    value = 10_000 + 7 * index + seed
    chain = [f"VAR X{h} = {value if h == 0 else f'X{h - 1}'}." for h in range(task.hops)]
    head, tail = "Remember the statements.\n", f"\nWhich variables hold {value}? Answer: The variables are"
    budget = spec.length - task.reserve
    noise = [f"Noise statement number {i} says nothing." for i in range(4000)]
    costs = material.tokenizer.count_batch([" " + s for s in noise])
    fixed = material.tokenizer.count(head + " ".join(chain) + tail)
    k = max(0, sum(1 for total in accumulate(costs) if fixed + total <= budget) - 2)
    while True:  # the estimate only steers: the exact count decides
        context = " ".join(chain + noise[:k + 1])
        if material.tokenizer.count(head + context + tail) > budget:
            break
        k += 1
    context = " ".join(chain + noise[:k])
    text = head + context + tail
    return {"input": text, "answers": [f"X{h}" for h in range(task.hops)],
            "num_tokens": material.tokenizer.count(text), "needles": [], "queries": [],
            "context_span": [len(head), len(head) + len(context)], "num_units": k + task.hops, "budget": budget,
            "reserve": task.reserve, "toy_prefix": "The variables are", "toy_statements": k + task.hops}


def last_value(text, answers, language, needles, strict):
    """The toy rule: every gold variable named (recall: the share named)."""
    found = [a in text for a in answers]
    category = "correct" if all(found) else "partial" if any(found) else "no_answer" if not text.strip() else "wrong"
    return all(found), sum(found) / len(found), category


@pytest.fixture
def toy_registered():
    """The toy family, its generator and its rule, registered for one test and then taken out again."""
    saved = dict(task_table.FAMILIES), dict(task_table.TASKS)
    scoring.register_rule(scoring.Rule("toy_last_value", last_value, null_dropped=False, needs_language=False))
    task_table.register_family(TOY)
    generate_rows.register_generator(TOY, toy_fields)
    try:
        yield TOY
    finally:
        for registry, before in zip((task_table.FAMILIES, task_table.TASKS), saved):
            registry.clear()
            registry.update(before)
        del generate_rows.GENERATORS[TOY.name], scoring.RULES["toy_last_value"]


def invoke(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.output


def test_a_family_registered_outside_the_package_is_built_exported_shown_scored_and_reported(
        toy_registered, tmp_path, source_cache):
    out = tmp_path / "export"
    invoke("build", "en_toy_vars_8k", "en_s_niah_8k", "--samples", "3", "--out", out, "--quiet", "--cache-dir",
           source_cache)
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["configs"]["en_toy_vars_8k"]["stats"]["num_examples"] == 3
    # exported: the core fields, then the family's own; the NIAH config beside it has neither
    toy = datasets.load_dataset(str(out), "en_toy_vars_8k", split="test", cache_dir=str(tmp_path / "hf"))
    niah = datasets.load_dataset(str(out), "en_s_niah_8k", split="test", cache_dir=str(tmp_path / "hf"))
    assert toy.features == features_of("toy_vars") and list(toy.features)[len(CORE_FEATURES):] == [
        "toy_prefix", "toy_statements"]
    assert niah.features == CORE_FEATURES
    row = toy[0]
    assert row["num_tokens"] + row["reserve"] <= 8000 and row["num_tokens"] > 7000 and row["reserve"] == 20
    card = (out / "README.md").read_text(encoding="utf-8")
    assert "| `toy_vars` | Toy variable tracking | — | 3 hops | the last value of X0 | 20 |" in card
    assert "| `toy_statements` | int32 | TOY | statements in the context |" in card

    shown = invoke("show", "en_toy_vars_8k", "--index", "1", "--dataset", out)
    assert f"filling units: {toy[1]['num_units']:,} statements" in shown
    assert f"toy: {toy[1]['toy_statements']} statements, answer prefix 'The variables are'" in shown

    predictions = tmp_path / "preds.jsonl"
    lines = [{"id": f"en_toy_vars_8k/{i}", "prediction": ["X0 X1 X2", "X0", None][i]} for i in range(3)]
    lines += [{"id": f"en_s_niah_8k/{i}", "prediction": niah[i]["answers"][0]} for i in range(3)]
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    printed = invoke("score", predictions, "--dataset", out, "--out", tmp_path / "report")
    scores = json.loads((tmp_path / "report" / "scores.json").read_text(encoding="utf-8"))
    assert scores["by_task"]["toy_vars"]["passed"] == 1 and scores["by_task"]["toy_vars"]["counted"] == 3
    assert scores["by_task"]["toy_vars"]["recall"] == pytest.approx((1 + 1 / 3 + 0) / 3)
    assert list(scores["by_task"]) == ["s_niah", "toy_vars"]  # the toy family after the NIAH family
    assert scores["null_predictions"]["by_family"] == {"niah": 0, "toy": 1}
    assert "null predictions: 0 NIAH, 1 TOY; NIAH dropped from the accuracy, TOY counted wrong" in printed  # the report's families
    assert scores["errors"]["toy_vars"]["partial"] == 1
    assert (tmp_path / "report" / "heatmap.png").is_file() and (tmp_path / "report" / "examples.jsonl").is_file()

    ref = RowRef(row["id"], row["config"], row["task"], 0, 1000, "cl100k_base", 20)
    assert estimate([ref], None, chat=False)[0] == {row["id"]: 1250 + 1}  # the family's count margin


def test_a_familys_record_decides_what_its_configs_may_be(toy_registered):
    assert parse_config_name("de_toy_vars_32k").task == "toy_vars"
    with pytest.raises(ConfigNameError, match="cross-lingual configs exist only for NIAH/RULER VT/RULER QA tasks, not 'toy_vars'"):
        parse_config_name("en-de_toy_vars_8k")
    with pytest.raises(ConfigNameError, match=r"a fixed depth needs a NIAH task, not 'toy_vars' \(TOY has no needles\)"):
        parse_config_name("en_toy_vars_8k_at50")
    with pytest.raises(ValueError, match="is taken"):
        task_table.register_family(TOY)
    other = TaskFamily("other", "OTHER", "", "units", 20, 0.1, False, False, False, "no_such_rule", ())
    with pytest.raises(ValueError, match="family 'other': no scoring rule 'no_such_rule'; the scoring package has numbers, none, words"):
        task_table.register_family(
            TaskFamily(**{**vars(other), "tasks": (ToyTask("other_task", "Other", 1, scoring_rule="no_such_rule"),)}))
    assert task_table.listing_rank("toy_vars") > task_table.listing_rank("cwe_hard")


def test_a_family_without_a_generator_or_with_the_wrong_fields_says_so(toy_registered, generator, monkeypatch):
    spec = ConfigSpec("en", "toy_vars", 8000)
    monkeypatch.setitem(generate_rows.GENERATORS, "toy", lambda *args: {"input": "x"})
    with pytest.raises(Exception, match="family 'toy' made a row with fields"):
        generator.example(spec, 0)
    monkeypatch.delitem(generate_rows.GENERATORS, "toy")
    with pytest.raises(Exception, match="family 'toy' has no row generator"):
        generator.example(spec, 0)
    monkeypatch.setitem(generate_rows.GENERATORS, "toy", toy_fields)  # for the fixture to take out


def test_a_family_field_needs_a_known_type():
    with pytest.raises(ValueError, match="field\\(s\\) bad need a type of string, bool"):
        TaskFamily("x", "X", "", "units", 10, 0.1, False, False, False, "words", (), row_fields=(RowField("bad", "int8", ""),))


def test_the_registered_families_are_niah_then_cwe_then_rulers_and_a_task_reads_its_family():
    assert list(task_table.FAMILIES) == ["niah", "cwe", "ruler_niah", "ruler_vt", "ruler_cwe", "ruler_fwe", "ruler_qa"]
    assert task_table.family_of("mv16e_niah").name == "niah" and task_table.family_of("cwe_hard").unit == "words"
    assert all(t.family.reserve == t.reserve for t in task_table.TASKS.values())
    assert Path(task_table.__file__).name == "tasks.py"
