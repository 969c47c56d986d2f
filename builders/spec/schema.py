"""The row schema every generated example follows (field names are a public contract)."""

from __future__ import annotations

from datasets import Features, List, Value

# depth: the nominal depth in whole percent; actual_depth: where the needle landed (quotation rule), percent of
# the haystack's sentences; token_depth: the same place in percent of the haystack's tokens (`tokenizer`)
NEEDLE_FEATURES = {"key": Value("string"), "value": Value("string"), "depth": Value("int32"),
                   "actual_depth": Value("float64"), "token_depth": Value("float64")}

FEATURES = Features(
    {
        "id": Value("string"),  # "{config}/{index}"
        "config": Value("string"),
        "task": Value("string"),
        "context_language": Value("string"),
        "instruction_language": Value("string"),
        "length": Value("int64"),  # nominal length in tokens (128k = 128,000)
        "tokenizer": Value("string"),  # identity of the measuring tokenizer, e.g. cl100k_base
        "input": Value("string"),  # the full prompt, one user message
        "answers": List(Value("string")),
        "num_tokens": Value("int64"),  # exact tokens of `input` in `tokenizer`
        "needles": List(NEEDLE_FEATURES),  # depth in percent; empty for CWE
        "queries": List(Value("string")),
        "context_span": List(Value("int64")),  # [start, end) character offsets of the context in `input`
        "index": Value("int32"),
        "seed": Value("int64"),
        "reserve": Value("int32"),  # tokens kept free for the answer (30 NIAH, 50 CWE)
        "budget": Value("int64"),  # length - reserve: the bound on num_tokens
        "num_units": Value("int32"),  # haystack sentences (NIAH) or distinct words (CWE) in the context
        "cwe_freq_common": Value("int32"),  # 0 for NIAH
        "cwe_freq_uncommon": Value("int32"),
        "cwe_pool_size": Value("int32"),
        "cwe_pool_exhausted": Value("bool"),  # True: the whole word pool was used and the budget not reached
    }
)

FIELD_NAMES: tuple[str, ...] = tuple(FEATURES)
