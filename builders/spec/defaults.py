"""The one definition of every default and shared name the other layers agree on."""

from __future__ import annotations

import re

DEFAULT_SAMPLES = 50  # examples per config (paper)
DEFAULT_SEED = 42
SPLIT = "test"  # the only split of every config
# The accuracy (percent) the absolute effective context length must keep: RULER §3, Llama-2-7B's accuracy at 4K.
EFFECTIVE_LENGTH_THRESHOLD = 85.6

# Tokenizer aliases: the suffix of a token-control config name (``pl_s_niah_128k_llama3``).
ALIAS_RE = re.compile(r"^[a-z0-9][a-z0-9.\-]*$")
# ``at`` then a digit, '-' or '+' is the depth part of a fixed-depth config (``pl_s_niah_32k_at25``), never an alias.
RESERVED_ALIAS_RE = re.compile(r"^at[0-9+\-]")
ALIAS_RULE = "lower-case letters, digits, '.' or '-', not starting with 'at' + digit/'-'/'+' (the depth part)"
DEFAULT_ALIAS = "cl100k"  # text-control: lengths measured with tiktoken cl100k_base
BUILTIN_TOKENIZERS: dict[str, str] = {"cl100k": "cl100k_base", "o200k": "o200k_base"}
BUILTIN_ALIASES: tuple[str, ...] = tuple(BUILTIN_TOKENIZERS)


def valid_alias(alias: str) -> bool:
    """Whether ``alias`` may name a tokenizer (the suffix of a token-control config name)."""
    return bool(ALIAS_RE.match(alias)) and not RESERVED_ALIAS_RE.match(alias)
