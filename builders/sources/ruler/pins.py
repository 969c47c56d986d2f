"""The committed manifests of RULER's inputs (``raw/ruler/*.json``, shipped with the package).

One manifest per upstream: ``ruler`` (NVIDIA/RULER: templates, task settings, metric, the LFS word
list), ``paul_graham_essays`` (the 49 essays), ``xquad`` (12 languages), ``squad`` (SQuAD v2.0 dev),
``hotpotqa`` (HotpotQA dev distractor, with RULER's fallback copy as an alternate) and ``nltk_punkt``
(NLTK's Punkt parameters). Each names its upstream, commit (``None`` where the upstream serves a
branch or a website and the digest is the pin), licence and base URL; each file its path in that
upstream (and so in a mirror folder laid out like it), size, sha256, kind, language, licence, where
its digest is published (``digest_source``) and whether the bytes were checked on the machines that
built the project (``verified_here``). ``scripts/make_ruler_manifests.py`` writes and checks them.
"""

from __future__ import annotations

import json
import re
import urllib.parse
from dataclasses import dataclass

from ...base.errors import SourceError
from ...base.resources import REINSTALL, RULER_MANIFESTS, shipped_path
from ..manifest import Alternate, SourceFile, load_manifest

PINNED_UPSTREAMS: tuple[str, ...] = ("ruler", "paul_graham_essays", "xquad", "squad", "hotpotqa", "nltk_punkt")
# Upstreams whose texts no licence covers (the essays are Paul Graham's writing): `push` warns before publishing them.
NOT_LICENSED: tuple[str, ...] = ("paul_graham_essays",)
# ``oneruler fetch --sources``: which pinned files each choice fetches.
SOURCE_GROUPS: tuple[str, ...] = ("oneruler", "ruler", "all")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_FILE_KEYS = {"path", "sha256", "size", "kind", "language", "licence", "digest_source", "verified_here"}
_OPTIONAL_FILE_KEYS = {"urls", "alternates"}
_DOC_KEYS = {"name", "title", "description", "upstream", "commit", "licence", "base_url", "files"}
# A pinned file and its verified bytes: what every parser of RULER's inputs takes.
Fetched = tuple[SourceFile, bytes]


@dataclass(frozen=True)
class PinnedUpstream:
    """One upstream of RULER's inputs: where it is, its pin and licence, and its pinned files."""

    name: str
    title: str
    description: str
    upstream: str
    commit: str | None
    licence: str
    base_url: str
    files: tuple[SourceFile, ...]


def _fail(where: str, problem: str) -> SourceError:
    return SourceError(f"manifest {where}: {problem}; {REINSTALL}")


def _pin(item: dict, where: str) -> tuple[str, int]:
    sha, size = item.get("sha256"), item.get("size")
    if not (isinstance(sha, str) and _SHA256.fullmatch(sha)) or not (isinstance(size, int) and size > 0):
        raise _fail(where, f"{item.get('path', 'an alternate')!r} has no valid sha256 and size")
    return sha, size


def _alternate(item: dict, where: str) -> Alternate:
    sha, size = _pin(item, where)
    urls = item.get("urls")
    if not (isinstance(urls, list) and urls and all(isinstance(u, str) for u in urls)):
        raise _fail(where, "an alternate lacks its urls")
    return Alternate(sha, size, tuple(urls), str(item.get("digest_source", "")))


def _file(item: dict, doc: dict, where: str) -> SourceFile:
    keys = set(item)
    if not _FILE_KEYS <= keys or keys - _FILE_KEYS - _OPTIONAL_FILE_KEYS:
        raise _fail(where, f"a file entry has keys {sorted(keys)}; expected {sorted(_FILE_KEYS)} "
                           f"(and optionally {sorted(_OPTIONAL_FILE_KEYS)})")
    sha, size = _pin(item, where)
    path = item["path"]
    urls = tuple(item.get("urls") or (doc["base_url"] + urllib.parse.quote(path),))
    facts = {"upstream": doc["upstream"], "commit": doc["commit"], "manifest": doc["name"],
             "digest_source": item["digest_source"], "verified_here": bool(item["verified_here"])}
    return SourceFile(path, sha, size, item["kind"], item["language"], item["licence"], facts, urls,
                      tuple(_alternate(a, where) for a in item.get("alternates", ())))


def load_pinned(name: str) -> PinnedUpstream:
    """One upstream's manifest (``name``: one of ``PINNED_UPSTREAMS``), checked."""
    if name not in PINNED_UPSTREAMS:
        raise SourceError(f"no pinned upstream {name!r}; known: {', '.join(PINNED_UPSTREAMS)}")
    path = shipped_path(RULER_MANIFESTS) / f"{name}.json"
    where = str(path)
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SourceError(f"manifest {path} is missing: {REINSTALL}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise _fail(where, f"not valid JSON ({exc})") from None
    if not isinstance(doc, dict) or set(doc) != _DOC_KEYS or doc["name"] != name:
        raise _fail(where, f"expected the keys {sorted(_DOC_KEYS)} and name {name!r}")
    if not isinstance(doc["files"], list) or not doc["files"]:
        raise _fail(where, "lists no files")
    files = tuple(_file(item, doc, where) for item in doc["files"])
    return PinnedUpstream(doc["name"], doc["title"], doc["description"], doc["upstream"], doc["commit"],
                          doc["licence"], doc["base_url"], files)


def ruler_manifest() -> list[SourceFile]:
    """Every pinned input of RULER's tasks, in manifest order (ruler, essays, xquad, squad, hotpotqa, punkt)."""
    return [entry for name in PINNED_UPSTREAMS for entry in load_pinned(name).files]


def source_group(group: str) -> list[SourceFile]:
    """The pinned files of a ``SOURCE_GROUPS`` choice: ONERULER's 104, RULER's inputs, or both."""
    if group not in SOURCE_GROUPS:
        raise SourceError(f"unknown source group {group!r}; valid: {', '.join(SOURCE_GROUPS)}")
    return (load_manifest() if group != "ruler" else []) + (ruler_manifest() if group != "oneruler" else [])


def entries_of_role(entries: list[SourceFile], role: str, language: str | None = None) -> list[SourceFile]:
    """The entries of one role (and language), in manifest order; none is an error naming the role."""
    found = [e for e in entries if e.role == role and (language is None or e.language == language)]
    if not found:
        of = f" for language {language!r}" if language is not None else ""
        raise SourceError(f"no pinned {role} source{of} in the manifest")
    return found
