"""Snippet downloads send the bot token to Slack alone, and never across a redirect.

A signed file-share event names its file's URL; errkb fetches it with the bot
token only from Slack (here: the stand-in's origin, which is SLACK_API_URL's).
Another host, or a redirect from Slack to another origin, sees no token (here:
a second loopback server recording every request's headers), and the answer
says, in the reader's language, which file could not be read.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from bot.slack.adapter.downloads import may_carry_token, origin_of
from tests.slack.blockkit import read_text
from tests.slack.conftest import PASTE, ZH_USER, Bot


class Recorder:
    """A loopback HTTP server that serves a paste and keeps each request's headers."""

    def __init__(self) -> None:
        self.seen: list[dict[str, str]] = []
        recorder = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                recorder.seen.append(dict(self.headers))
                body = PASTE.encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"


@pytest.fixture
def foreign() -> Iterator[Recorder]:
    recorder = Recorder()
    yield recorder
    recorder.server.shutdown()
    recorder.server.server_close()


def _share(bot: Bot, url: str, *, user: str = "UENGLISH", name: str = "crash.log") -> None:
    bot.send.file_share(url, name=name, size=len(PASTE), user=user, channel_type="im")


def _answer(bot: Bot) -> str:
    """The one reply errkb sent (in the thread, or privately), as text."""
    deadline = time.monotonic() + 10
    while not (posts := bot.fake.of("chat.postMessage") + bot.fake.of("chat.postEphemeral")):
        assert time.monotonic() < deadline, "no reply"
        time.sleep(0.02)
    assert len(posts) == 1, posts
    return read_text(posts[0].params["blocks"])


def test_only_slack_and_the_api_origin_may_carry_the_token() -> None:
    api = origin_of("http://127.0.0.1:4010/api/")
    yes = [
        "https://files.slack.com/files-pri/T1-F1/download/crash.log",
        "https://files.slack-gov.com/x",
        "https://acme.enterprise.slack.com/files/x",
        "http://127.0.0.1:4010/files/crash.log",
    ]
    no = [
        "http://files.slack.com/files-pri/x",
        "https://files.slack.com.evil.example/x",
        "https://evilslack.com/x",
        "https://files.slack.com:8443/x",
        "http://127.0.0.1:4011/files/x",
        "https://127.0.0.1:4010/files/x",
        "file:///etc/passwd",
        "ftp://files.slack.com/x",
        "not a url",
        "https://user@evil.example/@files.slack.com/x",
    ]
    assert [u for u in yes if not may_carry_token(u, api)] == []
    assert [u for u in no if may_carry_token(u, api)] == []


def test_a_file_on_another_host_is_not_sent_the_token(bot: Bot, foreign: Recorder) -> None:
    _share(bot, foreign.url + "/files-pri/T1-F1/crash.log")
    text = _answer(bot)
    assert not [h for h in foreign.seen if "Authorization" in h], "the token went to a foreign host"
    assert "Could not read the attached file `crash.log`" in text


def test_a_redirect_off_slack_is_not_followed_with_the_token(bot: Bot, foreign: Recorder) -> None:
    bot.fake.moved["crash.log"] = foreign.url + "/elsewhere/crash.log"
    _share(bot, bot.fake.url + "/files/crash.log", user=ZH_USER)
    text = _answer(bot)
    asked = bot.fake.of("files.download")
    assert len(asked) == 1 and asked[0].headers["Authorization"].startswith("Bearer xoxb-"), (
        "Slack got the token"
    )
    assert not [h for h in foreign.seen if "Authorization" in h], "the token followed the redirect"
    assert "无法读取附件 `crash.log`" in text, "said in the reader's language"


def test_a_redirect_within_slack_is_followed_without_the_token(bot: Bot) -> None:
    bot.fake.files["crash.log"] = PASTE
    bot.fake.moved["moved.log"] = bot.fake.url + "/files/crash.log"
    _share(bot, bot.fake.url + "/files/moved.log", name="moved.log")
    _answer(bot)
    first, then = bot.fake.of("files.download")
    assert first.params["name"] == "moved.log" and "Authorization" in first.headers
    assert then.params["name"] == "crash.log" and "Authorization" not in then.headers
