"""What a dialect may ask of one server: JSON ``GET`` and ``POST`` under its root, the model and API of the
run, and a note of why an endpoint gave no answer the run could use.

Every call goes through the run's ``openai`` client (its base URL, API key and timeout) to a path
under the server root (``ServerClient.root_url``), with a deadline. An HTTP error or an answer
that is not JSON comes back as None with the reason noted (``problems``); HTTP 401 is an error
(the key is wrong for every call); connection errors propagate (the server is not there).
"""

from __future__ import annotations

import asyncio
from typing import Any

from .client import ServerClient

PROBE_TIMEOUT_S = 30.0


class ServerProbe:
    """One server as the dialects see it; ``problems``: endpoint → why it gave no usable answer."""

    def __init__(self, client: ServerClient):
        self._client = client
        self.problems: dict[str, str] = {}

    @property
    def model(self) -> str:
        """The model the run asks for."""
        return self._client.model

    @property
    def api(self) -> str:
        """``chat`` or ``completions``: how the run sends prompts."""
        return self._client.api

    @property
    def root_url(self) -> str:
        """The server root (the base URL without ``/v1``)."""
        return self._client.root_url

    def note(self, endpoint: str, problem: str, replace: bool = False) -> None:
        """Say why ``endpoint`` gave no usable answer (``replace``: over what was said before, else only the first)."""
        if replace or endpoint not in self.problems:
            self.problems[endpoint] = problem

    async def get_json(self, path: str, timeout: float | None = PROBE_TIMEOUT_S) -> Any | None:
        """``GET root/path`` as parsed JSON; None for an HTTP error or a non-JSON answer (connection errors raise)."""
        return await self._call(path, None, timeout)

    async def post_json(self, path: str, body: dict, timeout: float | None = None) -> Any | None:
        """``POST root/path`` with a JSON body, as parsed JSON; None for an HTTP error or a non-JSON answer."""
        return await self._call(path, body, timeout)

    async def _call(self, path: str, body: dict | None, timeout: float | None) -> Any | None:
        import openai

        limit = self._client.retry.timeout_s
        try:
            return await asyncio.wait_for(self._client.root_json(path, body), min(timeout or limit, limit))
        except openai.APIStatusError as exc:
            if exc.status_code == 401:
                raise self._client.key_refused() from None
            self.note(path, self._client.describe(exc), replace=True)
            return None
        except (openai.APIResponseValidationError, ValueError) as exc:  # an answer that is not JSON
            self.note(path, f"its answer is not JSON ({type(exc).__name__})", replace=True)
            return None
