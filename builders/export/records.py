"""The records of ``manifest.json``, typed: what a config was built from, its shard, its statistics.

Each record has one writer (``to_json``) and one reader (``from_json``); the JSON they make is the
manifest's format, key for key (``manifest.py`` dumps it canonically). A manifest that lacks a
field a record needs is named with the field in one error line.
"""

from __future__ import annotations

import statistics
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ..base.errors import OneRulerError
from ..spec.tasks import family_of
from .layout import MANIFEST_FORMAT


def _require(doc: Any, keys: tuple[str, ...], where: str) -> dict:
    if not isinstance(doc, dict):
        raise OneRulerError(f"manifest.json: {where} is not an object")
    absent = [k for k in keys if k not in doc]
    if absent:
        raise OneRulerError(f"manifest.json: {where} lacks {', '.join(absent)}; rebuild the export with `oneruler build`")
    return doc


@dataclass(frozen=True)
class TokenizerRecord:
    """The tokenizer a config was built with: enough to load it again and to know it is the same one."""

    alias: str
    library: str  # tiktoken or huggingface, recorded under "kind"
    location: str  # recorded under "spec" (the --tokenizer ALIAS=SPEC of the build)
    identity: str
    fingerprint: str

    @classmethod
    def from_json(cls, doc: Any, where: str = "tokenizer") -> TokenizerRecord:
        """Read the manifest's tokenizer object (``kind`` and ``spec`` may be absent in hand-made ones)."""
        doc = _require(doc, ("alias", "identity", "fingerprint"), where)
        return cls(doc["alias"], doc.get("kind", ""), doc.get("spec", ""), doc["identity"], doc["fingerprint"])

    def to_json(self) -> dict:
        """The manifest's tokenizer object."""
        return {"alias": self.alias, "kind": self.library, "spec": self.location, "identity": self.identity,
                "fingerprint": self.fingerprint}

    def same_tokenizer(self, other: TokenizerRecord) -> bool:
        """Same alias, identity and fingerprint (the location may be spelled differently)."""
        return (self.alias, self.identity, self.fingerprint) == (other.alias, other.identity, other.fingerprint)


_LEGACY_POOL = {"cwe_pool_size": "pool_size", "cwe_pool_exhausted": "pool_exhausted",
                "cwe_shortfall_tokens_max": "pool_shortfall_tokens_max"}


@dataclass(frozen=True)
class ShardStats:
    """What the card states about one config's rows (the pool fields only for the rows of a family whose context
    draws from a finite pool: CWE's words, XQuAD's paragraphs; ``spec/family.py:PoolFields``)."""

    num_examples: int
    num_tokens_min: int
    num_tokens_median: int
    num_tokens_max: int
    arrow_bytes: int = 0
    task: str | None = None
    context_language: str | None = None
    instruction_language: str | None = None
    length: int | None = None
    tokenizer: str | None = None
    budget: int | None = None
    pool_size: int | None = None
    pool_what: str | None = None  # "word pool"
    pool_unit: str | None = None  # "words"
    pool_exhausted: int | None = None
    pool_shortfall_tokens_max: int | None = None
    # RULER's configs: rows each countable deviation from RULER touched (export/ruler_deviations.py), set at build
    deviations: dict[str, int] | None = None

    @classmethod
    def of_rows(cls, rows_seen: list[dict], arrow_bytes: int) -> ShardStats:
        """The statistics of a config from the light fields of every row."""
        toks = [r["num_tokens"] for r in rows_seen]
        counts = dict(num_examples=len(rows_seen), num_tokens_min=min(toks, default=0),
                      num_tokens_median=statistics.median_low(toks) if toks else 0,
                      num_tokens_max=max(toks, default=0), arrow_bytes=arrow_bytes)
        if not rows_seen:
            return cls(**counts)
        first = rows_seen[0]
        described = {k: first[k] for k in ("task", "context_language", "instruction_language", "length",
                                            "tokenizer", "budget")}
        pool = family_of(first["task"]).pool
        if pool is not None:  # the rows of a family with a finite pool (its row fields)
            short = [r for r in rows_seen if r[pool.exhausted]]
            described.update(pool_size=first[pool.size], pool_what=pool.what, pool_unit=pool.unit,
                             pool_exhausted=len(short),
                             pool_shortfall_tokens_max=max((r["budget"] - r["num_tokens"] for r in short), default=0))
        return cls(**counts, **described)

    @classmethod
    def from_json(cls, doc: Any, where: str = "stats") -> ShardStats:
        """Read a manifest entry's ``stats`` object."""
        doc = _require(doc, ("num_examples", "num_tokens_min", "num_tokens_median", "num_tokens_max"), where)
        if "cwe_pool_size" in doc:  # written before 0.3.0's pool fields: a CWE word pool
            doc = {**{_LEGACY_POOL.get(k, k): v for k, v in doc.items()}, "pool_what": "word pool", "pool_unit": "words"}
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in doc.items() if k in known})

    def to_json(self) -> dict:
        """The manifest's ``stats`` object (absent fields left out, as before they were typed)."""
        return {k: v for k, v in asdict(self).items() if v is not None}


def _digest(translation: dict | None) -> str | None:
    """The sha256 a translation record holds (None: no translation)."""
    return None if translation is None else translation.get("sha256")


_INPUT_KEYS = ("seed", "samples", "tokenizer", "task", "context_language", "instruction_language", "length")


@dataclass(frozen=True)
class ConfigInputs:
    """What identifies how a config's rows were made, compared before a shard is reused."""

    seed: int
    samples: int
    tokenizer: TokenizerRecord
    task: str
    context_language: str
    instruction_language: str
    length: int
    packages: dict[str, str] = field(default_factory=dict)
    generator: str | None = None
    # The native translation a RULER config's instructions come from (``TranslationRecord.to_json``); None: RULER's
    # English (or a task no translation applies to). Recorded only when present.
    translation: dict | None = None

    def built_as(self, entry: ConfigEntry | None) -> bool:
        """Whether ``entry`` was built from these inputs: seed, samples, tokenizer, oneruler version and
        generator code (the shard itself is not checked)."""
        if entry is None:
            return False
        return ((entry.seed, entry.samples) == (self.seed, self.samples)
                and entry.tokenizer.same_tokenizer(self.tokenizer)
                and entry.packages.get("oneruler") == self.packages.get("oneruler")
                and entry.generator == self.generator
                and _digest(entry.translation) == _digest(self.translation))

    def to_json(self) -> dict:
        """The input fields of a manifest entry."""
        doc = {f.name: getattr(self, f.name) for f in fields(ConfigInputs)}
        doc["tokenizer"] = self.tokenizer.to_json()
        if self.translation is None:
            del doc["translation"]
        return doc


@dataclass(frozen=True)
class ConfigEntry(ConfigInputs):
    """One config of an export: its inputs, its shard (path, size, sha256) and its statistics."""

    file: str = ""
    sha256: str = ""
    size: int = 0
    num_rows: int = 0
    stats: ShardStats | None = None

    @classmethod
    def built(cls, inputs: ConfigInputs, file: str, sha256: str, size: int, num_rows: int,
              stats: ShardStats) -> ConfigEntry:
        """The entry of a config built from ``inputs`` into a shard."""
        given = {f.name: getattr(inputs, f.name) for f in fields(ConfigInputs)}
        return cls(**given, file=file, sha256=sha256, size=size, num_rows=num_rows, stats=stats)

    @classmethod
    def from_json(cls, doc: Any, where: str) -> ConfigEntry:
        """Read one entry of the manifest's ``configs``."""
        doc = _require(doc, _INPUT_KEYS + ("file", "sha256", "size", "num_rows", "stats"), where)
        return cls(seed=doc["seed"], samples=doc["samples"],
                   tokenizer=TokenizerRecord.from_json(doc["tokenizer"], f"{where}.tokenizer"),
                   task=doc["task"], context_language=doc["context_language"],
                   instruction_language=doc["instruction_language"], length=doc["length"],
                   packages=doc.get("packages", {}), generator=doc.get("generator"),
                   translation=doc.get("translation"),
                   file=doc["file"], sha256=doc["sha256"], size=doc["size"], num_rows=doc["num_rows"],
                   stats=ShardStats.from_json(doc["stats"], f"{where}.stats"))

    def to_json(self) -> dict:
        """The manifest entry, key for key."""
        doc = super().to_json()
        doc.update(file=self.file, sha256=self.sha256, size=self.size, num_rows=self.num_rows,
                   stats=self.stats.to_json() if self.stats is not None else {})
        return doc


# Card facts (data fixes, book measurements, redraw counts) are computed in cardfacts.py and kept
# as JSON: the card is their only reader and they are compared whole by ``verify``.
CARD_FACT_KEYS: tuple[str, ...] = ("fixes", "books", "draws")


@dataclass
class Manifest:
    """An export's ``manifest.json``: the source files, the card facts and every config's entry."""

    sources: dict[str, str] = field(default_factory=dict)
    configs: dict[str, ConfigEntry] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=lambda: {"fixes": [], "books": {}})
    format: str = MANIFEST_FORMAT

    @classmethod
    def from_json(cls, doc: dict) -> Manifest:
        """Read a parsed ``manifest.json`` (its format already checked)."""
        configs = doc.get("configs", {})
        if not isinstance(configs, dict):
            raise OneRulerError("manifest.json: configs is not an object")
        facts = {"fixes": [], "books": {}} | {k: doc[k] for k in CARD_FACT_KEYS if k in doc}
        return cls(sources=dict(doc.get("sources", {})),
                   configs={name: ConfigEntry.from_json(e, f"configs.{name}") for name, e in configs.items()},
                   facts=facts, format=doc.get("format", MANIFEST_FORMAT))

    def to_json(self) -> dict:
        """The JSON object (configs in name order)."""
        return {"format": self.format, "sources": self.sources, **self.facts,
                "configs": {k: self.configs[k].to_json() for k in sorted(self.configs)}}

    def with_configs(self, staged: dict[str, ConfigEntry]) -> Manifest:
        """A copy holding ``staged`` in addition to (or instead of) the configs of the same name."""
        return Manifest(dict(self.sources), {**self.configs, **staged}, dict(self.facts), self.format)
