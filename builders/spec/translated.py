"""Native-speaker translations of RULER's instructions: where they are, what a file holds, which languages have one.

One YAML file per language, ``translations/ruler/{lang}.yaml`` (docs/translating.md): metadata (who translated it,
under which licence, from which RULER commit, how it was made) and one section per RULER task family it translates,
named as RULER's ``constants.py`` names the family (``variable_tracking``, ``qa``, ...). The package ships the
folder (``base/resources.py``); ``ONERULER_TRANSLATIONS`` names another folder to use instead, so that a
contributor builds with a file before submitting it.

This module reads a file's *shape* only: its metadata and which sections it has. That is all a config name needs
(``LanguageRule.translated``: ``pl_ruler_vt_32768`` is a config only where ``pl.yaml`` translates
``variable_tracking``). What each section must hold, and that every piece keeps RULER's placeholders, is checked
against RULER's English templates by ``sources/ruler/instructions.py`` (``oneruler check-translation``, and again
whenever a build reads the file).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping

import yaml

from ..base.errors import OneRulerError
from ..base.files import sha256_file
from ..base.resources import RULER_TRANSLATIONS, shipped_path
from .languages import LANGUAGE_CODES

FOLDER_VARIABLE = "ONERULER_TRANSLATIONS"  # a folder of {lang}.yaml used instead of the shipped one
FORMAT_VERSION = 1
# RULER's task families as its constants.py names them (sources/ruler/tasks.py:FAMILIES; a test compares them).
SECTIONS: tuple[str, ...] = ("niah", "variable_tracking", "common_words_extraction", "freq_words_extraction", "qa")
# Every file's metadata: key -> what a valid value is (the words of the error that refuses another).
METADATA: dict[str, str] = {
    "format": f"the integer {FORMAT_VERSION}",
    "language": "the file's own language code (its name without .yaml)",
    "translators": "a non-empty list of the native speakers who translated it (names or handles)",
    "reviewers": "a list (possibly empty) of the native speakers who reviewed it",
    "licence": "the licence the translators grant, e.g. 'Apache-2.0' (RULER's) or 'CC BY 4.0'",
    "ruler_commit": "the NVIDIA/RULER commit whose English was translated (40 hex digits)",
    "provenance": "how the translation was made, in words: by hand, by whom, when (no machine translation)",
}
_LISTS = ("translators", "reviewers")


class TranslationError(OneRulerError):
    """A translation file is unreadable or has the wrong shape: one line naming the file, the key and what is valid."""


@dataclass(frozen=True)
class TranslationFile:
    """One language's translation file, read for its shape: its metadata and its sections (unchecked pieces)."""

    path: Path
    language: str
    metadata: Mapping[str, object]
    sections: Mapping[str, object]


def translations_folder() -> Path:
    """The folder of translation files: ``$ONERULER_TRANSLATIONS`` if set, else the package's ``translations/ruler``."""
    given = os.environ.get(FOLDER_VARIABLE)
    return Path(given) if given else shipped_path(RULER_TRANSLATIONS)


def _fail(path: Path, key: str | None, problem: str) -> TranslationError:
    where = f"{path}: {key}" if key else str(path)
    return TranslationError(f"{where}: {problem}")


def _metadata_problem(key: str, value: object, path: Path) -> str | None:
    """Why ``value`` is not a valid ``key`` (None: it is)."""
    if key == "format":
        ok = type(value) is int and value == FORMAT_VERSION
    elif key == "language":
        ok = value == path.stem and value in LANGUAGE_CODES
    elif key in _LISTS:
        ok = (isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)
              and (key == "reviewers" or bool(value)))
    elif key == "ruler_commit":
        ok = isinstance(value, str) and len(value) == 40 and all(c in "0123456789abcdef" for c in value)
    else:
        ok = isinstance(value, str) and bool(value.strip())
    return None if ok else f"is {value!r}; expected {METADATA[key]}"


def read_translation(path: Path | str) -> TranslationFile:
    """A translation file's metadata and sections; TranslationError (one line: file, key, what is valid) when its
    shape is wrong: not YAML, not a mapping, a metadata key missing or invalid, an unknown top-level key, no section."""
    path = Path(path)
    others = [code for code in LANGUAGE_CODES if code != "en"]
    if path.suffix != ".yaml" or path.stem not in others:
        raise _fail(path, None, f"a translation file is named {{lang}}.yaml with lang one of {', '.join(others)} "
                                "(English is RULER's own)")
    try:
        doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise _fail(path, None, f"cannot be read ({exc.__class__.__name__}: {exc}); save it as UTF-8 text") from None
    except yaml.YAMLError as exc:
        raise _fail(path, None, f"is not valid YAML ({' '.join(str(exc).split())})") from None
    if not isinstance(doc, dict):
        raise _fail(path, None, f"must be a mapping of {', '.join(METADATA)} and sections {', '.join(SECTIONS)}")
    unknown = [str(k) for k in doc if k not in METADATA and k not in SECTIONS]
    if unknown:
        raise _fail(path, unknown[0], f"unknown key; valid: {', '.join(METADATA)} and sections {', '.join(SECTIONS)}")
    for key in METADATA:
        if key not in doc:
            raise _fail(path, key, f"missing; expected {METADATA[key]}")
        problem = _metadata_problem(key, doc[key], path)
        if problem:
            raise _fail(path, key, problem)
    sections = {name: doc[name] for name in SECTIONS if name in doc}
    if not sections:
        raise _fail(path, None, f"translates no section; add one or more of {', '.join(SECTIONS)}")
    return TranslationFile(path, path.stem, {k: doc[k] for k in METADATA}, sections)


def translation_files(folder: Path | None = None) -> dict[str, Path]:
    """``language -> file`` of the translation files in ``folder`` (default :func:`translations_folder`), sorted;
    other files (a README) are not translations."""
    folder = translations_folder() if folder is None else Path(folder)
    if not folder.is_dir():
        if os.environ.get(FOLDER_VARIABLE) and folder == Path(os.environ[FOLDER_VARIABLE]):
            raise TranslationError(f"{FOLDER_VARIABLE}={folder}: no such folder; name a folder of {{lang}}.yaml "
                                   "translation files, or unset it to use the package's")
        return {}
    return {p.stem: p for p in sorted(folder.glob("*.yaml"))}


def translated_languages(section: str, folder: Path | None = None) -> tuple[str, ...]:
    """The languages whose translation file has ``section`` (one of :data:`SECTIONS`), in file-name order; a file
    with the wrong shape is a TranslationError naming it."""
    if section not in SECTIONS:
        raise ValueError(f"unknown RULER section {section!r}; valid: {', '.join(SECTIONS)}")
    return tuple(lang for lang, path in translation_files(folder).items()
                 if section in read_translation(path).sections)


def shown_path(path: Path) -> str:
    """How the manifest and the card name a translation file: the package's as ``translations/ruler/{lang}.yaml``,
    another (``$ONERULER_TRANSLATIONS``) by its path as given."""
    if path.parent.resolve() == shipped_path(RULER_TRANSLATIONS).resolve():
        return f"{RULER_TRANSLATIONS}/{path.name}"
    return str(path)


def translation_record(section: str | None, language: str, folder: Path | None = None) -> dict | None:
    """What an export records of the translation a config's instructions come from: its file (``shown_path``),
    sha256, language, the section used, translators, reviewers, licence and RULER commit; None when the config takes
    RULER's English (no ``section`` for its task, an English instruction, or no file with the section)."""
    if section is None or language == "en":
        return None
    path = translation_files(folder).get(language)
    if path is None:
        return None
    found = read_translation(path)
    if section not in found.sections:
        return None
    meta = found.metadata
    return {"file": shown_path(path), "sha256": sha256_file(path), "language": language, "section": section,
            "translators": list(meta["translators"]), "reviewers": list(meta["reviewers"]),
            "licence": meta["licence"], "ruler_commit": meta["ruler_commit"]}
