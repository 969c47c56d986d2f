"""Where the rows of an evaluation task come from (``RowSource``): an export (a folder or a Hub repo) or the
generator, with which tokenizer, how many examples and which seed.

lm-eval hands a task's ``custom_dataset`` one dict: the task's YAML ``metadata``, the model's
``--model_args`` and the ``--metadata`` JSON, merged; the Inspect task makes the same keys of its
``-T`` options. From it (``row_source``):

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
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from ..base.errors import OneRulerError
from ..generate.tokenizer import parse_tokenizer_option
from ..spec.defaults import ALIAS_RE, BUILTIN_TOKENIZERS, DEFAULT_ALIAS, DEFAULT_SAMPLES, DEFAULT_SEED, RESERVED_ALIAS_RE

DATASET_ENV = "ONERULER_DATASET"
INT_KEYS = {"samples": DEFAULT_SAMPLES, "data_seed": DEFAULT_SEED}
LMEVAL_METADATA = "lm-eval metadata"  # whose keys an error names by default: lm-eval's metadata


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


def _said(where: str | None, text: str) -> str:
    """``text`` as an error of the reader ``where`` says it (``where: text``; None: as it is)."""
    return f"{where}: {text}" if where else text


def derived_alias(location: str, where: str | None = LMEVAL_METADATA) -> str:
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
        raise OneRulerError(_said(where, f"cannot derive a tokenizer alias from {location!r}; "
                                         f"pass \"tokenizer\": \"ALIAS=SPEC\""))
    return alias


def tokenizer_choice(meta: dict[str, Any], where: str | None = LMEVAL_METADATA) -> tuple[str, str] | None:
    """(alias, location) asked for by ``tokenizer`` or the model's ``pretrained``; None: text-control."""
    for key in ("tokenizer", "pretrained"):
        value = meta.get(key)
        if value is None or value == "":
            continue
        if not isinstance(value, str):
            raise OneRulerError(_said(where, f"{key!r} must be a string like 'llama3=meta-llama/"
                                             f"Meta-Llama-3-8B', got {value!r}"))
        if "=" in value:
            return parse_tokenizer_option(value, _said(where, "tokenizer"))
        if value in BUILTIN_TOKENIZERS:
            return value, BUILTIN_TOKENIZERS[value]
        return derived_alias(value, where), value
    return None


def _int_option(meta: dict[str, Any], key: str, where: str | None) -> int:
    value = meta.get(key, INT_KEYS[key])
    if isinstance(value, bool) or not isinstance(value, int) or value < (1 if key == "samples" else 0):
        raise OneRulerError(_said(where, f"{key!r} must be a {'positive' if key == 'samples' else 'non-negative'} "
                                         f"integer, got {value!r}"))
    return value


def row_source(meta: dict[str, Any], where: str | None = LMEVAL_METADATA) -> RowSource:
    """The ``RowSource`` of a run: ``meta`` holds lm-eval's metadata keys (``dataset``, else ``$ONERULER_DATASET``;
    ``tokenizer``, ``pretrained``, ``samples``, ``data_seed``); an error starts with ``where`` (None: nothing)."""
    dataset = meta.get("dataset") or os.environ.get(DATASET_ENV) or None
    if dataset is not None and not isinstance(dataset, str):
        raise OneRulerError(_said(where, f"'dataset' must be a folder or a Hub repo id, got {dataset!r}"))
    if dataset:
        given = [k for k in INT_KEYS if k in meta]
        if given:
            raise OneRulerError(_said(where, f"{', '.join(given)} only apply to rows generated on the fly; "
                                             f"dataset {dataset!r} has fixed rows (unset {DATASET_ENV} / 'dataset' to "
                                             f"generate)"))
        explicit = meta.get("tokenizer")
        if isinstance(explicit, str) and "=" in explicit:
            alias, location = parse_tokenizer_option(explicit, _said(where, "tokenizer"))
            return RowSource(dataset, alias, location)
        return RowSource(dataset)
    choice = tokenizer_choice(meta, where)
    alias, location = choice if choice else (DEFAULT_ALIAS, BUILTIN_TOKENIZERS[DEFAULT_ALIAS])
    if alias in BUILTIN_TOKENIZERS and location != BUILTIN_TOKENIZERS[alias]:
        raise OneRulerError(_said(where, f"tokenizer {alias}={location}: {alias!r} is the built-in alias for "
                                         f"{BUILTIN_TOKENIZERS[alias]}; pick another alias"))
    return RowSource(None, alias, location, _int_option(meta, "samples", where), _int_option(meta, "data_seed", where))
