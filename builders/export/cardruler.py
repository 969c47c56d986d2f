"""The card's sections about RULER's configs: what the export holds of RULER, its grids, the deviations from RULER
with the rows each touched, and the native translations the configs are built from. Each is a pure function of the
manifest's configs (``card.py`` puts them in the template)."""

from __future__ import annotations

from collections import defaultdict

from ..base.text import plural
from ..spec.grids import grid_configs
from ..spec.languages import LANGUAGES
from ..spec.tasks import FAMILIES, family_of
from .cardprofile import CardProfile, is_ruler, uses_book, uses_xquad
from .records import ConfigEntry

# RULER's four categories (RULER §3), by family.
CATEGORIES: dict[str, str] = {"ruler_niah": "retrieval", "ruler_vt": "multi-hop tracing", "ruler_cwe": "aggregation",
                              "ruler_fwe": "aggregation", "ruler_qa": "question answering"}
RULER_TITLE = "RULER: What's the Real Context Size of Your Long-Context Language Models?"
def _ruler_entries(configs: dict[str, ConfigEntry]) -> dict[str, ConfigEntry]:
    return {n: e for n, e in sorted(configs.items()) if is_ruler(e.task)}


def _families_held(ruler: dict[str, ConfigEntry]) -> str:
    """RULER's categories the configs belong to, each with its families and tasks."""
    tasks: dict[str, set[str]] = defaultdict(set)
    for e in ruler.values():
        tasks[family_of(e.task).name].add(e.task)
    held: dict[str, list[str]] = defaultdict(list)
    for name in (n for n in FAMILIES if n in tasks):
        held[CATEGORIES[name]].append(f"{FAMILIES[name].label}: {', '.join(f'`{t}`' for t in sorted(tasks[name]))}")
    return ", ".join(f"{category} ({'; '.join(parts)})" for category, parts in held.items())


def _languages_held(ruler: dict[str, ConfigEntry]) -> str:
    contexts = sorted({e.context_language for e in ruler.values()})
    if contexts == ["en"]:
        return "All of them are in English, as RULER is."
    books = sorted({e.context_language for e in ruler.values() if uses_book(e)})
    xquad = sorted({e.context_language for e in ruler.values() if uses_xquad(e.task) and e.context_language != "en"})
    where = []
    if books:
        where.append(f"variable tracking in ONERULER's book of {plural(len(books), 'language')} "
                     f"({', '.join(books)})")
    if xquad:
        where.append(f"QA over XQuAD's paragraphs and questions in {', '.join(xquad)}")
    native = sorted({e.instruction_language for e in ruler.values() if e.translation})
    inst = ("RULER's English instruction" if not native else
            f"RULER's English instruction, or a native speaker's translation of it ({', '.join(native)}; "
            f"\"Reproducibility\" names each file)")
    return (f"Contexts in {plural(len(contexts), 'language')} ({', '.join(contexts)}): " + "; ".join(where)
            + f", with {inst}.")


def ruler_intro(configs: dict[str, ConfigEntry], profile: CardProfile) -> str:
    """The card's opening words about RULER's configs: the whole intro of a RULER-only export, a paragraph after
    ONERULER's where both are held."""
    ruler = _ruler_entries(configs)
    held = f"It holds tasks of RULER's {_families_held(ruler)}. {_languages_held(ruler)}"
    if profile.ruler_only:
        return (f"This dataset is the `oneruler` project's build of the tasks of RULER (Hsieh et al., 2024, "
                f"\"{RULER_TITLE}\"), made by the `oneruler` tool by RULER's rules from RULER's own files at a pinned "
                f"commit. {held} It holds none of the configs of ONERULER (Kim et al., 2025), the multilingual "
                f"benchmark descended from RULER that the same tool builds.")
    return (f"This export also holds configs of RULER (Hsieh et al., 2024, \"{RULER_TITLE}\"), ONERULER's English "
            f"predecessor, made by the same tool by RULER's rules from RULER's own files at a pinned commit. {held}")


def ruler_grids(configs: dict[str, ConfigEntry]) -> str:
    """How much of RULER's two grids the export holds (in any tokenizer)."""
    held = {(e.task, e.context_language, e.instruction_language, e.length) for e in configs.values()}
    lines = []
    for grid, what in (("ruler", "RULER's 13 English tasks × its six lengths"),
                       ("ruler_xling", "VT in the 25 other languages' books and QA over XQuAD, English instruction, "
                                       "× the same lengths")):
        specs = grid_configs(grid)
        n = sum((s.task, s.context_language, s.instruction_language, s.length) in held for s in specs)
        lines.append(f"- `{grid}` ({what}; `oneruler build --grid {grid}`): {n} of its {len(specs)} configs here.")
    return "Of the grids of RULER's configs this export holds:\n\n" + "\n".join(lines)


def translation_lines(configs: dict[str, ConfigEntry]) -> str:
    """One line per translation file the export's configs are built from: file, language, translators, reviewers,
    licence, sha256 and the configs."""
    users: dict[tuple, list[str]] = defaultdict(list)
    docs: dict[tuple, dict] = {}
    for name, e in sorted(configs.items()):
        if e.translation:
            key = (e.translation["file"], e.translation["sha256"])
            users[key].append(name)
            docs[key] = e.translation
    lines = []
    for key in sorted(users):
        t = docs[key]
        language = LANGUAGES[t["language"]].name if t["language"] in LANGUAGES else t["language"]
        reviewers = ", ".join(t["reviewers"]) or "none"
        lines.append(f"- `{t['file']}` ({language}, section `{t['section']}`): translated by "
                     f"{', '.join(t['translators'])}; reviewed by {reviewers}; licence {t['licence']}; from RULER "
                     f"commit `{t['ruler_commit'][:7]}`; sha256 `{t['sha256']}`. Built from it: "
                     f"{plural(len(users[key]), 'config')}: {', '.join(f'`{n}`' for n in users[key])}.")
    return "\n".join(lines)
