"""RULER's published results: the main table of RULER's README (Hsieh et al., 2024; NVIDIA/RULER), as data.

Each row is one model as the README's table gives it at the pinned commit (``SOURCE``): its name, size and link,
its claimed and effective context length (as written: ``256k``, ``>128K``, ``<4K``), its score (%) at 4K, 8K,
16K, 32K, 64K and 128K (the mean of RULER's 13 tasks at each length), Avg., wAvg. (inc) and wAvg. (dec) with
their ranks where the README gives one. ``None`` is a cell the README leaves empty, ``-`` or ``TBD``: missing,
never guessed. ``authors``: the README marks the row ``*``, results its notes say the model's authors reported.

``tests/spec/test_ruler_published.py`` parses the README of the RULER mirror (its sha256 is ``SOURCE.sha256``,
the line of the mirror's ``SHA256SUMS``) and checks that these rows equal it, cell for cell; they are RULER's
numbers from another harness (RULER's own scripts, each model's tokenizer and chat template, 500 examples per
task and length in RULER's paper), with no interval: ``compare`` and ``leaderboard`` show them beside a user's models and say so.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ..base.errors import SettingError
from .grids import RULER_LENGTHS


@dataclass(frozen=True)
class PublishedSource:
    """Where the published rows come from: the README at a commit of RULER's repository."""

    repository: str
    commit: str
    path: str
    sha256: str

    @property
    def url(self) -> str:
        """The README at the pinned commit."""
        return f"{self.repository}/blob/{self.commit}/{self.path}"

    def describe(self) -> str:
        """One line for notes and figures."""
        return f"RULER's published results (README table, {self.url})"


SOURCE = PublishedSource("https://github.com/NVIDIA/RULER", "c3f5e3b4f87f97e048793bb510a3a6b19a46bf3a", "README.md",
                         "f3aae5bbd58fcd7de32aab099c455dd2bbc1da23a2efee9db3071eb9fbf894a3")
CAVEAT = "RULER's published numbers (its README): another harness, each model's own tokenizer, no interval"


@dataclass(frozen=True)
class PublishedRow:
    """One model of RULER's README table (percent, as published; None: not given)."""

    model: str
    size: str | None
    claimed_length: str
    effective_length: str | None
    scores: tuple[float | None, ...]  # at RULER_LENGTHS, 4K … 128K
    avg: float | None
    wavg_inc: float | None
    rank_inc: int | None
    wavg_dec: float | None
    rank_dec: int | None
    link: str
    authors: bool = False

    @property
    def label(self) -> str:
        """The model as the README names it, with its size: ``Llama3.1 (70B)``."""
        return f"{self.model} ({self.size})" if self.size else self.model

    def score_at(self, length: int) -> float | None:
        """The published score (%) at one of RULER's lengths (None: not given, or not one of them)."""
        return self.scores[RULER_LENGTHS.index(length)] if length in RULER_LENGTHS else None


def _row(model: str, size: str | None, claimed: str, effective: str | None, scores: tuple[float | None, ...],
         avg: float | None, inc: tuple[float, int | None] | None, dec: tuple[float, int | None] | None, link: str,
         authors: bool = False) -> PublishedRow:
    return PublishedRow(model, size, claimed, effective, scores, avg, *(inc or (None, None)), *(dec or (None, None)),
                        link, authors)


# In the README's order.
PUBLISHED_ROWS: tuple[PublishedRow, ...] = (
    _row("Llama2", "7B", "4K", None, (85.6, None, None, None, None, None), None, None, None,
         "https://huggingface.co/meta-llama/Llama-2-7b-chat-hf"),
    _row("Jamba-1.5-large", "94B/398B", "256k", ">128k", (96.7, 96.6, 96.4, 96.0, 95.4, 95.1), 96.0, (95.7, 1), (96.3, 1),
         "https://huggingface.co/ai21labs/AI21-Jamba-1.5-Large", authors=True),
    _row("Gemini-1.5-pro", None, "1M", ">128K", (96.7, 95.8, 96.0, 95.9, 95.9, 94.4), 95.8, (95.5, 2), (96.1, 2),
         "https://ai.google.dev/gemini-api/docs/models/gemini#:~:text=Gemini-,Gemini%201.5%20Pro%20(Preview%20only),-Text%20and%20images"),
    _row("Qwen2.5-14B-Instruct-1M", "14B", "1M", ">128K", (97.5, 97.1, 94.6, 94.9, 94.9, 92.2), 95.7, None, None,
         "https://huggingface.co/Qwen/Qwen2.5-14B-Instruct-1m", authors=True),
    _row("Qwen3-235B-A22B", "235B", "128K", ">128K", (97.7, 97.2, 96.4, 95.1, 93.3, 90.6), 95.0, None, None,
         "https://huggingface.co/Qwen/Qwen3-235B-A22B", authors=True),
    _row("Qwen3-14B", "14B", "128K", ">128K", (98.0, 97.8, 96.4, 96.1, 94.0, 85.1), 94.6, None, None,
         "https://huggingface.co/Qwen/Qwen3-14B", authors=True),
    _row("Jamba-1.5-mini", "12B/52B", "256K", ">128K", (95.6, 95.6, 94.8, 94.6, 92.8, 90.0), 93.9, (93.1, 3), (94.8, 3),
         "https://huggingface.co/ai21labs/AI21-Jamba-1.5-Mini"),
    _row("Qwen3-32B", "32B", "128K", ">128K", (98.4, 96.0, 96.2, 94.4, 91.8, 85.6), 93.7, None, None,
         "https://huggingface.co/Qwen/Qwen3-32B", authors=True),
    _row("EXAONE-4.0-32B", "32B", "128K", ">128K", (96.3, 94.9, 93.9, 93.6, 91.7, 88.2), 93.1, None, None,
         "https://huggingface.co/LGAI-EXAONE/EXAONE-4.0-32B", authors=True),
    _row("Qwen2.5-7B-Instruct-1M", "7B", "1M", ">128K", (96.8, 95.3, 93.0, 91.1, 90.4, 84.4), 91.8, None, None,
         "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct-1M", authors=True),
    _row("Qwen3-30B-A3B", "30B", "128K", "64K", (96.5, 97.0, 95.3, 92.4, 89.1, 79.2), 91.6, None, None,
         "https://huggingface.co/Qwen/Qwen3-30B-A3B", authors=True),
    _row("GPT-4-1106-preview", None, "128K", "64K", (96.6, 96.3, 95.2, 93.2, 87.0, 81.2), 91.6, (89.0, 4), (94.1, 4),
         "https://platform.openai.com/docs/models/gpt-4-turbo-and-gpt-4#:~:text=gpt%2D4%2D1106%2Dpreview,Up%20to%20Apr%202023"),
    _row("Llama3.1", "70B", "128K", "64K", (96.5, 95.8, 95.4, 94.8, 88.4, 66.6), 89.6, (85.5, 10), (93.7, 5),
         "https://huggingface.co/meta-llama/Meta-Llama-3.1-70B-Instruct"),
    _row("Qwen3-8B", "8B", "128K", "64K", (96.3, 96.0, 91.8, 91.2, 82.1, 77.4), 89.1, None, None,
         "https://huggingface.co/Qwen/Qwen3-8B", authors=True),
    _row("Mistral-Large-2411", "123B", "128K", "64K", (96.4, 96.3, 95.3, 94.0, 85.9, 48.1), 86.0, (79.5, 18), (92.5, 6),
         "https://huggingface.co/mistralai/Mistral-Large-Instruct-2411"),
    _row("Command-R-plus-0824", "104B", "128K", "32K", (96.0, 95.1, 94.0, 92.4, 85.4, 64.6), 87.9, (83.4, 13), (92.4, 7),
         "https://huggingface.co/CohereForAI/c4ai-command-r-plus-08-2024"),
    _row("Qwen2", "72B", "128K", "32K", (96.9, 96.1, 94.9, 94.1, 79.8, 53.7), 85.9, (79.6, 17), (92.3, 8),
         "https://huggingface.co/Qwen/Qwen2-72B-Instruct"),
    _row("Command-R-plus", "104B", "128K", "32K", (95.6, 95.2, 94.2, 92.0, 84.3, 63.1), 87.4, (82.7, 14), (92.1, 9),
         "https://huggingface.co/CohereForAI/c4ai-command-r-plus"),
    _row("Command-R-0824", "32B", "128K", "64K", (94.7, 93.7, 93.1, 90.8, 86.6, 74.7), 88.9, (86.0, 8), (91.9, 10),
         "https://huggingface.co/CohereForAI/c4ai-command-r-08-2024"),
    _row("GLM4", "9B", "1M", "64K", (94.7, 92.8, 92.1, 89.9, 86.7, 83.1), 89.9, (88.0, 5), (91.7, 11),
         "https://huggingface.co/THUDM/glm-4-9b-chat-1m"),
    _row("Llama3.1", "8B", "128K", "32K", (95.5, 93.8, 91.6, 87.4, 84.7, 77.0), 88.3, (85.4, 11), (91.3, 12),
         "https://huggingface.co/meta-llama/Meta-Llama-3.1-8B-Instruct"),
    _row("ProLong", "8B", "512K", "32K", (94.5, 92.5, 92.3, 89.3, 83.2, 81.6), 88.9, (86.6, 7), (91.2, 13),
         "https://huggingface.co/princeton-nlp/Llama-3-8B-ProLong-512k-Instruct"),
    _row("Command-R", "35B", "128K", "32K", (93.8, 93.3, 92.4, 89.5, 84.9, 76.0), 88.3, (85.5, 9), (91.1, 14),
         "https://huggingface.co/CohereForAI/c4ai-command-r-v01"),
    _row("MegaBeam-Mistral", "7B", "512K", "32K", (93.8, 92.5, 92.0, 89.2, 83.7, 83.7), 89.1, (87.3, 6), (91.0, 15),
         "https://huggingface.co/aws-prototyping/MegaBeam-Mistral-7B-512k"),
    _row("Mistral-Large-2407", "123B", "128K", "32K", (96.2, 96.1, 95.1, 93.0, 78.8, 23.7), 80.5, (70.6, 24), (90.4, 16),
         "https://huggingface.co/mistralai/Mistral-Large-Instruct-2407"),
    _row("GradientAI/Llama3", "70B", "1M", "16K", (95.1, 94.4, 90.8, 85.4, 80.9, 72.1), 86.5, (82.6, 15), (90.3, 17),
         "https://huggingface.co/gradientai/Llama-3-70B-Instruct-Gradient-1048k"),
    _row("Mixtral-8x22B", "39B/141B", "64K", "32K", (95.6, 94.9, 93.4, 90.9, 84.7, 31.7), 81.9, (73.5, 22), (90.3, 18),
         "https://huggingface.co/mistralai/Mixtral-8x22B-instruct-v0.1"),
    _row("Yi", "34B", "200K", "32K", (93.3, 92.2, 91.3, 87.5, 83.2, 77.3), 87.5, (84.8, 12), (90.1, 19),
         "https://huggingface.co/01-ai/Yi-34B-200K"),
    _row("Qwen3-4B", "4B", "128K", "64K", (95.1, 93.6, 91.0, 87.8, 77.8, 66.0), 85.2, None, None,
         "https://huggingface.co/Qwen/Qwen3-4B", authors=True),
    _row("EXAONE-4.0-1.2B", "1.2B", "64K", "32K", (87.0, 86.7, 88.8, 81.1, 77.4, None), 84.2, None, None,
         "https://huggingface.co/LGAI-EXAONE/EXAONE-4.0-1.2B", authors=True),
    _row("Phi3-mini", "3.8B", "128K", "32K", (92.2, 91.5, 90.7, 87.5, 80.6, 66.7), 84.8, (80.9, 16), (88.7, 20),
         "https://huggingface.co/microsoft/Phi-3-mini-128K-instruct"),
    _row("Phi3-medium", "14B", "128K", "32K", (93.3, 93.2, 91.1, 86.8, 78.6, 46.1), 81.5, (74.8, 21), (88.3, 21),
         "https://huggingface.co/microsoft/Phi-3-medium-128K-instruct"),
    _row("Mixtral-8x7B", "12.9B/46.7B", "32K", "32K", (94.9, 92.1, 92.5, 85.9, 72.4, 44.5), 80.4, (72.8, 23), (87.9, 22),
         "https://huggingface.co/mistralai/Mixtral-8x7B-instruct-v0.1"),
    _row("GradientAI/Llama3", "8B", "1M", "16K", (92.8, 90.3, 85.7, 79.9, 76.3, 69.5), 82.4, (78.5, 19), (86.3, 23),
         "https://huggingface.co/gradientai/Llama-3-8B-Instruct-Gradient-1048k"),
    _row("FILM-7B", "7B", "32K", "32K", (92.8, 88.2, 88.1, 86.9, 70.1, 27.1), 75.5, (66.4, 26), (84.7, 24),
         "https://arxiv.org/pdf/2404.16811", authors=True),
    _row("InternLM2.5", "7B", "1M", "4K", (88.1, 85.5, 84.5, 82.7, 75.5, 68.9), 80.9, (77.8, 20), (83.9, 25),
         "https://huggingface.co/internlm/internlm2_5-7b-chat-1m"),
    _row("Mistral", "7B", "32K", "16K", (93.6, 91.2, 87.2, 75.4, 49.0, 13.8), 68.4, (55.6, 28), (81.2, 26),
         "https://huggingface.co/mistralai/Mistral-7B-instruct-v0.2"),
    _row("Mistral-Nemo", None, "128K", "16K", (87.8, 87.2, 87.7, 69.0, 46.8, 19.0), 66.2, (54.7, 29), (77.8, 27),
         "https://huggingface.co/mistralai/Mistral-Nemo-Instruct-2407"),
    _row("GLM3", "6B", "128K", "4K", (87.8, 83.4, 78.6, 69.9, 56.0, 42.0), 69.6, (62.0, 27), (77.2, 28),
         "https://huggingface.co/THUDM/chatglm3-6b-128K"),
    _row("LWM", "7B", "1M", "<4K", (82.3, 78.4, 73.7, 69.1, 68.1, 65.0), 72.8, (69.9, 25), (75.7, 29),
         "https://huggingface.co/LargeWorldModel/LWM-Text-Chat-1M"),
    _row("DBRX", "36B/132B", "32K", "8K", (95.1, 93.8, 83.6, 63.1, 2.4, 0.0), 56.3, (38.0, 30), (74.7, 30),
         "https://huggingface.co/databricKs/dbrx-instruct"),
    _row("Qwen1.5", "72B", "32K", "8K", (94.9, 93.8, 78.0, 67.8, 0.0, 0.0), 55.7, (37.5, 31), (74.0, 31),
         "https://huggingface.co/Qwen/Qwen1.5-72B-Chat"),
    _row("Together", "7B", "32K", "4K", (88.2, 81.1, 69.4, 63.0, 0.0, 0.0), 50.3, (33.8, 32), (66.7, 32),
         "https://huggingface.co/togethercomputer/Llama-2-7B-32K-instruct"),
    _row("LongChat", "7B", "32K", "<4K", (84.7, 79.9, 70.8, 59.3, 0.0, 0.0), 49.1, (33.1, 33), (65.2, 33),
         "https://huggingface.co/lmsys/longchat-7b-v1.5-32K"),
    _row("LongAlpaca", "13B", "32K", "<4K", (60.6, 57.0, 56.6, 43.6, 0.0, 0.0), 36.3, (24.7, 34), (47.9, 34),
         "https://huggingface.co/YuKang/LongAlpaca-13B"),

)


def select_published(names: tuple[str, ...] | list[str]) -> list[PublishedRow]:
    """The rows whose label contains one of ``names`` (case-insensitive; ``all``: every row), in the README's order;
    a name that matches no row is a ``SettingError`` naming the nearest labels."""
    wanted = [n.strip().lower() for n in names if n.strip()]
    if "all" in wanted:
        return list(PUBLISHED_ROWS)
    labels = [row.label for row in PUBLISHED_ROWS]
    for name in wanted:
        if not any(name in label.lower() for label in labels):
            near = difflib.get_close_matches(name, [label.lower() for label in labels], n=3, cutoff=0.3)
            shown = ", ".join(label for label in labels if label.lower() in near) or ", ".join(labels[:5]) + ", …"
            raise SettingError("ruler_published", f"{name!r} is in no model name of RULER's README table; give 'all' or "
                                                  f"part of a name, e.g. {shown}")
    return [row for row in PUBLISHED_ROWS if any(n in row.label.lower() for n in wanted)]
