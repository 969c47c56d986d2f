"""What a server says about itself (``ServerFacts``), the shape of a dialect, and the HTTP calls dialects share.

A dialect knows one server's own endpoints: ``probe`` asks them and answers None when the server
is not of that kind (a 404, another shape), ``count`` counts one prompt as that server will see it
(None: it cannot). Every call goes through the run's ``openai`` client (its base URL, API key and
timeout), to paths under the server root (``ServerClient.root_url``).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from ...base.errors import OneRulerError

PROBE_TIMEOUT_S = 30.0
# Tokens a chat template may add around one user message when a count cannot include the template
# itself (role headers, a default system prompt: Llama 3.1 adds ~30, Qwen 2.5 ~25).
CHAT_TEMPLATE_ALLOWANCE = 64


@dataclass(frozen=True)
class ServerFacts:
    """The server's kind, its window and where that came from, its parallel slots, and how to widen it."""

    kind: str
    window: int | None
    window_source: str
    prompt_limit: int | None = None  # a cap on the prompt alone (TGI's max_input_tokens)
    slots: int | None = None  # requests it works on at once (llama.cpp's total_slots); None: not said
    fix: str = "serve the model with a larger window"
    truncates: bool = False  # cuts a prompt longer than its window instead of refusing it (Ollama)
    notes: tuple[str, ...] = ()  # what the run should say before it sends anything


class Dialect:
    """One server kind: how to recognise it and how it counts prompt tokens."""

    name = "OpenAI-compatible"
    counting = ""  # how ``count`` counts, for the preflight line ("" : it does not)
    exact = True  # the count is the server's own (False: an allowance is added for the chat template)

    async def probe(self, client: Any, card: dict | None) -> ServerFacts | None:
        """The server's facts, or None if it is not of this kind (``card``: its entry in ``GET /v1/models``)."""
        raise NotImplementedError

    async def count(self, client: Any, prompt: str) -> int | None:
        """Tokens of ``prompt`` as sent by the run (chat template or BOS included); None: cannot count."""
        return None


def messages(prompt: str) -> list[dict]:
    """The chat messages the run sends for a prompt: it alone, as the user (no system prompt)."""
    return [{"role": "user", "content": prompt}]


async def _call(client: Any, method: str, path: str, body: Any | None, timeout: float | None) -> Any | None:
    wait = min(timeout or client.retry.timeout_s, client.retry.timeout_s)
    try:
        if method == "get":
            call = client.client.get(client.root_url + path, cast_to=object)
        else:
            call = client.client.post(client.root_url + path, body=body, cast_to=object)
        return await asyncio.wait_for(call, wait)
    except client.openai.APIStatusError as exc:
        if exc.status_code == 401:
            raise OneRulerError(f"{client.base_url}: the server refused the API key (HTTP 401); "
                                f"set OPENAI_API_KEY to a key it accepts") from None
        client.problems[path] = client.describe(exc)
        return None
    except (client.openai.APIResponseValidationError, ValueError) as exc:  # an answer that is not JSON
        client.problems[path] = f"its answer is not JSON ({type(exc).__name__})"
        return None


async def get_json(client: Any, path: str, timeout: float | None = PROBE_TIMEOUT_S) -> Any | None:
    """``GET root/path`` as parsed JSON; None for an HTTP error or a non-JSON answer (connection errors raise)."""
    return await _call(client, "get", path, None, timeout)


async def post_json(client: Any, path: str, body: dict, timeout: float | None = None) -> Any | None:
    """``POST root/path`` with a JSON body, as parsed JSON; None for an HTTP error or a non-JSON answer."""
    return await _call(client, "post", path, body, timeout)


def positive_int(value: Any) -> int | None:
    """``value`` if it is a positive int (not a bool), else None."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
