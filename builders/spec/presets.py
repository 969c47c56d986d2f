"""The paper's generation presets for its two reasoning models (Appendix B.1), shared by every runner.

``oneruler run --preset`` and the Inspect task's ``preset`` option read them here. Every other row
is generated with the paper's default: greedy (temperature 0), at most the row's ``reserve`` new
tokens. "10k"/"8k" output tokens are read as 10,000/8,000 (k = 1,000 throughout).

o3-mini: reasoning effort high, 10k max output tokens, temperature 1.0 (OpenAI's default; o-series
models count reasoning tokens in max_completion_tokens and reject max_tokens). DeepSeek-R1: 8k max
output tokens, temperature 0.6.
"""

from __future__ import annotations

from typing import Any

PRESETS: dict[str, dict[str, Any]] = {
    "o3-mini-high": dict(temperature=1.0, max_tokens=10_000, reasoning_effort="high",
                         max_tokens_param="max_completion_tokens"),
    "deepseek-r1": dict(temperature=0.6, max_tokens=8_000),
}
