"""What a dialect may ask of one server: JSON ``GET`` and ``POST`` under its root, the model and API of the
run, a note of why an endpoint gave no answer the run could use, and a long wait said on stderr.

Every call goes through the run's ``openai`` client (its base URL, query, API key and timeout) to a
path under the server root (``ServerClient.root_url``), with a deadline: ``PROBE_TIMEOUT_S`` for a
``GET`` (or ``--timeout`` if shorter), ``--timeout`` for a ``POST``, ``--load-timeout`` for a model
load (``load``). A request that passes its deadline is an error saying what hung, for how long and
what to try (``client.ServerHung``). An HTTP error or an answer that is not JSON comes back as None
with the reason noted (``problems``); HTTP 401 is an error (the key is wrong for every call);
connection errors propagate (the server is not there).
"""

from __future__ import annotations

import asyncio
from typing import Any

from .answers import BadAnswer
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
        """The server root (the base URL without ``/v1``, credentials and query)."""
        return self._client.root_url

    @property
    def shown(self) -> str:
        """The server's URL as it may be shown (credentials and query values as ***)."""
        return self._client.shown

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

    async def load(self, path: str, body: dict, what: str) -> Any | None:
        """``POST root/path`` that makes the server load something (``what``, in words): said on stderr first, and
        bounded by ``--load-timeout`` rather than ``--timeout``."""
        seconds = self._client.load_timeout_s
        self._client.say(f"waiting for {what} (POST {path}; at most {seconds:g} s, --load-timeout)")
        return await self._call(path, body, seconds, setting="load_timeout_s",
                                hint="a large model may need longer to load: load it before the run")

    async def _call(self, path: str, body: dict | None, timeout: float | None, setting: str | None = None,
                    hint: str = "if it is still loading the model, wait until it answers and rerun") -> Any | None:
        import openai

        limit = self._client.retry.timeout_s
        seconds = timeout if setting is not None else min(timeout or limit, limit)
        setting = setting or ("timeout_s" if seconds == limit else None)  # None: PROBE_TIMEOUT_S, not a setting
        request = f"{'POST' if body is not None else 'GET'} {path}"
        try:
            return await asyncio.wait_for(self._client.root_json(path, body, seconds), seconds)
        except (asyncio.TimeoutError, openai.APITimeoutError):
            raise self._client.hung(request, seconds, setting, hint) from None
        except openai.APIStatusError as exc:
            if exc.status_code == 401:
                raise self._client.key_refused() from None
            self.note(path, self._client.describe(exc), replace=True)
            return None
        except BadAnswer as exc:  # not UTF-8, not JSON
            self.note(path, self._client.describe(exc), replace=True)
            return None
