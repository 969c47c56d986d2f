"""Bounded Hub calls (export/hub_calls.py): what is retried and how long is waited (run's cap on Retry-After), what is
said, when a write is looked for instead of sent again; the answers are the HTTP library's own objects (the client
huggingface_hub uses), the failures exceptions carrying them as the client's do."""

from __future__ import annotations

import pytest

from builders.base.retry import RetryPolicy
from builders.export.hub_calls import HubCallError, http_library, hub_call, status_of, transient, unanswered


class Answered(Exception):
    """An error carrying the Hub's answer, as huggingface_hub's HfHubHTTPError does (``.response``)."""

    def __init__(self, status: int, headers: dict | None = None):
        library = http_library()
        super().__init__(f"HTTP {status}")
        self.response = library.Response(status, headers=headers or {}, request=library.Request("GET", "http://h/x"))


def failing(*errors):
    """A call that raises each of ``errors`` in turn, then answers "done"; and the list of its tries."""
    tries = []

    def call():
        tries.append(1)
        if len(tries) <= len(errors):
            raise errors[len(tries) - 1]
        return "done"
    return call, tries


FAST = RetryPolicy(attempts=3, base_s=0.0, max_wait_s=0.01)


def test_transient_answers_are_retried_and_a_long_retry_after_is_capped():
    said = []
    call, tries = failing(Answered(429, {"Retry-After": "99999"}), Answered(503))
    assert hub_call("the leaderboard", call, retry=FAST, say=said.append) == "done" and len(tries) == 3
    assert said[0] == ("the leaderboard: HTTP 429 Too Many Requests: HTTP 429; waiting 0.01 s before try 2 of 3 (the Hub "
                       "asked for 99999 s; a wait is capped at 0.01 s)")
    assert said[1].startswith("the leaderboard: HTTP 503 Service Unavailable") and "try 3 of 3" in said[1]


def test_what_is_not_transient_fails_at_once_and_the_last_failure_is_one_error():
    call, tries = failing(Answered(404))
    with pytest.raises(HubCallError, match=r"^model repo x: HTTP 404 Not Found: HTTP 404$") as caught:
        hub_call("model repo x", call, retry=FAST, say=lambda _: None)
    assert len(tries) == 1 and caught.value.status == 404
    call, tries = failing(*[Answered(500)] * 3)
    with pytest.raises(HubCallError, match=r"\(gave up after 3 tries\)$"):
        hub_call("model repo x", call, retry=FAST, say=lambda _: None)


def test_a_write_without_an_answer_is_looked_for_before_it_is_sent_again():
    library = http_library()
    cut = library.RemoteProtocolError("Server disconnected without sending a response.")
    assert unanswered(cut) and transient(cut) and status_of(cut) is None
    said, looked = [], []
    call, tries = failing(cut)
    found = hub_call("the commit", call, landed=lambda: looked.append(1) or "https://hub/commit/abc", retry=FAST,
                     say=said.append)
    assert found == "https://hub/commit/abc" and len(tries) == 1 and looked == [1]
    assert said == ["the commit: the connection was cut before the Hub answered; the Hub had applied it"]
    call, tries = failing(cut)
    assert hub_call("the commit", call, landed=lambda: None, retry=FAST, say=lambda _: None) == "done"
    assert len(tries) == 2  # not applied: sent again
