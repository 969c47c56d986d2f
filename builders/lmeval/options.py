"""What an lm-eval run asks of a ONERULER task: where its rows come from and how they are scored.

lm-eval hands a task's ``custom_dataset`` one dict: the task's YAML ``metadata``, the model's
``--model_args`` and the ``--metadata`` JSON, merged. From it:

- ``dataset`` (else ``$ONERULER_DATASET``): an exported folder or a Hub repo id to read rows from;
  with a ``tokenizer`` of the form ``ALIAS=SPEC`` the token-control config ``{config}_{ALIAS}``
  is read instead of ``{config}``.
- Without a dataset the rows are generated from the pinned sources (``$ONERULER_MIRROR``,
  ``$ONERULER_CACHE``), measured with: ``tokenizer`` (``ALIAS=SPEC``, a built-in alias such as
  ``cl100k``, or a tiktoken name / Hub id / local folder whose alias is derived from its name),
  else the model's own tokenizer (``pretrained``, as the hf and vllm back ends name the model),
  else cl100k (text-control, the export's rows). ``samples`` and ``data_seed`` change the
  generated set (defaults 50 and 42). ``seed`` is deliberately not read: back ends such as vllm
  take a ``seed`` model argument of their own.
- Scoring: ``strict``, ``keep_think``, ``answer_tag`` as the ``oneruler score`` flags.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from ..base.errors import OneRulerError
from ..generate.tokenizer import parse_tokenizer_option
from ..report.score.options import ScoringOptions
from ..spec.defaults import ALIAS_RE, BUILTIN_TOKENIZERS, RESERVED_ALIAS_RE, DEFAULT_ALIAS, DEFAULT_SAMPLES, DEFAULT_SEED

DATASET_ENV = "ONERULER_DATASET"
BOOL_KEYS = ("strict", "keep_think", "answer_tag")
INT_KEYS = {"samples": DEFAULT_SAMPLES, "data_seed": DEFAULT_SEED}
METADATA_TOKENIZER = "lm-eval metadata: tokenizer"  # how an error names the ``tokenizer`` key's ALIAS=SPEC


@dataclass(frozen=True)
class RowSource:
    """Where a task's rows come from: ``dataset`` (frozen rows) or generation with a tokenizer.

    ``alias``/``tokenizer_location``: the measuring tokenizer (``cl100k`` = text-control, the export's rows);
    in dataset mode ``alias`` only selects the config suffix.
    """

    dataset: str | None
    alias: str = DEFAULT_ALIAS
    tokenizer_location: str = BUILTIN_TOKENIZERS[DEFAULT_ALIAS]
    samples: int = DEFAULT_SAMPLES
    seed: int = DEFAULT_SEED

    @property
    def token_control(self) -> bool:
        """True when lengths are measured with another tokenizer than cl100k."""
        return self.alias != DEFAULT_ALIAS

    def config_name(self, config: str) -> str:
        """The config whose rows are read or generated (``{config}`` or ``{config}_{alias}``)."""
        return f"{config}_{self.alias}" if self.token_control else config

    def describe(self) -> str:
        """One line for the log: what the rows are."""
        if self.dataset:
            return f"rows read from dataset {self.dataset!r}"
        how = f"tokenizer {self.alias}={self.tokenizer_location}" if self.token_control else "cl100k (text-control)"
        return f"rows generated from the pinned sources, lengths measured with {how}"


def derived_alias(location: str) -> str:
    """A config-name suffix for a tokenizer location: its last path part, lower-cased, ``_`` → ``-``.

    ``meta-llama/Meta-Llama-3-8B`` → ``meta-llama-3-8b``; a built-in tiktoken name keeps its alias.
    """
    for alias, name in BUILTIN_TOKENIZERS.items():
        if location in (alias, name):
            return alias
    alias = re.sub(r"[^a-z0-9.\-]+", "-", PurePath(location.rstrip("/\\")).name.lower()).strip("-.")
    if RESERVED_ALIAS_RE.match(alias):  # ``at3-chat`` would read as a depth part: keep it an alias
        alias = f"tok-{alias}"
    if not alias or not ALIAS_RE.match(alias):
        raise OneRulerError(f"lm-eval metadata: cannot derive a tokenizer alias from {location!r}; "
                            f"pass \"tokenizer\": \"ALIAS=SPEC\"")
    return alias


def tokenizer_choice(meta: dict[str, Any]) -> tuple[str, str] | None:
    """(alias, location) asked for by ``tokenizer`` or the model's ``pretrained``; None: text-control."""
    for key in ("tokenizer", "pretrained"):
        value = meta.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise OneRulerError(f"lm-eval metadata: {key!r} must be a string like 'llama3=meta-llama/"
                                f"Meta-Llama-3-8B', got {value!r}")
        if "=" in value:
            return parse_tokenizer_option(value, METADATA_TOKENIZER)
        if value in BUILTIN_TOKENIZERS:
            return value, BUILTIN_TOKENIZERS[value]
        return derived_alias(value), value
    return None


def _int_option(meta: dict[str, Any], key: str) -> int:
    value = meta.get(key, INT_KEYS[key])
    if isinstance(value, bool) or not isinstance(value, int) or value < (1 if key == "samples" else 0):
        raise OneRulerError(f"lm-eval metadata: {key!r} must be a {'positive' if key == 'samples' else 'non-negative'} "
                            f"integer, got {value!r}")
    return value


def row_source(meta: dict[str, Any]) -> RowSource:
    """The ``RowSource`` of a run (dataset from the metadata, else ``$ONERULER_DATASET``)."""
    dataset = meta.get("dataset") or os.environ.get(DATASET_ENV) or None
    if dataset is not None and not isinstance(dataset, str):
        raise OneRulerError(f"lm-eval metadata: 'dataset' must be a folder or a Hub repo id, got {dataset!r}")
    if dataset:
        given = [k for k in INT_KEYS if k in meta]
        if given:
            raise OneRulerError(f"lm-eval metadata: {', '.join(given)} only apply to rows generated on the fly; "
                                f"dataset {dataset!r} has fixed rows (unset {DATASET_ENV} / 'dataset' to generate)")
        explicit = meta.get("tokenizer")
        if isinstance(explicit, str) and "=" in explicit:
            alias, location = parse_tokenizer_option(explicit, METADATA_TOKENIZER)
            return RowSource(dataset, alias, location)
        return RowSource(dataset)
    choice = tokenizer_choice(meta)
    alias, location = choice if choice else (DEFAULT_ALIAS, BUILTIN_TOKENIZERS[DEFAULT_ALIAS])
    if alias in BUILTIN_TOKENIZERS and location != BUILTIN_TOKENIZERS[alias]:
        raise OneRulerError(f"lm-eval metadata: tokenizer {alias}={location}: {alias!r} is the built-in alias for "
                            f"{BUILTIN_TOKENIZERS[alias]}; pick another alias")
    return RowSource(None, alias, location, _int_option(meta, "samples"), _int_option(meta, "data_seed"))


def scoring_options(meta: dict[str, Any]) -> ScoringOptions:
    """The scoring options (paper mode, think blocks stripped, unless the metadata says otherwise)."""
    flags = {}
    for key in BOOL_KEYS:
        value = meta.get(key, False)
        if not isinstance(value, bool):
            raise OneRulerError(f"lm-eval metadata: {key!r} must be true or false, got {value!r}")
        flags[key] = value
    return ScoringOptions(strict=flags["strict"], strip_think=not flags["keep_think"], answer_tag=flags["answer_tag"])
