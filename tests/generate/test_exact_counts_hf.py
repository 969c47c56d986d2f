"""Exactness of counting by construction for Hugging Face tokenizer.json files (Llama 3, Qwen 2): every config
of every context language at 8k and 32k (monolingual, s_niah_nonone, cross-lingual), zh/ja joins
included, against a full tokenisation of each row. See tests/generate/exact_grid.py."""

from __future__ import annotations

import pytest

from builders.spec.languages import LANGUAGE_CODES

from exact_grid import check_language


@pytest.mark.parametrize("alias", ["llama3", "qwen"])
@pytest.mark.parametrize("lang", LANGUAGE_CODES)
def test_num_tokens_equal_full_tokenisation(generator, alias, lang, monkeypatch):
    assert check_language(generator, alias, lang, monkeypatch) >= 16
