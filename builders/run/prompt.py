"""A row's prompt as a run sends it: its ``input``, and the answer prefix its family's rows may carry.

RULER puts its answer prefix (the start of the answer its constants.py gives each task family, e.g. NIAH's
sentence naming the key) after the chat template, so that the model continues it. A row of such a family has the field
``answer_prefix`` (``spec.family.ANSWER_PREFIX``) and its ``input`` is the prompt without it. A run
sends the prefix in one of two ways (``PrefixForm``), chosen per run from what the servers take
(``server/prefill.py``):

- ``assistant prefill``: the prefix as a final assistant message that the server continues (with the
  request fields its dialect needs, e.g. vLLM's ``continue_final_message``); the server's answer is
  the continuation (a server that repeats the prefix first has it cut off: ``echoed``);
- ``appended to the prompt``: the prefix after the input in the one user message, or after the prompt
  of ``--api completions`` (RULER's ``base`` template: the prompt, then the prefix).

A row without a prefix is sent as it always was, whatever the form: one user message holding its input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..spec.family import APPENDED, PREFILL, continuation


@dataclass(frozen=True)
class Prompt:
    """What a row sends: its input and its answer prefix ("" for a row of a family without one)."""

    text: str
    prefix: str = ""


@dataclass(frozen=True)
class PrefixForm:
    """How a run sends an answer prefix (``sent_as``: PREFILL or APPENDED), why, and what a prefill needs.

    ``fields``: request fields that make the server continue a final assistant message (also sent with
    a dialect's prompt count, which reads the same chat request); ``echoed``: the server's answer
    repeats the prefix before the continuation (llama.cpp), so it is cut off.
    """

    sent_as: str = APPENDED
    why: str = ""
    fields: tuple[tuple[str, Any], ...] = ()
    echoed: bool = False

    @property
    def prefill(self) -> bool:
        """Whether the prefix goes as a final assistant message."""
        return self.sent_as == PREFILL

    def messages(self, prompt: Prompt) -> list[dict]:
        """The chat messages of a prompt: the user's, then the prefix as the assistant's or after the user's text."""
        if prompt.prefix and self.prefill:
            return [{"role": "user", "content": prompt.text}, {"role": "assistant", "content": prompt.prefix}]
        return [{"role": "user", "content": prompt.text + prompt.prefix}]

    def text(self, prompt: Prompt) -> str:
        """The raw prompt of ``--api completions`` (and of a count of text alone): the input, then the prefix."""
        return prompt.text + prompt.prefix

    def extra(self, prompt: Prompt) -> dict[str, Any]:
        """The request fields a chat request of this prompt adds (a prefill's, none otherwise)."""
        return dict(self.fields) if prompt.prefix and self.prefill else {}

    def continuation(self, content: str | None, prompt: Prompt) -> str | None:
        """The model's answer without the prefix a server repeats before it (only where this form says it does)."""
        return continuation(content, prompt.prefix) if self.echoed else content


SENT_AS_BEFORE = PrefixForm()  # rows without a prefix: one user message, as every run sent them


def request_fields(prompt: Prompt, api: str, form: PrefixForm) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the request's prompt fields: ``messages`` or ``prompt``, the fields it adds to the body) for ``api``."""
    if api == "chat":
        return {"messages": form.messages(prompt)}, form.extra(prompt)
    return {"prompt": form.text(prompt)}, {}
