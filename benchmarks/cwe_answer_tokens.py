"""Tokens a correct CWE answer takes, against the 50-token reserve that `oneruler run` sends as max new tokens.

    python benchmarks/cwe_answer_tokens.py [--samples 10] [--length 8k]

Generates the ``cwe_easy`` and ``cwe_hard`` rows of every language (the builder, no export) and
counts the shortest correct answer, the ten gold words joined by ", " with no framing, in each
shipped tokenizer (cl100k, o200k, Llama 3, Qwen 2 from ``../shared/tokenizers``). Prints, per
language, the most tokens such an answer takes and how many rows need more than the reserve, then
the totals. A row whose correct answer does not fit in the max new tokens cannot be answered: the
model is cut at ``finish_reason=length`` and the paper's policy counts a cut CWE answer wrong
(docs/running.md, "Max new tokens").
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
TOKENIZERS = ("cl100k", "o200k", "llama3", "qwen")


def main() -> None:
    """Print, per language and tokenizer, the longest correct CWE answer and the rows over the reserve."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--length", default="8k")
    args = parser.parse_args()
    os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(SHARED / "tokenizers" / "tiktoken"))
    from builders.generate.rows import RowGenerator
    from builders.generate.tokenizer import TokenizerRegistry
    from builders.sources.store import load_sources
    from builders.spec.configs import parse_config_name
    from builders.spec.languages import LANGUAGE_CODES
    from builders.spec.tasks import get_task

    sources = load_sources(mirror=os.environ.get("ONERULER_MIRROR", str(SHARED / "oneruler-upstream")))
    registry = TokenizerRegistry({"llama3": str(SHARED / "tokenizers/hf/llama3"), "qwen": str(SHARED / "tokenizers/hf/qwen")})
    generator = RowGenerator(sources, registry)
    reserve = get_task("cwe_easy").reserve
    counters = {alias: registry.get(alias) for alias in TOKENIZERS}
    totals = dict.fromkeys(TOKENIZERS, 0)
    rows = 0
    print(f"language  " + "  ".join(f"{alias:>14}" for alias in TOKENIZERS) + f"   (longest answer / rows over {reserve})")
    for lang in LANGUAGE_CODES:
        answers = [row["answers"] for task in ("cwe_easy", "cwe_hard")
                   for row in generator.rows(parse_config_name(f"{lang}_{task}_{args.length}"), args.samples)]
        rows += len(answers)
        cells = []
        for alias, tok in counters.items():
            sizes = [tok.count(", ".join(words)) for words in answers]
            over = sum(size > reserve for size in sizes)
            totals[alias] += over
            cells.append(f"{max(sizes):>6} {over:>3}/{len(sizes):<3}")
        print(f"{lang:<9} " + "  ".join(cells))
    print(f"rows whose correct answer exceeds the {reserve}-token reserve, of {rows}: "
          + ", ".join(f"{alias} {n} ({100 * n / rows:.0f} %)" for alias, n in totals.items()))


if __name__ == "__main__":
    main()
