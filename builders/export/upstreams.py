"""The third-party upstreams an export's rows are made from beyond ONERULER's release (RULER's files, Paul Graham's
essays, NLTK's Punkt, the QA sets): the card's credits and licences (``upstreams_section``) and the warning
``push`` gives before publishing texts no licence covers (``unlicensed_warning``). Which upstreams a task reads is
its family record's (``TaskFamily.upstreams_of``); what each is, its pin and licence, its pinned manifest's
(``raw/ruler/*.json``)."""

from __future__ import annotations

from typing import Iterable

from ..base.text import plural
from ..sources.ruler.pins import NOT_LICENSED, PINNED_UPSTREAMS, load_pinned
from ..spec.tasks import family_of
from .records import ConfigEntry

SHOWN_CONFIGS = 3  # config names a line lists before "…"
# The Hub's licence id of each pinned upstream's texts (the card's front matter; "other": the essays, licensed by no
# one); ONERULER's release is MIT.
HUB_LICENCES = {"ruler": "apache-2.0", "paul_graham_essays": "other", "xquad": "cc-by-sa-4.0",
                "squad": "cc-by-sa-4.0", "hotpotqa": "cc-by-sa-4.0", "nltk_punkt": "mit"}
ONERULER_LICENCE = "mit"


def export_upstreams(configs: dict[str, ConfigEntry]) -> dict[str, list[str]]:
    """Upstream name → the export's configs made from it (sorted), in the pinned upstreams' order."""
    users: dict[str, list[str]] = {}
    for name in sorted(configs):
        for upstream in family_of(configs[name].task).upstreams_of(configs[name].task):
            users.setdefault(upstream, []).append(name)
    return {u: users[u] for u in PINNED_UPSTREAMS if u in users}


def upstream_pins(tasks: Iterable[str]) -> dict[str, str]:
    """Path → pinned sha256 of every file of the upstreams these tasks read (what manifest.json records beside
    ONERULER's sources; none for ONERULER's own tasks)."""
    used = {u for task in set(tasks) for u in family_of(task).upstreams_of(task)}
    return {f.path: f.sha256 for u in PINNED_UPSTREAMS if u in used for f in load_pinned(u).files}


def used_sources(sources: dict[str, str], tasks: Iterable[str]) -> dict[str, str]:
    """``sources`` without the pins of the third-party upstreams none of these tasks read (a config that failed to
    build); ONERULER's sources are kept."""
    pinned = {f.path for u in PINNED_UPSTREAMS for f in load_pinned(u).files}
    used = upstream_pins(tasks)
    return {p: h for p, h in sources.items() if p not in pinned or p in used}


def hub_licences(configs: dict[str, ConfigEntry], oneruler: bool) -> str | list[str]:
    """The front matter's ``license``: ONERULER's MIT when its configs alone are here (``oneruler``: a config of its
    families is), else every licence the rows' inputs carry, sorted."""
    ids = {HUB_LICENCES[u] for u in export_upstreams(configs)} | ({ONERULER_LICENCE} if oneruler else set())
    return ONERULER_LICENCE if ids <= {ONERULER_LICENCE} else sorted(ids)


def _names(configs: list[str]) -> str:
    shown = ", ".join(f"`{n}`" for n in configs[:SHOWN_CONFIGS])
    return shown + (", …" if len(configs) > SHOWN_CONFIGS else "")


def upstreams_section(configs: dict[str, ConfigEntry]) -> str:
    """The card's lines on the upstreams of this export's rows: each with its pin, licence and configs."""
    users = export_upstreams(configs)
    if not users:
        return "This export holds no config made from RULER's or other third-party inputs."
    lines = []
    for upstream, names in users.items():
        pinned = load_pinned(upstream)
        pin = f"@`{pinned.commit[:7]}`" if pinned.commit else " (pinned by sha256)"
        line = (f"- **{pinned.title}** ([{pinned.upstream}]({pinned.upstream}){pin}): {pinned.licence}. "
                f"Used by {plural(len(names), 'config')}: {_names(names)}.")
        if upstream in NOT_LICENSED:
            line += (" **These essays are Paul Graham's writing: neither this project nor the repository that "
                     "collects them licenses them, and this dataset's licence does not cover them; redistribute "
                     "them only where you may.**")
        lines.append(line)
    return "\n".join(lines)


def unlicensed_warning(configs: dict[str, ConfigEntry]) -> str | None:
    """One line warning that the export holds texts no licence covers (Paul Graham's essays), or None."""
    users = export_upstreams(configs)
    held = [u for u in NOT_LICENSED if u in users]
    if not held:
        return None
    names = sorted({n for u in held for n in users[u]})
    verb = "holds" if len(names) == 1 else "hold"
    return (f"warning: {plural(len(names), 'config')} ({_names(names).replace('`', '')}) {verb} Paul Graham's "
            f"essays as haystacks: his writing, licensed neither by this project nor by the repository that collects "
            f"them; publish them only where you may (the card says so)")
