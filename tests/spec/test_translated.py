"""spec/translated.py: a translation file's shape, which languages have one, and the language rule that lets a
translated language build native RULER configs (every file here is an artificial fixture, tests/translation_fixtures)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from translation_fixtures import metadata, write_document

from builders.base.resources import RULER_TRANSLATIONS, shipped_path
from builders.spec.configs import ConfigNameError, parse_config_name
from builders.spec.family import LanguageRule
from builders.spec.translated import (FOLDER_VARIABLE, METADATA, SECTIONS, TranslationError, read_translation,
                                      translated_languages, translation_files, translations_folder)

SECTION = {"template": "[[pl]] {context} [[pl]] {query}", "answer_prefix": " [[pl]] {num_v} [[pl]] {query} "}


def document(language: str = "pl", **changes) -> dict:
    doc = {**metadata(language), "variable_tracking": dict(SECTION)}
    for key, value in changes.items():
        if value is None:
            doc.pop(key)
        else:
            doc[key] = value
    return doc


def test_a_file_is_read_for_its_metadata_and_sections(tmp_path):
    path = write_document(tmp_path, document("pl", qa={"template": "x"}))
    translation = read_translation(path)
    assert translation.language == "pl" and translation.path == path
    assert list(translation.sections) == ["variable_tracking", "qa"]
    assert translation.metadata["translators"] == ["test fixture (not a translator)"]
    assert set(translation.metadata) == set(METADATA)


@pytest.mark.parametrize("name, doc, fragment", [
    ("xx.yaml", document("pl"), "named {lang}.yaml with lang one of cs, da, de, "),
    ("en.yaml", document("en"), "(English is RULER's own)"),
    ("pl.yml", document("pl"), "named {lang}.yaml"),
    ("pl.yaml", ["a", "list"], "must be a mapping of format, language, translators"),
    ("pl.yaml", document("pl", varible_tracking={}), "varible_tracking: unknown key; valid: format, language"),
    ("pl.yaml", document("pl", translators=None), "translators: missing; expected a non-empty list of the native"),
    ("pl.yaml", document("pl", translators=[]), "translators: is []; expected a non-empty list"),
    ("pl.yaml", document("pl", reviewers="someone"), "reviewers: is 'someone'; expected a list (possibly empty)"),
    ("pl.yaml", document("pl", format=2), "format: is 2; expected the integer 1"),
    ("pl.yaml", document("de"), "language: is 'de'; expected the file's own language code"),
    ("pl.yaml", document("pl", ruler_commit="c3f5e3b"), "ruler_commit: is 'c3f5e3b'; expected the NVIDIA/RULER commit"),
    ("pl.yaml", document("pl", licence=" "), "licence: is ' '; expected the licence"),
    ("pl.yaml", document("pl", provenance=None), "provenance: missing; expected how the translation was made"),
    ("pl.yaml", document("pl", variable_tracking=None), "translates no section; add one or more of niah, "),
])
def test_a_wrong_shape_is_one_line_naming_the_file_the_key_and_what_is_valid(tmp_path, name, doc, fragment):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(doc), encoding="utf-8")
    with pytest.raises(TranslationError) as info:
        read_translation(path)
    message = str(info.value)
    assert message.startswith(f"{path}") and fragment in message and "\n" not in message


def test_text_that_is_not_yaml_or_not_utf8_is_one_line(tmp_path):
    (tmp_path / "pl.yaml").write_text("language: [pl\n", encoding="utf-8")
    with pytest.raises(TranslationError, match=r"pl.yaml: is not valid YAML \("):
        read_translation(tmp_path / "pl.yaml")
    (tmp_path / "de.yaml").write_bytes(b"language: \xff\xfe\n")
    with pytest.raises(TranslationError, match=r"de.yaml: cannot be read .*save it as UTF-8"):
        read_translation(tmp_path / "de.yaml")


def test_which_languages_have_a_section(tmp_path):
    write_document(tmp_path, document("pl"))
    write_document(tmp_path, document("de", variable_tracking=None, qa={"template": "x"}))
    (tmp_path / "README.md").write_text("not a translation", encoding="utf-8")
    assert list(translation_files(tmp_path)) == ["de", "pl"]
    assert translated_languages("variable_tracking", tmp_path) == ("pl",)
    assert translated_languages("qa", tmp_path) == ("de",)
    assert translated_languages("niah", tmp_path) == ()
    with pytest.raises(ValueError, match="unknown RULER section 'vt'; valid: niah, variable_tracking"):
        translated_languages("vt", tmp_path)


def test_the_folder_is_the_packages_unless_the_variable_names_another(tmp_path, monkeypatch):
    monkeypatch.delenv(FOLDER_VARIABLE, raising=False)
    assert translations_folder() == shipped_path(RULER_TRANSLATIONS) and translations_folder().is_dir()
    monkeypatch.setenv(FOLDER_VARIABLE, str(tmp_path))
    assert translations_folder() == tmp_path
    monkeypatch.setenv(FOLDER_VARIABLE, str(tmp_path / "absent"))
    with pytest.raises(TranslationError, match=f"{FOLDER_VARIABLE}=.*absent: no such folder"):
        translation_files()


def test_a_rule_allows_a_native_config_only_for_a_translated_language():
    rule = LanguageRule(None, ("en",), "why", translated="variable_tracking")
    assert rule.allows("pl", "en") and rule.allows("en", "en")
    assert not rule.allows("pl", "pl") and rule.allows("pl", "pl", ("pl",))
    assert not rule.allows("de", "de", ("pl",)) and not rule.allows("de", "pl", ("pl",))  # native only
    closed = LanguageRule(("en",), ("en",), "why")
    assert not closed.allows("pl", "pl", ("pl",))  # no translated section: nothing changes
    xquad = LanguageRule(("de", "en"), ("en",), "why", translated="qa")
    assert xquad.allows("de", "de", ("de", "pl")) and not xquad.allows("pl", "pl", ("de", "pl"))


def test_a_translated_language_builds_native_configs_and_others_keep_the_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv(FOLDER_VARIABLE, str(tmp_path))
    write_document(tmp_path, document("pl", common_words_extraction={"template": "x"}))
    write_document(tmp_path, document("de", variable_tracking=None, qa={"template": "x"}))
    spec = parse_config_name("pl_ruler_vt_32768")
    assert (spec.context_language, spec.instruction_language, spec.name) == ("pl", "pl", "pl_ruler_vt_32768")
    assert parse_config_name("de_ruler_qa_xquad_8192").instruction_language == "de"
    assert parse_config_name("pl-en_ruler_vt_32768").instruction_language == "en"
    refused = {
        "de_ruler_vt_32768": "task 'ruler_vt' takes no instruction language 'de' (RULER's English instructions; no "
                             "native translation yet): contexts any of the 26 languages, instructions en; "
                             "e.g. de-en_ruler_vt_32768",
        "de-pl_ruler_vt_32768": "takes no instruction language 'pl'",  # a translation is for its own contexts
        "pl_ruler_cwe_8192": "task 'ruler_cwe' takes no context language 'pl' (RULER's English task)",
        "es_ruler_qa_xquad_8192": "e.g. es-en_ruler_qa_xquad_8192",
    }
    for name, fragment in refused.items():
        with pytest.raises(ConfigNameError) as info:
            parse_config_name(name)
        assert fragment in str(info.value) and "\n" not in str(info.value), name


def test_a_broken_file_in_the_folder_is_named_when_a_config_needs_it(tmp_path, monkeypatch):
    monkeypatch.setenv(FOLDER_VARIABLE, str(tmp_path))
    write_document(tmp_path, document("pl", format=None))
    with pytest.raises(TranslationError, match=r"pl.yaml: format: missing"):
        parse_config_name("pl_ruler_vt_32768")
    assert parse_config_name("pl-en_ruler_vt_32768").instruction_language == "en"  # English needs no file


def test_the_sections_are_rulers_families():
    from builders.sources.ruler.tasks import FAMILIES

    assert SECTIONS == FAMILIES


def test_the_package_ships_the_folder_with_its_readme():
    folder = shipped_path(RULER_TRANSLATIONS)
    assert (folder / "README.md").is_file()
    assert "docs/translating.md" in (folder / "README.md").read_text(encoding="utf-8")
    assert all(isinstance(p, Path) for p in translation_files(folder).values())
