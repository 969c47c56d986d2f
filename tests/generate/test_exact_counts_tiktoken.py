"""Exactness of counting by construction for the tiktoken encodings (cl100k, o200k): every config
of every context language at 8k and 32k (monolingual, s_niah_nonone, cross-lingual), zh/ja joins
included, against a full tokenisation of each row. See tests/generate/exact_grid.py."""

from __future__ import annotations

import pytest

from builders.spec.languages import LANGUAGE_CODES

from exact_grid import check_language


@pytest.mark.parametrize("alias", ["cl100k", "o200k"])
@pytest.mark.parametrize("lang", LANGUAGE_CODES)
def test_num_tokens_equal_full_tokenisation(generator, alias, lang, monkeypatch):
    assert check_language(generator, alias, lang, monkeypatch) >= 16
