"""One redaction for every URL any command prints (base/redact.py): user info and query values hidden, the
environment's secrets (a password in HF_ENDPOINT, the tokens) never shown, punctuation after a URL kept."""

from __future__ import annotations

from builders.base.errors import one_line
from builders.base.redact import env_secrets, public_url, redact_text, url_secrets


def test_every_url_in_a_text_is_made_public(monkeypatch):
    monkeypatch.delenv("HF_ENDPOINT", raising=False)
    text = ("'Server disconnected' thrown while requesting PUT http://127.0.0.1:9/lfs-upload/ab12?sig=s3cr3t-sig&x=1. "
            "See https://user:pw-123456@hub.example/api, then http://h/v1?token=abcd: done")
    assert redact_text(text) == ("'Server disconnected' thrown while requesting PUT http://127.0.0.1:9/lfs-upload/ab12?"
                                 "sig=***&x=***. See https://***@hub.example/api, then http://h/v1?token=***: done")
    assert public_url("http://u:p@h:1/x?a=b#f") == "http://***@h:1/x?a=***"


def test_the_environments_secrets_are_hidden_wherever_they_appear(monkeypatch):
    monkeypatch.setenv("HF_ENDPOINT", "http://someone:pa55word-xyz@127.0.0.1:8/")
    monkeypatch.setenv("HF_TOKEN", "hf_abcdefghijklmnop")
    assert set(url_secrets("http://someone:pa55word-xyz@h/?k=verysecret")) >= {"pa55word-xyz", "someone:pa55word-xyz",
                                                                                 "verysecret"}
    assert "pa55word-xyz" in env_secrets() and "hf_abcdefghijklmnop" in env_secrets()
    said = one_line(RuntimeError("401 for http://127.0.0.1:8/api\n  password pa55word-xyz, token hf_abcdefghijklmnop"))
    assert said == "401 for http://127.0.0.1:8/api password ***, token ***"
