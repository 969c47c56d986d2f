"""``server/secrets.py``: a base URL's credentials and query, sent where they belong and never shown."""

from __future__ import annotations

import base64

import pytest

from builders.base.errors import SettingError
from builders.run.server.secrets import BaseAddress, public_url, redact


def test_a_base_url_is_split_into_what_is_sent_and_what_is_shown():
    address = BaseAddress.parse("https://us%40er:p%2Fw-long@Gateway.example:8443/v1/?api-version=2024-06-01&t=ab#frag")
    assert address.url == "https://gateway.example:8443/v1"  # requests join their paths to this: no credentials
    assert address.query == (("api-version", "2024-06-01"), ("t", "ab"))  # sent with every request
    assert (address.username, address.password) == ("us@er", "p/w-long")
    assert address.shown == "https://***@gateway.example:8443/v1/?api-version=***&t=***"
    assert address.basic == "Basic " + base64.b64encode(b"us@er:p/w-long").decode()
    assert address.headers(None) == {"Authorization": address.basic} and address.headers("sk-key") == {}
    assert "not sent" in address.unsent_user_info("sk-key") and address.unsent_user_info(None) is None
    secrets = address.secrets()
    assert {"p/w-long", "us@er:p/w-long", address.basic.split()[1], "p%2Fw-long", "2024-06-01"} <= set(secrets)
    assert "ab" not in secrets  # too short to scrub from texts (it is still shown as ***)


def test_redaction_takes_the_longest_secret_first():
    assert redact("user:pw and pw and sk-1", "pw", "user:pw", None, "sk-1") == "*** and *** and ***"


def test_what_is_shown_of_any_url():
    assert public_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert public_url("http://[::1]:8000/v1?flag") == "http://[::1]:8000/v1?flag=***"
    assert public_url("http://h:port/v1") == "http://h:port/v1"  # a port that is not a number is kept as written


@pytest.mark.parametrize("url", ["localhost:8000/v1", "ftp://h/v1", "http:///v1", "http://u:pw@h:99999999/v1"])
def test_what_is_not_an_http_url_is_a_setting_error_that_shows_no_credential(url):
    with pytest.raises(SettingError) as caught:
        BaseAddress.parse(url)
    assert caught.value.setting == "base_urls" and "pw" not in str(caught.value)
