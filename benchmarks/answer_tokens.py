"""Tokens a complete multi-value answer takes: the measurement behind the ``mv{K}[e]_niah`` reserve rule.

    python benchmarks/answer_tokens.py [--values 64]

For every instruction language (its ``answer_numbers`` line as the answer's opening, and the list
separators its writing uses) and every shipped tokenizer (cl100k, o200k, Llama 3, Qwen 2 from
``../shared/tokenizers``), it counts the answer "<answer_numbers> v1, v2, …, vK" for K random
7-digit values and prints the worst tokens per value beyond the answer's opening. The reserve rule
in ``builders/spec/tasks.py`` (``multi_value_reserve``) must cover the worst line printed here.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
SEPARATORS = (", ", "、", "，", "، ", "; ", "\n", " ")


def main() -> None:
    """Print the worst per-value token cost over languages, separators and tokenizers."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--values", type=int, default=64)
    args = parser.parse_args()
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(SHARED / "tokenizers" / "tiktoken"))
    from builders.generate.rng import StableRng
    from builders.generate.tokenizer import TokenizerRegistry
    from builders.spec.languages import LANGUAGE_CODES
    from builders.sources.store import load_sources

    sources = load_sources(mirror=os.environ.get("ONERULER_MIRROR", str(SHARED / "oneruler-upstream")))
    registry = TokenizerRegistry({"llama3": str(SHARED / "tokenizers/hf/llama3"), "qwen": str(SHARED / "tokenizers/hf/qwen")})
    rng = StableRng("answer-tokens")
    values = [str(rng.randint(1_000_000, 9_999_999)) for _ in range(args.values)]
    worst = (0.0, "")
    for alias in ("cl100k", "o200k", "llama3", "qwen"):
        tok = registry.get(alias)
        for lang in LANGUAGE_CODES:
            opening = sources.niah_template(lang)["answer_numbers"].strip()
            base = tok.count(opening)
            for sep in SEPARATORS:
                per_value = (tok.count(opening + " " + sep.join(values) + ".") - base) / len(values)
                worst = max(worst, (per_value, f"{alias} {lang} {sep!r}"))
        print(f"{alias}: worst so far {worst[0]:.3f} tokens/value ({worst[1]})")
    print(f"worst: {worst[0]:.3f} tokens per value ({worst[1]}), K = {args.values}")


if __name__ == "__main__":
    main()
