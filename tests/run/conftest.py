"""What the run tests of every room share, as fixtures (their helpers: tests/openai_server.py, tests/run_fixtures.py)."""

from __future__ import annotations

import pytest
from openai_server import ServerState, running_server


@pytest.fixture
def stand_in():
    """The vLLM stand-in (tests/openai_server.py) on 127.0.0.1 with a fresh state, for one test."""
    with running_server(ServerState()) as server:
        yield server
