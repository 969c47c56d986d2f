"""The dataset card of an export: ``dataset_card.md`` with its ``{% if %}`` blocks kept by what the export holds
and its ``{{ placeholders }}`` filled from the manifest.

The card is a pure function of ``manifest.json`` (configs, their stats and inputs, and the card
facts: data fixes, measured books and haystacks, CWE pools, key draws) and the template, so it is reproducible byte for byte and
``oneruler verify`` can check it. What the export holds (``cardprofile.py``) decides its sections: ONERULER's where
it holds ONERULER's configs (the card of ONERULER's grid lists every family, language and book), RULER's where it
holds RULER's (``cardruler.py``, ``carddeviations.py``), a source's where a config uses it.
"""

from __future__ import annotations

from collections import defaultdict

from ..base.errors import OneRulerError
from ..base.resources import CARD_TEMPLATE, REINSTALL, shipped_path
from ..base.text import plural
from ..scoring import NONE_WORDS
from ..sources.parse import BOOK_SOURCE
from ..spec.configs import STANDARD_LENGTHS, parse_config_name, render_length
from ..spec.families.niah import MULTI_VALUE_TASK
from ..spec.languages import LANGUAGES
from ..spec.schema import field_table_rows
from ..spec.tasks import FAMILIES, TASKS, get_task
from .carddeviations import ruler_deviations
from .cardprofile import CardProfile
from .cardruler import ruler_grids, ruler_intro, translation_lines
from .cardtemplate import fill_template
from .eval_yaml import leaderboards_section
from .frontmatter import PRETTY_NAME, export_languages, front_matter_yaml
from .records import ConfigEntry, Manifest
from .upstreams import upstreams_section

ALL_LANGUAGES = tuple(sorted(LANGUAGES))


def _table(header: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    for row in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|") for c in row) + " |")
    return "\n".join(out)


def _num(n: int) -> str:
    return f"{n:,}"


def _task_table(profile: CardProfile) -> str:
    rows = [[f"`{name}`", t.paper_name, *t.card_cells, t.gold, t.reserve] for name, t in TASKS.items()
            if t.family.name in profile.shown_families() and profile.shows_task(name)]
    return _table(["task", "paper name", "needles", "setup", "gold answer", "reserve (tokens)"], rows)


def _family_lines(profile: CardProfile) -> str:
    """One line per task family: what it is, the unit its context is counted in, its reserve and scoring rule."""
    lines = []
    for f in (FAMILIES[name] for name in profile.shown_families()):
        tasks = [t for t in f.tasks if profile.shows_task(t.name)]
        others = ", ".join(f"`{t.name}`: `{t.scoring_rule}`" for t in tasks if t.scoring_rule != f.scoring_rule)
        lines.append(f"- **{f.label}** ({', '.join(f'`{t.name}`' for t in tasks)}): {f.summary}; the context is "
                     f"counted in {f.unit} (`num_units`), {f.reserve} tokens are kept for the answer, scored by the "
                     f"rule `{f.scoring_rule}`" + (f" ({others})" if others else "") + ".")
    return "\n".join(lines)


def _field_table(families: tuple[str, ...]) -> str:
    """Every field of a row: the core every row has, then each listed family's own (``spec/schema.py``)."""
    labels = {"all"} | {FAMILIES[name].label for name in families}
    return _table(["field", "type", "rows", "what it holds"], field_table_rows(labels))


def _language_table(present: set[str], profile: CardProfile) -> str:
    """ONERULER's card: every language, those not in the export marked, with the metric's "none" words; RULER's:
    the export's languages alone (RULER's metric has no "none" word)."""
    rows = []
    for code in sorted(LANGUAGES if profile.oneruler else present):
        lang = LANGUAGES[code]
        rows.append([f"`{code}`" + ("" if code in present else " ¹"), lang.name, lang.family, lang.subfamily, lang.script,
                     lang.morphology, lang.speakers, _num(lang.wikipedia_articles), "yes" if lang.low_resource else ""]
                    + ([" / ".join(NONE_WORDS[code])] if profile.oneruler else []))
    return _table(["code", "language", "family", "subfamily", "script", "morphology", "speakers",
                   "Wikipedia articles", "low-resource"] + (["accepted \"none\" words"] if profile.oneruler else []),
                  rows)


def _opt(facts: dict, key: str) -> str:
    return _num(facts[key]) if key in facts else "n/a"


def _book_table(books: dict, languages: tuple[str, ...] = ALL_LANGUAGES) -> str:
    rows, same = [], 0
    for code in languages:
        b = LANGUAGES[code].book
        measured = books.get(code, {})
        tokens = measured.get("tokens")
        same += measured.get("released_tokens") == b.paper_o200k_tokens
        repeat = f"{128_000 / tokens:.1f}×" if tokens and tokens < 128_000 else ""
        rows.append([f"`{code}`", b.title, b.author, b.year, _num(b.paper_o200k_tokens),
                     _opt(measured, "released_tokens"), _opt(measured, "o200k_tokens"), _opt(measured, "tokens"), repeat])
    table = _table(["lang", "title", "author", "year", "tokens reported in the paper (Table 4)",
                    "cl100k, released file", "o200k, cleaned text", "cl100k, cleaned text", "repeats to fill 128k"], rows)
    if not any("released_tokens" in books.get(code, {}) for code in languages):
        return table
    return (table + f"\n\nThe paper's count equals the cl100k count of the released file for {same} of "
            f"{len(languages)} books, although Table 4's caption names o200k.")


def _haystack_table(books: dict, languages: tuple[str, ...] = ALL_LANGUAGES) -> str:
    rows = []
    for code in sorted(set(books) & set(languages)):
        f = books[code]
        if "boundaries" not in f:
            continue
        share = f["safe_boundaries"] / f["boundaries"] if f["boundaries"] else 1.0
        rows.append([f"`{code}`", _num(f["sentences"]), _num(f["boundaries"] - f["safe_boundaries"]), f"{100 * share:.1f}%"])
    if not rows:
        return "No haystack facts were recorded for this export."
    return _table(["lang", "haystack units (sentences)", "boundaries inside a quotation or bracket",
                   "boundaries where a needle may go"], rows)


def _draws_table(draws: dict) -> str:
    if not draws:
        return "No draw counts were recorded for this export."
    rows = [[f"`{task}`", _num(d["draws"]), _num(d["redrawn"]), _num(d["rejected"])] for task, d in sorted(draws.items())]
    return _table(["task", "draws in the standard grid", "draws with a rejected noun set", "noun sets rejected"], rows)


def _reach(value, length: int) -> str:
    return "full" if value is None else f"{100 * value / length:.0f}% ({value / 1000:.1f}k)"


def _cwe_table(books: dict) -> str:
    rows = []
    for code in sorted(books):
        f = books[code]
        if "cwe_reach" not in f:
            continue
        cells = []
        for task in ("cwe_easy", "cwe_hard"):
            for length in STANDARD_LENGTHS:
                here, upstream = f["cwe_reach"][task][str(length)]
                cells.append("full" if here is None and upstream is None else
                             f"{_reach(here, length)} / {_reach(upstream, length)}")
        rows.append([f"`{code}`", _num(f["cwe_pool_upstream"]), _num(f["cwe_pool"])] + cells)
    if not rows:
        return "No CWE pool facts were recorded for this export."
    header = ["lang", "pool, upstream", "pool, here"] + [f"{t.removeprefix('cwe_')} {render_length(n)}"
                                                        for t in ("cwe_easy", "cwe_hard") for n in STANDARD_LENGTHS]
    return _table(header, rows)


def _config_stats_table(configs: dict[str, ConfigEntry]) -> str:
    rows = []
    for name in sorted(configs):
        e = configs[name]
        s = e.stats
        short = ""
        if s.pool_exhausted is not None:
            short = f"{s.pool_exhausted}/{s.num_examples}" if s.pool_exhausted else "0"
        rows.append([f"`{name}`", _num(s.num_examples), e.tokenizer.identity, _num(s.budget or 0),
                     _num(s.num_tokens_min), _num(s.num_tokens_median), _num(s.num_tokens_max), short,
                     f"{e.size / 1e6:.2f}"])
    return _table(["config", "examples", "tokenizer", "budget", "min num_tokens", "median", "max",
                   "pool exhausted", "shard MB"], rows)


def _shortfalls(configs: dict[str, ConfigEntry]) -> str:
    lines = []
    for name in sorted(configs):
        s = configs[name].stats
        if s.pool_exhausted:
            lines.append(
                f"- `{name}`: {s.pool_exhausted} of {s.num_examples} examples use the whole pool of "
                f"{_num(s.pool_size)} {s.pool_unit} and still fall short of the budget by up to "
                f"{_num(s.pool_shortfall_tokens_max)} tokens."
            )
    return "\n".join(lines) if lines else "None: every example in this export reaches its budget."


def _book_fixes(fixes: list[dict], languages: tuple[str, ...]) -> list[dict]:
    """The fixes of the books of ``languages`` (each fix records the role of the file it corrected)."""
    return [f for f in fixes if f["language"] in languages and f.get("source") == BOOK_SOURCE]


def _fixes_table(fixes: list[dict]) -> str:
    if not fixes:
        return "No data fix was recorded for this export."
    grouped: dict[str, dict] = defaultdict(lambda: {"description": "", "langs": []})
    for f in fixes:
        g = grouped[f["name"]]
        g["description"] = g["description"] or f["description"]
        g["langs"].append((f["language"], f["count"], f.get("characters", 0)))
    rows = []
    for name in sorted(grouped):
        g = grouped[name]
        total = sum(c for _, c, _ in g["langs"])
        per_lang = ", ".join(f"{lang} {_num(c)}" for lang, c, _ in sorted(g["langs"]))
        removed = ", ".join(f"{lang} {_num(r)}" for lang, _, r in sorted(g["langs"]) if r) or "—"
        rows.append([f"`{name}`", g["description"], per_lang, _num(total), removed])
    return _table(["fix", "what", "count per language", "total", "characters removed"], rows)


def _tokenizer_lines(configs: dict[str, ConfigEntry]) -> str:
    seen: dict[tuple, set] = defaultdict(set)
    for name, e in configs.items():
        t = e.tokenizer
        seen[(t.alias, t.location, t.identity, t.fingerprint)].add(name)
    lines = []
    for (alias, location, identity, fp), names in sorted(seen.items()):
        lines.append(f"- `{alias}` = `{identity}` (spec `{location}`, fingerprint `{fp[:16]}…`): {len(names)} config(s)")
    return "\n".join(lines) if lines else "- (no configs yet)"


def _build_lines(manifest: Manifest) -> str:
    configs = manifest.configs
    seeds = sorted({e.seed for e in configs.values()})
    samples = sorted({e.samples for e in configs.values()})
    versions: dict[str, set] = defaultdict(set)
    for e in configs.values():
        for k, v in e.packages.items():
            versions[k].add(v)
    pkgs = ", ".join(f"{k} {'/'.join(sorted(v))}" for k, v in sorted(versions.items()))
    return "\n".join([
        f"- seed: {', '.join(map(str, seeds)) or 'n/a'}; examples per config: {', '.join(map(str, samples)) or 'n/a'}",
        f"- source files: {len(manifest.sources)}, each pinned by sha256 in `manifest.json`",
        f"- packages: {pkgs or 'n/a'}",
    ])


def _summary(configs: dict[str, ConfigEntry], langs: set[str]) -> str:
    tasks = {e.task for e in configs.values()}
    lengths = sorted({e.length for e in configs.values()})
    rows = sum(e.num_rows for e in configs.values())
    size = sum(e.size for e in configs.values())
    return (f"This export holds **{plural(len(configs), 'config')}** ({plural(rows, 'example')}, "
            f"{size / 1e6:.1f} MB of Parquet) "
            f"over {len(langs)} language(s), {len(tasks)} task(s) and lengths "
            f"{', '.join(render_length(n) for n in lengths) or '—'}.")


def _sweeps(configs: dict[str, ConfigEntry]) -> str:
    """Which position-controlled configs this export holds (fixed-depth, multi-evidence)."""
    depth = [n for n, e in configs.items() if parse_config_name(n, [e.tokenizer.alias]).depth is not None]
    evidence = sorted({e.task for e in configs.values() if MULTI_VALUE_TASK.fullmatch(e.task)},
                      key=lambda t: (get_task(t).num_values, t))
    if not depth and not evidence:
        return "This export holds no position-controlled config; build them with the commands below."
    parts = []
    if depth:
        depths = sorted({parse_config_name(n, [configs[n].tokenizer.alias]).depth for n in depth})
        parts.append(f"{_num(len(depth))} fixed-depth config(s) (depths {', '.join(f'{d}%' for d in depths)})")
    if evidence:
        tasks = ", ".join(f"`{t}` (reserve {get_task(t).reserve})" for t in evidence)
        parts.append(f"{_num(sum(e.task in evidence for e in configs.values()))} multi-evidence config(s): {tasks}")
    return "This export holds " + " and ".join(parts) + "."


def render_sections(manifest: Manifest, profile: CardProfile | None = None) -> dict[str, str]:
    """The generated pieces the template's ``{{ placeholders }}`` refer to."""
    configs, facts = manifest.configs, manifest.facts
    profile = profile or CardProfile.of(configs)
    names = sorted(configs)
    example = "pl_s_niah_128k" if "pl_s_niah_128k" in configs else (names[0] if names else "pl_s_niah_128k")
    present = export_languages(configs)
    families = profile.shown_families()
    books = ALL_LANGUAGES if profile.oneruler else profile.book_languages
    fixes = facts.get("fixes", []) if profile.oneruler else _book_fixes(facts.get("fixes", []), books)
    return {
        "summary": _summary(configs, present),
        "example_config": example,
        "family_lines": _family_lines(profile),
        "task_table": _task_table(profile),
        "field_table": _field_table(families),
        "language_table": _language_table(present, profile),
        "book_table": _book_table(facts.get("books", {}), books),
        "haystack_table": _haystack_table(facts.get("books", {}), books),
        "draws_table": _draws_table(facts.get("draws", {})),
        "cwe_table": _cwe_table(facts.get("books", {})),
        "config_stats_table": _config_stats_table(configs),
        "pool_shortfalls": _shortfalls(configs),
        "fixes_table": _fixes_table(fixes),
        "tokenizers": _tokenizer_lines(configs),
        "build_inputs": _build_lines(manifest),
        "num_configs": _num(len(configs)),
        "sweeps": _sweeps(configs),
        "leaderboards": leaderboards_section(configs, only_pooled=not profile.oneruler),
        "upstreams": upstreams_section(configs),
        "title": profile.title(PRETTY_NAME),
        "ruler_intro": ruler_intro(configs, profile) if profile.ruler else "",
        "ruler_grids": ruler_grids(configs),
        "ruler_deviations": ruler_deviations(configs),
        "translations": translation_lines(configs),
    }


def card_template() -> str:
    """The text of ``dataset_card.md``, shipped with the package (``base/resources.py``)."""
    path = shipped_path(CARD_TEMPLATE)
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise OneRulerError(f"card template {path} is missing: {REINSTALL}") from None


def render_card(manifest: Manifest, template: str | None = None) -> str:
    """The card body: the template's blocks kept by what the export holds, every ``{{ name }}`` replaced (an
    unknown name or flag is an error)."""
    template = card_template() if template is None else template
    profile = CardProfile.of(manifest.configs)
    return fill_template(template, profile.flags(), render_sections(manifest, profile), CARD_TEMPLATE)


def render_readme(manifest: Manifest) -> str:
    """The full ``README.md``: ``---`` YAML front matter ``---`` then the card."""
    return f"---\n{front_matter_yaml(manifest)}---\n\n{render_card(manifest).lstrip()}"
