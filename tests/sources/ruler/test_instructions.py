"""sources/ruler/instructions.py: RULER's English pieces (against RULER's own files and code), the checker of a
translation, and the hook the generators call. Every translation here is an artificial pseudo-text
(tests/translation_fixtures.py), never a language's words."""

from __future__ import annotations

import ast
import copy

import pytest
import yaml
from translation_fixtures import pseudo_document, write_document

from builders.base.resources import RULER_TRANSLATIONS, shipped_path
from builders.sources.ruler.instructions import (check_translation, english_pieces, ruler_instructions,
                                                  section_problems, singular)
from builders.spec.translated import TranslationError, translation_files

NIAH_SCRIPT = "scripts/data/synthetic/niah.py"


@pytest.fixture(scope="module")
def tasks(ruler_sources):
    return ruler_sources.tasks


@pytest.fixture(scope="module")
def rulers_constants(ruler_mirror) -> dict:
    """RULER's TASKS read here straight from the mirror's constants.py (the oracle)."""
    tree = ast.parse((ruler_mirror / "scripts/data/synthetic/constants.py").read_text(encoding="utf-8"))
    node = next(n for n in tree.body if isinstance(n, ast.Assign) and n.targets[0].id == "TASKS")
    return ast.literal_eval(node.value)


def rulers_singular(ruler_mirror, template: str, type_needle_v: str) -> tuple[str, str]:
    """Run the body of niah.py's ``if args.num_needle_q * args.num_needle_v == 1:`` on (template, type_needle_v)."""
    tree = ast.parse((ruler_mirror / NIAH_SCRIPT).read_text(encoding="utf-8"))
    branch = next(n for n in ast.walk(tree) if isinstance(n, ast.If) and "num_needle_q" in ast.unparse(n.test))
    namespace = {"template": template, "type_needle_v": type_needle_v}
    exec(compile(ast.Module(body=branch.body, type_ignores=[]), NIAH_SCRIPT, "exec"), namespace)  # noqa: S102 (oracle)
    return namespace["template"], namespace["type_needle_v"]


def test_the_english_pieces_are_rulers_templates_and_its_singular(tasks, rulers_constants, ruler_mirror):
    pieces = english_pieces(tasks)
    assert list(pieces) == list(rulers_constants)
    for family, english in pieces.items():
        assert english["template"] == rulers_constants[family]["template"]
        assert english["answer_prefix"] == rulers_constants[family]["answer_prefix"]
    niah = pieces["niah"]
    whole, kind = rulers_singular(ruler_mirror, niah["template"] + niah["answer_prefix"], "numbers")
    assert niah["template_singular"] + niah["answer_prefix_singular"] == whole
    assert niah["template_singular"] != niah["template"] and niah["type_needle_v.numbers_singular"] == kind
    synthetic = yaml.safe_load((ruler_mirror / "scripts/synthetic.yaml").read_text(encoding="utf-8"))
    kinds = {t["args"]["type_needle_v"] for t in synthetic.values() if t["task"] == "niah"}
    assert {k.split(".")[1] for k in niah if k.startswith("type_needle_v.")} == kinds | {k + "_singular" for k in kinds}
    assert singular("Some keys are all here", tasks.singular) == "A keys is here"


def test_a_pseudo_translation_that_keeps_every_placeholder_passes(tasks, tmp_path):
    assert check_translation(write_document(tmp_path, pseudo_document(tasks, "pl")), tasks) == []
    partial = pseudo_document(tasks, "de", ["variable_tracking"])
    assert check_translation(write_document(tmp_path, partial), tasks) == []


def _set(doc: dict, dotted: str, value) -> None:
    *parents, last = dotted.split(".")
    node = doc
    for part in parents:
        node = node[part]
    if value is None:
        del node[last]
    else:
        node[last] = value


@pytest.mark.parametrize("key, change, fragment", [
    ("variable_tracking.template", lambda t: t.replace("{query}", ""),
     "variable_tracking.template: drops {query}; RULER's English has {context}, {query}"),
    ("qa.answer_prefix", lambda t: t + "{key}", "qa.answer_prefix: adds {key}; RULER's English has none"),
    ("niah.answer_prefix", lambda t: t.replace("{query}", "{value}"),
     "niah.answer_prefix: drops {query}; adds {value}; RULER's English has {query}, {type_needle_v}"),
    ("niah.type_needle_v.uuids", lambda t: t + " {context}", "niah.type_needle_v.uuids: adds {context}"),
    ("niah.template_singular", lambda t: None, "niah.template_singular: missing; niah holds template, answer_prefix"),
    ("niah.type_needle_v.words", lambda t: "[[pl]]", "niah.type_needle_v.words: unknown key; niah holds template"),
    ("common_words_extraction.template", lambda t: t + "{context}",
     "common_words_extraction.template: has {context} 2 times; RULER's English has it once"),
    ("freq_words_extraction.template", lambda t: t + "{context",
     "freq_words_extraction.template: is not a format string ("),
    ("qa.template", lambda t: t.replace("{query}", "{query!r}"), "qa.template: placeholders are written bare"),
    ("qa.template", lambda t: t.replace("{query}", "{0}"), "qa.template: placeholders are written bare"),
    ("variable_tracking.answer_prefix", lambda t: t.rstrip() + "\n",
     "variable_tracking.answer_prefix: begins and ends with (' ', '\\n'); RULER's English with (' ', ' ')"),
    ("qa.answer_prefix", lambda t: 7, "qa.answer_prefix: must be a non-empty string (RULER's English: ' Answer:')"),
    ("qa.template", lambda t: {"text": t}, "qa.template.text: unknown key; qa holds template, answer_prefix"),
])
def test_a_broken_piece_is_one_line_naming_file_key_and_what_is_valid(tasks, tmp_path, key, change, fragment):
    doc = pseudo_document(tasks, "pl")
    node = doc
    for part in key.split(".")[:-1]:
        node = node.setdefault(part, {})
    _set(doc, key, change(node.get(key.split(".")[-1])))
    path = write_document(tmp_path, doc)
    problems = check_translation(path, tasks)
    assert problems and all(p.startswith(f"{path}: ") and "\n" not in p for p in problems)
    assert any(fragment in p for p in problems), problems


def test_rulers_english_left_in_a_template_or_another_commit_is_refused(tasks, tmp_path, rulers_constants):
    doc = pseudo_document(tasks, "pl")
    doc["common_words_extraction"]["template"] = rulers_constants["common_words_extraction"]["template"]
    doc["niah"]["type_needle_v"]["uuids"] = "uuids"  # a word may stay as it is (UUIDs are UUIDs)
    doc["ruler_commit"] = "0" * 40
    problems = check_translation(write_document(tmp_path, doc), tasks)
    assert len(problems) == 2, problems
    assert "ruler_commit: is 0000000000000000000000000000000000000000; the package reads RULER's templates at " \
           "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a" in problems[0]
    assert "common_words_extraction.template: is RULER's English unchanged; translate it" in problems[1]


def test_a_section_that_is_not_a_mapping_and_a_wrong_shape_are_reported(tasks, tmp_path):
    english = english_pieces(tasks)["qa"]
    assert section_problems("qa", "text", english) == ["qa: must be a mapping of template, answer_prefix"]
    doc = pseudo_document(tasks, "pl")
    del doc["licence"]
    problems = check_translation(write_document(tmp_path, doc), tasks)
    assert len(problems) == 1 and "pl.yaml: licence: missing" in problems[0]


def test_the_hook_gives_rulers_english_without_a_translation(tasks, tmp_path, rulers_constants):
    write_document(tmp_path, pseudo_document(tasks, "de", ["qa"]))
    for language in ("en", "pl", "de"):
        vt = ruler_instructions(tasks, "variable_tracking", language, tmp_path)
        assert (vt.language, vt.translation) == ("en", None)
        assert vt.template() == rulers_constants["variable_tracking"]["template"]
        assert vt.answer_prefix() == rulers_constants["variable_tracking"]["answer_prefix"]
    niah = ruler_instructions(tasks, "niah", "pl", tmp_path)
    assert niah.value_kind("numbers", singular_form=True) == "number" and niah.value_kind("uuids") == "uuids"
    assert niah.answer_prefix(singular_form=True).endswith(" is")


def test_the_hook_gives_a_checked_translation(tasks, tmp_path):
    path = write_document(tmp_path, pseudo_document(tasks, "pl"))
    vt = ruler_instructions(tasks, "variable_tracking", "pl", tmp_path)
    assert (vt.language, vt.translation) == ("pl", path)
    assert vt.template().format(context="CTX", query="12345").startswith("[[pl]] ")
    assert "CTX" in vt.template().format(context="CTX", query="1") and "12345" not in vt.template()
    assert vt.answer_prefix().format(num_v=5, query="12345").count("12345") == 1
    niah = ruler_instructions(tasks, "niah", "pl", tmp_path)
    assert niah.template(singular_form=True) != english_pieces(tasks)["niah"]["template_singular"]
    assert niah.value_kind("uuids", singular_form=True) == "[[pl]]"
    with pytest.raises(ValueError, match="only RULER's niah family has singular forms, not 'variable_tracking'"):
        vt.template(singular_form=True)
    with pytest.raises(ValueError, match="no word for the kind of value 'words' in niah; RULER's: numbers, uuids"):
        niah.value_kind("words")


def test_the_hook_refuses_a_broken_translation_in_one_line(tasks, tmp_path):
    doc = pseudo_document(tasks, "pl")
    broken = copy.deepcopy(doc)
    broken["variable_tracking"]["template"] = "[[pl]] {context}"
    broken["qa"]["answer_prefix"] = "[[pl]]"
    path = write_document(tmp_path, broken)
    with pytest.raises(TranslationError) as info:
        ruler_instructions(tasks, "variable_tracking", "pl", tmp_path)
    message = str(info.value)
    assert message.startswith(f"{path}: variable_tracking.template: drops {{query}}") and "\n" not in message
    assert f"(1 more; run `oneruler check-translation {path}` for every problem)" in message
    with pytest.raises(ValueError, match="unknown RULER family 'vt'; RULER's: niah, variable_tracking"):
        ruler_instructions(tasks, "vt", "pl", tmp_path)
    with pytest.raises(ValueError, match="unknown language 'xx'"):
        ruler_instructions(tasks, "qa", "xx", tmp_path)


def test_every_shipped_translation_passes_the_checker(tasks):
    for language, path in translation_files(shipped_path(RULER_TRANSLATIONS)).items():
        assert check_translation(path, tasks) == [], language
