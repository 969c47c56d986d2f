import re

import pytest

from builders.base.errors import TokenizerError
from builders.cli.handler import flag_of
from builders.generate.tokenizer import TokenizerRegistry, parse_tokenizer_option


@pytest.mark.parametrize(
    "alias, ids",
    [
        ("cl100k", [9906, 1917]),  # the reference value
        ("o200k", [13225, 2375]),
        ("llama3", [9906, 1917]),  # Llama 3 shares cl100k's first 100k ranks; no BOS added
        ("qwen", [9707, 1879]),
    ],
)
def test_hello_world_ids(registry, alias, ids):
    tok = registry.get(alias)
    assert tok.encode("Hello world") == ids
    assert tok.count("Hello world") == 2
    assert tok.count_batch(["Hello world", ""]) == [2, 0]


def test_special_token_text_is_counted_as_plain_text(registry):
    # encode() of tiktoken would raise on special-token text; counting must treat it as text
    assert registry.get("cl100k").count("<|endoftext|>") > 1
    assert registry.get("llama3").count("<|begin_of_text|>") > 1


def test_known_counts_differ_between_tokenizers(registry):
    text = "Przeczytaj i zapamiętaj poniższy tekst. 東京は日本の首都です。"
    counts = {a: registry.get(a).count(text) for a in ("cl100k", "o200k", "llama3", "qwen")}
    # the larger multilingual vocabularies need fewer tokens than cl100k
    assert counts["o200k"] < counts["cl100k"]
    assert counts["llama3"] < counts["cl100k"]


def test_identities_are_machine_independent(registry):
    assert registry.get("cl100k").identity == "cl100k_base"
    assert registry.get("o200k").identity == "o200k_base"
    ident = registry.get("llama3").identity
    assert ident.startswith("tokenizer.json@sha256:") and str(registry.get("llama3").location) not in ident
    assert len(registry.get("cl100k").fingerprint) == 64
    assert registry.get("cl100k").fingerprint != registry.get("o200k").fingerprint


def test_any_tiktoken_encoding_by_name():
    reg = TokenizerRegistry(["gpt4=cl100k_base"])
    assert reg.get("gpt4").encode("Hello world") == [9906, 1917]


def test_unknown_alias_lists_known():
    with pytest.raises(TokenizerError, match="known: cl100k, o200k"):
        TokenizerRegistry().get("llama3")


@pytest.mark.parametrize("option", ["llama3", "=x", "Llama_3=x", "llama3="])
def test_bad_tokenizer_option(option):
    with pytest.raises(TokenizerError, match=f"^tokenizers {re.escape(repr(option))}: ") as info:
        parse_tokenizer_option(option)
    assert info.value.worded(flag_of).startswith(f"--tokenizer {option!r}: ")


def test_builtin_alias_cannot_be_redefined():
    with pytest.raises(TokenizerError, match="built-in"):
        TokenizerRegistry({"cl100k": "o200k_base"})


def test_missing_path_or_folder_without_tokenizer_json(tmp_path):
    with pytest.raises(TokenizerError, match="no tokenizer.json"):
        TokenizerRegistry({"x": str(tmp_path)}).get("x")
    with pytest.raises(TokenizerError, match="not a tiktoken encoding"):
        TokenizerRegistry({"x": "no such thing"}).get("x")
    bad = tmp_path / "tokenizer.json"
    bad.write_text("{not json")
    with pytest.raises(TokenizerError, match="not a valid tokenizer.json"):
        TokenizerRegistry({"x": str(tmp_path)}).get("x")


def test_the_registry_is_read_through_methods_and_grows_by_register():
    registry = TokenizerRegistry({"x": "o200k_base"})
    assert dict(registry.locations()) == {"cl100k": "cl100k_base", "o200k": "o200k_base", "x": "o200k_base"}
    with pytest.raises(TypeError):
        registry.locations()["y"] = "cl100k_base"  # read-only: new aliases come through register
    assert "y" not in registry
    registry.register("y", "cl100k_base")
    registry.register("y", "cl100k_base")  # the same again is no change
    assert "y" in registry and registry.aliases == ("cl100k", "o200k", "x", "y")
    assert registry.get("y").count("hello world") == registry.get("cl100k").count("hello world")
    with pytest.raises(TokenizerError, match="tokenizer y: already registered at 'cl100k_base', not 'o200k_base'"):
        registry.register("y", "o200k_base")
    with pytest.raises(TokenizerError, match="^tokenizers cl100k=o200k_base: 'cl100k' is a built-in alias") as info:
        registry.register("cl100k", "o200k_base")
    assert info.value.worded(flag_of).startswith("--tokenizer cl100k=o200k_base: ")
