"""One interface to count and encode text with tiktoken encodings or Hugging Face tokenizers.

Built-in aliases: ``cl100k`` (default; the text-control measure) and ``o200k``. Any other tiktoken
encoding by name, and any Hugging Face tokenizer by hub id or local folder/``tokenizer.json``, can be
registered under a short alias (``tokenizers={"llama3": PATH_OR_HUB_ID}``). Counts never include
special tokens (no BOS/EOS; special-token text is encoded as ordinary text).

A tokenizer's *location* is what finds it: a tiktoken encoding name, a local folder or
``tokenizer.json``, or a Hub id. The command line calls it SPEC (``--tokenizer ALIAS=SPEC``) and the
export manifest records it under ``"spec"``; in the code it is always ``location``.
"""

from __future__ import annotations

import hashlib
import re
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import Iterable, Mapping, Sequence

from ..base.errors import TokenizerError, named_setting
from ..base.files import sha256_file
from ..spec.defaults import ALIAS_RULE, BUILTIN_TOKENIZERS, valid_alias

_HUB_ID_RE = re.compile(r"^[A-Za-z0-9][\w.\-]*/[\w.\-]+$")


class Tokenizer:
    """Base class: subclasses implement ``identity``, ``encode_batch`` and ``_fingerprint``."""

    library = "abstract"  # which library tokenises (the manifest's "kind")

    def __init__(self, alias: str, location: str):
        self.alias = alias
        self.location = location

    @property
    def identity(self) -> str:
        """A machine-independent name of the measuring tokenizer (goes into every row)."""
        raise NotImplementedError

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` (no special tokens added)."""
        return self.encode_batch([text])[0]

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """The token ids of each text."""
        raise NotImplementedError

    def count(self, text: str) -> int:
        """Number of tokens of ``text`` (no special tokens added)."""
        return len(self.encode(text))

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        """The number of tokens of each text."""
        return [len(ids) for ids in self.encode_batch(list(texts))]

    @cached_property
    def fingerprint(self) -> str:
        """sha256 over the tokenizer's defining data (ranks/merges/vocab), to detect a different tokenizer."""
        return self._fingerprint()

    def _fingerprint(self) -> str:
        raise NotImplementedError

    def describe(self) -> dict:
        """What a manifest records to rebuild with the same tokenizer (the fields of ``export/records.py:TokenizerRecord``)."""
        return {"alias": self.alias, "library": self.library, "location": self.location, "identity": self.identity,
                "fingerprint": self.fingerprint}

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.alias}={self.location}>"


class TiktokenTokenizer(Tokenizer):
    """A tiktoken encoding (``encode_ordinary``: special-token text is plain text)."""

    library = "tiktoken"

    def __init__(self, alias: str, location: str):
        super().__init__(alias, location)
        import tiktoken

        try:
            self._enc = tiktoken.get_encoding(location)
        except ValueError as exc:
            raise TokenizerError(f"tokenizer {alias}={location}: {exc}") from None
        except Exception as exc:  # network failure while fetching the rank file
            raise TokenizerError(
                f"tokenizer {alias}={location}: cannot load the tiktoken rank file ({type(exc).__name__}); "
                f"offline? set TIKTOKEN_CACHE_DIR to a folder holding it (e.g. ../shared/tokenizers/tiktoken)"
            ) from None

    @property
    def identity(self) -> str:
        """The encoding's name (tiktoken pins its rank file by sha256)."""
        return self._enc.name

    @property
    def pattern(self) -> str:
        """The encoding's pre-tokenizer regex (what ``generate/counting.py`` analyses)."""
        return self._enc._pat_str

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text``, special-token text encoded as plain text."""
        return self._enc.encode_ordinary(text)

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """The token ids of each text (tiktoken's thread pool only for long texts)."""
        texts = list(texts)
        # tiktoken's batch call submits each text to a thread pool: worth it for long texts, while
        # for many short ones (sentences, words, list markers) the futures cost more than encoding.
        if sum(map(len, texts)) < 20_000 * len(texts):
            return [self._enc.encode_ordinary(t) for t in texts]
        return self._enc.encode_ordinary_batch(texts)

    def _fingerprint(self) -> str:
        h = hashlib.sha256()
        h.update(self._enc._pat_str.encode())
        ranks = sorted(self._enc._mergeable_ranks.items(), key=lambda kv: kv[1])
        h.update(b"".join(len(token).to_bytes(2, "big") + token + rank.to_bytes(4, "big") for token, rank in ranks))
        return h.hexdigest()


class HFTokenizer(Tokenizer):
    """A Hugging Face ``tokenizers`` tokenizer from a local folder/file or a hub id."""

    library = "huggingface"

    def __init__(self, alias: str, location: str):
        super().__init__(alias, location)
        # Only tokenizer.json (pure data) is loaded, through `tokenizers`: no remote code ever runs.
        from tokenizers import Tokenizer as RustTokenizer

        self._json_path: Path | None = None
        self.hub_id: str | None = None
        path = Path(location).expanduser()
        if path.exists():
            json_path = path / "tokenizer.json" if path.is_dir() else path
            if not json_path.is_file():
                raise TokenizerError(
                    f"tokenizer {alias}={location}: no tokenizer.json in that folder "
                    f"(slow/sentencepiece-only tokenizers: convert with transformers first)"
                )
            self._json_path = json_path
        elif _HUB_ID_RE.match(location):
            self.hub_id = location
            try:
                from huggingface_hub import hf_hub_download

                self._json_path = Path(hf_hub_download(location, "tokenizer.json"))
            except Exception as exc:
                raise TokenizerError(
                    f"tokenizer {alias}={location}: cannot get tokenizer.json from the Hugging Face Hub "
                    f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}); "
                    f"offline? pass a local folder instead"
                ) from None
        else:
            raise TokenizerError(
                f"tokenizer {alias}={location}: not a tiktoken encoding, an existing path, or a hub id (org/name)"
            )
        try:
            self._tok = RustTokenizer.from_file(str(self._json_path))
        except Exception as exc:
            raise TokenizerError(f"tokenizer {alias}={location}: {self._json_path} is not a valid tokenizer.json ({exc})") from None
        # Special-token text inside a prompt is plain text, as with tiktoken's encode_ordinary.
        self._tok.encode_special_tokens = True

    @property
    def identity(self) -> str:
        """The Hub id (else ``tokenizer.json``) and the first 16 hex digits of the file's sha256."""
        name = self.hub_id or "tokenizer.json"
        return f"{name}@sha256:{self.fingerprint[:16]}"

    @cached_property
    def config(self) -> dict:
        """The parsed tokenizer.json (normalizer, pre-tokenizer, model, added tokens)."""
        import json

        return json.loads(self._json_path.read_text(encoding="utf-8"))

    def encode(self, text: str) -> list[int]:
        """The token ids of ``text`` (no special tokens added)."""
        return self._tok.encode(text, add_special_tokens=False).ids

    def encode_batch(self, texts: Sequence[str]) -> list[list[int]]:
        """The token ids of each text."""
        return [e.ids for e in self._encode_fast(list(texts))]

    def count(self, text: str) -> int:
        """Number of tokens of ``text``, without building the list of ids."""
        return len(self._encode_fast([text])[0])

    def count_batch(self, texts: Sequence[str]) -> list[int]:
        """The number of tokens of each text."""
        # len() of an Encoding is its token count: no Python list of ids is built
        return [len(e) for e in self._encode_fast(list(texts))]

    def _encode_fast(self, texts: list[str]):
        # encode_batch_fast skips the offsets (same ids, half the time); older `tokenizers` lack it
        fast = getattr(self._tok, "encode_batch_fast", None)
        if fast is None:
            return self._tok.encode_batch(texts, add_special_tokens=False)
        return fast(texts, add_special_tokens=False)

    def _fingerprint(self) -> str:
        return sha256_file(self._json_path)


def load_tokenizer(alias: str, location: str) -> Tokenizer:
    """Resolve a location: a tiktoken encoding name, else a local path, else a hub id."""
    import tiktoken

    if location in tiktoken.list_encoding_names():
        return TiktokenTokenizer(alias, location)
    return HFTokenizer(alias, location)


def parse_tokenizer_option(option: str, given_as: str = named_setting("tokenizers")) -> tuple[str, str]:
    """``"llama3=../tok"`` → ``("llama3", "../tok")``; the alias must be a short config-name suffix.

    ``given_as`` names where the option came from in an error (the ``tokenizers`` setting; lm-eval's
    metadata key).
    """
    alias, sep, location = option.partition("=")
    alias = alias.strip()
    if not sep or not alias or not location.strip():
        raise TokenizerError(f"{given_as} {option!r}: expected ALIAS=SPEC, e.g. llama3=meta-llama/Meta-Llama-3-8B")
    if not valid_alias(alias):
        raise TokenizerError(f"{given_as} {option!r}: alias {alias!r} must be {ALIAS_RULE} (no '_')")
    return alias, location.strip()


def parse_tokenizer_options(options: Iterable[str]) -> dict[str, str]:
    """``["llama3=PATH", ...]`` → ``{"llama3": "PATH"}`` (errors name the faulty option)."""
    out: dict[str, str] = {}
    for option in options:
        alias, location = parse_tokenizer_option(option)
        if alias in out and out[alias] != location:
            raise TokenizerError(f"{named_setting('tokenizers')} {alias}: given twice with different locations "
                                 f"({out[alias]!r}, {location!r})")
        out[alias] = location
    return out


class TokenizerRegistry:
    """Aliases → tokenizers, loaded on first use. Built-ins: cl100k, o200k.

    ``locations``: alias → location (a dict, or ``ALIAS=SPEC`` options; a later one wins); ``register``
    adds one later. An alias keeps its location once registered.
    """

    def __init__(self, locations: dict[str, str] | Iterable[str] | None = None):
        self._locations: dict[str, str] = dict(BUILTIN_TOKENIZERS)
        if locations:
            items = locations.items() if isinstance(locations, dict) else (parse_tokenizer_option(o) for o in locations)
            for alias, location in items:
                _check_builtin(alias, location)
                self._locations[alias] = location
        self._loaded: dict[str, Tokenizer] = {}

    def __contains__(self, alias: object) -> bool:
        return alias in self._locations

    def register(self, alias: str, location: str) -> None:
        """Make ``location`` known as ``alias`` (refused for a built-in alias or an alias known elsewhere)."""
        _check_builtin(alias, location)
        known = self._locations.get(alias)
        if known is not None and known != location:
            raise TokenizerError(f"tokenizer {alias}: already registered at {known!r}, not {location!r}")
        self._locations[alias] = location

    def locations(self) -> Mapping[str, str]:
        """Alias → location of every registered tokenizer, built-ins first (read-only)."""
        return MappingProxyType(self._locations)

    @property
    def aliases(self) -> tuple[str, ...]:
        """Every registered alias, built-ins first."""
        return tuple(self._locations)

    def get(self, alias: str) -> Tokenizer:
        """The tokenizer registered under ``alias`` (error lists the known aliases)."""
        if alias not in self._locations:
            raise TokenizerError(
                f"unknown tokenizer alias {alias!r}; known: {', '.join(self._locations)} "
                f"(register one with {named_setting('tokenizers')} {alias}=HUB_ID_OR_PATH)"
            )
        if alias not in self._loaded:
            self._loaded[alias] = load_tokenizer(alias, self._locations[alias])
        return self._loaded[alias]


def _check_builtin(alias: str, location: str) -> None:
    if alias in BUILTIN_TOKENIZERS and location != BUILTIN_TOKENIZERS[alias]:
        raise TokenizerError(f"{named_setting('tokenizers')} {alias}={location}: {alias!r} is a built-in alias for "
                             f"{BUILTIN_TOKENIZERS[alias]}; pick another alias")
