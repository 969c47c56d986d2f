"""What a config's rows depend on besides (config, seed, samples): sources, tokenizers, generator code.

``BuildInputs`` loads them when made (a build, a verify, lm-eval's generated rows; each worker
process of a build makes its own from an ``InputsRecipe``); ``generator_fingerprint`` hashes an
explicit list of the modules that shape rows, so a change there forces a rebuild and a change
elsewhere does not.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterator

from ..base.files import atomic_write_bytes, sha256_bytes
from ..base.versions import package_versions as installed_versions
from .cardfacts import cwe_pool_facts, haystack_facts, key_draw_counts
from .records import CARD_FACT_KEYS, ConfigInputs, TokenizerRecord
from ..generate.rows import RowGenerator
from ..generate.tokenizer import TokenizerRegistry
from ..sources.fetch import default_cache_dir
from ..sources.manifest import load_manifest
from ..sources.store import load_sources
from ..spec.configs import ConfigSpec
from ..spec.defaults import BUILTIN_TOKENIZERS
from ..spec.tasks import family_of
from ..spec.translated import translation_record

PACKAGES = ("oneruler", "datasets", "pyarrow", "tiktoken", "tokenizers", "wonderwords", "sentencex")
PACKAGE_ROOT = Path(__file__).resolve().parents[1]

# Modules of spec/ that shape what a run writes, which configs a glob picks or what a report shows beside its rows
# (RULER's published results), not what a row holds: a change there must not invalidate every built export.
NOT_ROW_SHAPING: tuple[str, ...] = ("spec/prediction_line.py", "spec/run_meta.py", "spec/presets.py",
                                    "spec/selection.py", "spec/leaderboards.py", "spec/grids.py",
                                    "spec/ruler_published.py")


def _layer_modules(*layers: str) -> tuple[str, ...]:
    """Every module of the layers (sub-packages included, ``__init__`` files left out), as paths below builders/."""
    found = (p.relative_to(PACKAGE_ROOT).as_posix() for layer in layers for p in (PACKAGE_ROOT / layer).rglob("*.py"))
    return tuple(sorted(m for m in found if not m.endswith("__init__.py") and m not in NOT_ROW_SHAPING))


# The modules whose code decides the bytes of a shard (paths below builders/): every module of spec/ and generate/
# but those above (a new family's modules are in by being there), and the sources and shard code rows go through
# (RULER's parsers, sources/ruler/, among them), and what counts RULER's deviations into a config's stats.
GENERATOR_MODULES: tuple[str, ...] = (
    *_layer_modules("spec", "generate", "sources/ruler"),
    "sources/books.py", "sources/cleaner.py", "sources/parse.py", "sources/store.py", "sources/swahili.py",
    "export/records.py", "export/shard.py", "export/ruler_deviations.py",
)
# The modules whose code decides the card facts (data fixes, measured books, pools, draws).
CARD_FACT_MODULES: tuple[str, ...] = (
    "sources/books.py", "sources/cleaner.py", "sources/parse.py", "sources/store.py", "sources/swahili.py",
    "sources/upstream.py", "generate/segment.py", "generate/quotes.py", "generate/prepared.py", "generate/niah.py",
    "generate/cwe.py", "spec/languages.py", "spec/tasks.py", "spec/family.py", "spec/families/niah.py",
    "spec/families/cwe.py", "spec/configs.py", "export/inputs.py", "export/cardfacts.py",
)


def config_translation(task: str, instruction_language: str) -> dict | None:
    """The record of the native translation a config of ``task`` in ``instruction_language`` is built from (its file,
    sha256, translators, licence: ``spec/translated.py:translation_record``), None where it takes RULER's English or
    its task has no translation. Part of the config's inputs: a changed file makes it stale for build and verify."""
    return translation_record(family_of(task).language_rule(task).translated, instruction_language)


def package_versions() -> dict[str, str]:
    """Versions of the packages whose behaviour determines the bytes of a build."""
    return installed_versions(PACKAGES)


def modules_hash(modules: tuple[str, ...]) -> str:
    """sha256 over the names and sources of the given modules (paths below builders/)."""
    parts = [name.encode() + b"\0" + (PACKAGE_ROOT / name).read_bytes() + b"\0" for name in modules]
    return sha256_bytes(b"".join(parts))


def generator_fingerprint() -> str:
    """sha256 over the source of every module in GENERATOR_MODULES."""
    return modules_hash(GENERATOR_MODULES)


@dataclass(frozen=True)
class InputsRecipe:
    """What BuildInputs are made from, picklable: how a worker process makes the inputs of its parent."""

    mirror: str | None
    cache_dir: str | None
    tokenizer_locations: dict[str, str]
    full_count: bool = False

    def load(self) -> BuildInputs:
        """The inputs this recipe describes (sources and tokenizers loaded in this process)."""
        return BuildInputs(self.mirror, self.cache_dir, self.tokenizer_locations, self.full_count)


class BuildInputs:
    """Sources, tokenizers and a row generator, loaded when made and kept as long as the object: one per build
    (and per worker process of a build), per verify, per tokenizer set of an lm-eval process."""

    def __init__(self, mirror: str | None = None, cache_dir: str | None = None,
                 tokenizer_locations: dict[str, str] | None = None, full_count: bool = False):
        self.mirror = mirror
        self.cache_dir = cache_dir
        self.full_count = full_count  # tokenise every candidate prompt whole (same rows, slower)
        self.sources = load_sources(mirror, cache_dir)
        self.tokenizers = TokenizerRegistry(dict(tokenizer_locations or {}))
        self.generator = RowGenerator(self.sources, self.tokenizers, full_count)

    @property
    def tokenizer_locations(self) -> dict[str, str]:
        """Alias → location of every registered tokenizer that is not built in (what a worker process needs)."""
        return {a: s for a, s in self.tokenizers.locations().items() if a not in BUILTIN_TOKENIZERS}

    def recipe(self) -> InputsRecipe:
        """How another process makes the same inputs."""
        return InputsRecipe(self.mirror, self.cache_dir, self.tokenizer_locations, self.full_count)

    def tokenizer_record(self, alias: str) -> TokenizerRecord:
        """What the manifest records about the tokenizer behind ``alias``."""
        return TokenizerRecord(**self.tokenizers.get(alias).describe())

    def rows(self, spec: ConfigSpec, samples: int, seed: int) -> Iterator[dict]:
        """The rows of one config, in index order."""
        return self.generator.rows(spec, samples, seed)

    @cached_property
    def generator_fingerprint(self) -> str:
        """``generator_fingerprint()`` of the code these inputs build with, hashed once."""
        return generator_fingerprint()

    def config_inputs(self, spec: ConfigSpec, samples: int, seed: int, versions: dict) -> ConfigInputs:
        """What the manifest records of a config's inputs (its shard is added once built), the translation its
        instructions come from among them."""
        return ConfigInputs(seed, samples, self.tokenizer_record(spec.alias), spec.task, spec.context_language,
                            spec.instruction_language, spec.length, versions, self.generator_fingerprint,
                            config_translation(spec.task, spec.instruction_language))

    def card_facts(self) -> dict:
        """The facts the card states, cached on disk beside the sources: ``fixes`` (data fixes),
        ``books`` (per language: the cleaned book measured in cl100k and o200k, its haystack's
        sentence boundaries outside quotations, CWE pool sizes and reachable lengths here and under
        upstream's rules) and ``draws`` (the distinct-key rule's redraws over the standard grid).

        Computing them loads, segments and tokenises all 26 books (~30 s); the cache key covers the
        source hashes, the built-in tokenizers and tiktoken's version, the oneruler version and the code
        behind the facts.
        """
        # tiktoken pins the sha256 of every rank file it loads, so (encoding name, tiktoken version)
        # names the card's tokenizers without loading them: a token-control build never pays for it.
        versions = installed_versions(("oneruler", "tiktoken"))
        key = sha256_bytes(json.dumps(
            [self.sources.file_hashes, BUILTIN_TOKENIZERS, versions, modules_hash(CARD_FACT_MODULES)],
            sort_keys=True).encode())
        path = Path(self.cache_dir or default_cache_dir()) / "card-facts" / f"{key}.json"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if set(doc) == set(CARD_FACT_KEYS):
                return doc
        except (OSError, ValueError):
            pass
        doc = {"fixes": self.fixes(), "books": self.books(), "draws": key_draw_counts(self.sources)}
        try:
            atomic_write_bytes(path, json.dumps(doc, sort_keys=True).encode("utf-8"))
        except OSError:
            pass  # a read-only cache only costs time
        return doc

    def fixes(self) -> list[dict]:
        """The data fixes applied to the sources (for the card), in a canonical order."""
        out = [{"name": f.name, "language": f.language, "source": f.source, "count": int(f.count),
                "characters": int(f.characters), "description": f.description} for f in self.sources.fixes]
        return sorted(out, key=lambda f: (f["name"], f["language"]))

    def books(self) -> dict:
        """Per language: the book's source path, sha256, measured tokens of the cleaned text (cl100k,
        o200k) and of the released file (cl100k), haystack boundary safety, and CWE pool facts."""
        cl100k, o200k = self.tokenizers.get("cl100k"), self.tokenizers.get("o200k")
        entries = [e for e in load_manifest() if e.role == "book"]
        prepared = self.generator.prepared
        out = {}
        for entry in entries:
            text = self.sources.book_text(entry.language)
            out[entry.language] = {
                "path": entry.path, "sha256": entry.sha256, "tokenizer": cl100k.identity, "characters": len(text),
                "tokens": cl100k.count(text), "o200k_tokens": o200k.count(text),
                "released_tokens": cl100k.count(self.sources.released_book_text(entry.language)),
                **haystack_facts(prepared, entry.language),
                **cwe_pool_facts(self.sources, prepared, cl100k, entry.language),
            }
        return dict(sorted(out.items()))
