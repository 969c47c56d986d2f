"""What a config's rows depend on besides (config, seed, samples): sources, tokenizers, generator code.

``BuildInputs`` loads them once per process; ``generator_fingerprint`` hashes an explicit list of
the modules that shape rows, so a change there forces a rebuild and a change elsewhere does not.
"""

from __future__ import annotations

import functools
import json
from importlib import metadata
from pathlib import Path
from typing import Iterator

from ..base.files import atomic_write_bytes, sha256_bytes
from ..generate.rows import RowGenerator
from ..generate.tokenizer import TokenizerRegistry
from ..sources.fetch import default_cache_dir
from ..sources.manifest import load_manifest
from ..sources.store import load_sources
from ..spec.configs import ConfigSpec

PACKAGES = ("oneruler", "datasets", "pyarrow", "tiktoken", "tokenizers", "wonderwords", "sentencex")
PACKAGE_ROOT = Path(__file__).resolve().parents[1]

# The modules whose code decides the bytes of a shard (paths below builders/).
GENERATOR_MODULES: tuple[str, ...] = (
    "spec/configs.py", "spec/defaults.py", "spec/languages.py", "spec/schema.py", "spec/tasks.py",
    "sources/books.py", "sources/parse.py", "sources/store.py",
    "generate/bookcount.py", "generate/budget.py", "generate/counting.py", "generate/cwe.py", "generate/niah.py",
    "generate/prepared.py", "generate/rng.py", "generate/rows.py", "generate/segment.py", "generate/tokenizer.py",
    "export/shard.py",
)
# The modules whose code decides the card facts (data fixes, measured books).
CARD_FACT_MODULES: tuple[str, ...] = ("sources/books.py", "sources/parse.py", "sources/store.py", "export/inputs.py")


def package_versions() -> dict[str, str]:
    """Versions of the packages whose behaviour determines the bytes of a build."""
    out = {}
    for name in PACKAGES:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "not installed"
    return out


def modules_hash(modules: tuple[str, ...]) -> str:
    """sha256 over the names and sources of the given modules (paths below builders/)."""
    parts = [name.encode() + b"\0" + (PACKAGE_ROOT / name).read_bytes() + b"\0" for name in modules]
    return sha256_bytes(b"".join(parts))


@functools.lru_cache(maxsize=1)
def generator_fingerprint() -> str:
    """sha256 over the source of every module in GENERATOR_MODULES."""
    return modules_hash(GENERATOR_MODULES)


class BuildInputs:
    """Sources, tokenizers and a row generator, loaded once per process."""

    def __init__(self, mirror: str | None = None, cache_dir: str | None = None,
                 tokenizer_specs: dict[str, str] | None = None, full_count: bool = False):
        self.mirror = mirror
        self.cache_dir = cache_dir
        self.tokenizer_specs = dict(tokenizer_specs or {})
        self.full_count = full_count  # tokenise every candidate prompt whole (same rows, slower)
        self.sources = load_sources(mirror, cache_dir)
        self.tokenizers = TokenizerRegistry(self.tokenizer_specs)
        self.generator = RowGenerator(self.sources, self.tokenizers, full_count)

    def tokenizer_record(self, alias: str) -> dict:
        """What the manifest records about the tokenizer behind ``alias``."""
        return self.tokenizers.get(alias).describe()

    def rows(self, spec: ConfigSpec, samples: int, seed: int) -> Iterator[dict]:
        """The rows of one config, in index order."""
        return self.generator.rows(spec, samples, seed)

    def expected_entry(self, spec: ConfigSpec, samples: int, seed: int, versions: dict) -> dict:
        """The manifest fields that record a config's inputs (file fields are added once built)."""
        return {"seed": seed, "samples": samples, "tokenizer": self.tokenizer_record(spec.alias),
                "task": spec.task, "context_language": spec.context_language,
                "instruction_language": spec.instruction_language, "length": spec.length,
                "packages": versions, "generator": generator_fingerprint()}

    def card_facts(self) -> tuple[list[dict], dict]:
        """(data fixes, measured books) for the card, cached on disk beside the sources.

        Computing them loads and tokenises all 26 books (~10 s); the cache key covers the source
        hashes, the cl100k fingerprint, the oneruler version and the code that cleans the sources.
        """
        key = sha256_bytes(json.dumps(
            [self.sources.file_hashes, self.tokenizers.get("cl100k").fingerprint, package_versions()["oneruler"],
             modules_hash(CARD_FACT_MODULES)], sort_keys=True).encode())
        path = Path(self.cache_dir or default_cache_dir()) / "card-facts" / f"{key}.json"
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            return doc["fixes"], doc["books"]
        except (OSError, ValueError, KeyError):
            pass
        fixes, books = self.fixes(), self.books()
        try:
            atomic_write_bytes(path, json.dumps({"fixes": fixes, "books": books}, sort_keys=True).encode("utf-8"))
        except OSError:
            pass  # a read-only cache only costs time
        return fixes, books

    def fixes(self) -> list[dict]:
        """The data fixes applied to the sources (for the card), in a canonical order."""
        out = [{"name": f.name, "language": f.language, "count": int(f.count), "description": f.description}
               for f in self.sources.fixes]
        return sorted(out, key=lambda f: (f["name"], f["language"]))

    def books(self) -> dict:
        """Per language: the book's source path, sha256 and measured cl100k tokens of the cleaned text."""
        cl100k = self.tokenizers.get("cl100k")
        out = {}
        for entry in load_manifest():
            if entry.kind != "book":
                continue
            text = self.sources.book_text(entry.language)
            out[entry.language] = {"path": entry.path, "sha256": entry.sha256, "tokenizer": cl100k.identity,
                                   "characters": len(text), "tokens": cl100k.count(text)}
        return dict(sorted(out.items()))
