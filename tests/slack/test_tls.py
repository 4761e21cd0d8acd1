"""Slack over HTTPS, as the real one is: every client errkb builds checks Slack's
certificate, and all of them share one TLS context (a context made per connection reads
the system's CA certificates again each time, which cost more CPU than the call).

The stand-in serves HTTPS with a certificate made for the test; the shared context is
told to trust it, as ``SSL_CERT_FILE`` tells it in a deployment behind its own CA."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.errors import SlackUnavailable
from bot.slack.adapter.downloads import download, origin_of
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.tls import client_context
from bot.slack.web.metrics import Metrics
from tests.slack.blockkit import read_text
from tests.slack.conftest import EN_USER, PASTE, TOKEN, Bot
from tests.slack.fake_slack import FakeSlack
from tests.slack.fake_slack.tls import self_signed
from tests.slack.standalone import standalone


@pytest.fixture
def https_slack(tmp_path: Path) -> Iterator[FakeSlack]:
    cert, server = self_signed(tmp_path)
    client_context().load_verify_locations(cert)
    fake = FakeSlack(users={EN_USER: {"locale": "en-US"}}, token=TOKEN, tls=server).start()
    yield fake
    fake.stop()


def test_a_snippet_is_read_and_answered_over_https_on_one_tls_context(
    bot: Bot, https_slack: FakeSlack, blank_database_url: str
) -> None:
    assert https_slack.api_url.startswith("https://")
    https_slack.files["crash.log"] = PASTE
    with standalone(bot.records, https_slack, blank_database_url, slack_bot_token=TOKEN) as own:
        url = https_slack.url + "/files/crash.log"
        own.send.file_share(url, size=len(PASTE), channel_type="im")
        deadline = time.monotonic() + 10
        while not (posts := https_slack.of("chat.postMessage")):
            assert time.monotonic() < deadline, "no answer over HTTPS"
            time.sleep(0.02)
        assert "FrobnicatorOverheatError" in read_text(posts[0].params["blocks"])
        assert [c.params["name"] for c in https_slack.of("files.download")] == ["crash.log"]
        shared = client_context()
        assert own.slack_bot.gateway.client.ssl is shared
        assert own.slack_bot.app.client.ssl is shared  # Bolt's per-request clients copy it


def test_a_slack_whose_certificate_is_not_trusted_is_sent_nothing(tmp_path: Path) -> None:
    _, server = self_signed(tmp_path, "untrusted")
    fake = FakeSlack(token=TOKEN, tls=server).start()
    try:
        fake.files["crash.log"] = PASTE
        gateway = SlackGateway(token=TOKEN, base_url=fake.api_url, metrics=Metrics())
        with pytest.raises(SlackUnavailable):
            gateway.call("auth.test")
        api = origin_of(fake.api_url)
        file_url = fake.url + "/files/crash.log"
        assert download(file_url, token=TOKEN, api_origin=api, max_bytes=1000) is None
        assert fake.calls == []  # no request, so no token, reached it
    finally:
        fake.stop()
