"""The paper's generation presets for its two reasoning models (Appendix B.1), shared by every runner.

``oneruler run --preset`` and the Inspect task's ``preset`` option apply them here (``preset_values``). Every other row
is generated with the paper's default: greedy (temperature 0), at most the row's ``reserve`` new
tokens. "10k"/"8k" output tokens are read as 10,000/8,000 (k = 1,000 throughout).

o3-mini: reasoning effort high, 10k max output tokens, temperature 1.0 (OpenAI's default; o-series
models count reasoning tokens in max_completion_tokens and reject max_tokens). DeepSeek-R1: 8k max
output tokens, temperature 0.6.
"""

from __future__ import annotations

from typing import Any

from ..base.errors import OneRulerError, named_setting

PRESETS: dict[str, dict[str, Any]] = {
    "o3-mini-high": dict(temperature=1.0, max_tokens=10_000, reasoning_effort="high",
                         max_tokens_param="max_completion_tokens"),
    "deepseek-r1": dict(temperature=0.6, max_tokens=8_000),
}


def preset_values(preset: str | None, given: dict[str, Any]) -> dict[str, Any]:
    """The generation values of a run: the preset's (none: the paper's default), then every value ``given``
    explicitly (None or an empty tuple: not given) over them."""
    values: dict[str, Any] = {}
    if preset is not None:
        if preset not in PRESETS:
            raise OneRulerError(f"unknown {named_setting('preset')} {preset!r}; valid: {', '.join(PRESETS)}")
        values.update(PRESETS[preset])
    values.update({k: v for k, v in given.items() if v is not None and v != ()})
    return values
