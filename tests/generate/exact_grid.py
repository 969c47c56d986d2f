"""Shared by the exactness tests: every standard config of a context language at 8k and 32k, one row
each, ``num_tokens`` against a full tokenisation, and no whole prompt tokenised while generating."""

from __future__ import annotations

from builders.spec.configs import ConfigSpec, iter_standard_configs
from builders.spec.languages import LANGUAGE_CODES

LENGTHS = (8_000, 32_000)


def configs_of(lang: str, alias: str) -> list[ConfigSpec]:
    """The standard grid's configs with context language ``lang`` at LENGTHS, as ``alias`` twins."""
    tokenizer = None if alias == "cl100k" else alias
    return [ConfigSpec(c.context_language, c.task, c.length, c.instruction_language, tokenizer)
            for c in iter_standard_configs() if c.context_language == lang and c.length in LENGTHS]


def check_language(generator, alias: str, lang: str, monkeypatch) -> int:
    """Generate one row per config (varied index), compare counts; returns the rows checked."""
    tok = generator.tokenizers.get(alias)
    full_count, full_batch = tok.count, tok.count_batch
    longest = [0]

    def spy_count(text):
        longest[0] = max(longest[0], len(text))
        return full_count(text)

    def spy_batch(texts):
        texts = list(texts)
        longest[0] = max([longest[0], *map(len, texts)])
        return full_batch(texts)

    monkeypatch.setattr(tok, "count", spy_count)
    monkeypatch.setattr(tok, "count_batch", spy_batch)
    rows = []
    for i, spec in enumerate(configs_of(lang, alias)):
        index = (LANGUAGE_CODES.index(lang) * 7 + i) % 50  # needles at varied depths across the grid
        rows.append(generator.example(spec, index))
    generating = longest[0]
    monkeypatch.undo()
    wrong = [(r["id"], r["num_tokens"], n) for r, n in zip(rows, tok.count_batch([r["input"] for r in rows]))
             if r["num_tokens"] != n]
    assert not wrong, wrong
    assert all(r["num_tokens"] <= r["budget"] for r in rows)
    # counted by construction: nothing near a whole prompt (>= 8k tokens) was tokenised
    shortest_prompt = min(len(r["input"]) for r in rows)
    assert generating < shortest_prompt // 2, (generating, shortest_prompt)
    return len(rows)
