"""``errkb serve`` starts like a service when Slack will not have it: a revoked token, or Slack
unreachable, at start. The process stays up without a traceback, says which in one log line,
``/healthz`` answers 503 ``broken`` naming the token or Slack, and once Slack takes the token
(or answers) again the bot answers a paste. Real processes, real HTTP, the loopback Slack."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests.ops.conftest import ServeProcess, _free_port
from tests.slack.conftest import EN_USER, PASTE, TOKEN
from tests.slack.fake_slack import FakeSlack

BROKEN_SECONDS = 20.0
RECOVER_SECONDS = 45.0


def _health_until(
    process: ServeProcess, wanted: Callable[[int, dict[str, Any]], bool], timeout: float
) -> tuple[int, dict[str, Any]]:
    deadline = time.monotonic() + timeout
    while True:
        status, body = process.health()
        if wanted(status, body):
            return status, body
        assert process.proc.poll() is None, "errkb serve exited:\n" + "\n".join(process.lines)
        assert time.monotonic() < deadline, f"/healthz stayed {status} {body}:\n" + "\n".join(
            process.lines
        )
        time.sleep(0.1)


def _messages(process: ServeProcess, words: str) -> list[str]:
    return [r["msg"] for r in process.records() if words in str(r.get("msg", ""))]


def _answered(process: ServeProcess, fake: FakeSlack) -> None:
    response, ts = process.sender(fake).message(PASTE, user=EN_USER)
    assert response.status == 200
    answers = fake.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts, timeout=20
    )
    assert len(answers) == 1, "\n".join(process.lines)


@pytest.mark.slow
@pytest.mark.parametrize("error", ["token_revoked", "invalid_auth"])
def test_a_refused_token_at_start_leaves_serve_up_and_broken_until_slack_takes_it(
    serve: Any, fake_slack: FakeSlack, error: str
) -> None:
    revoked = fake_slack.refuse(error, token=TOKEN)
    process = serve().listening()
    started = time.monotonic()
    status, body = _health_until(process, lambda s, b: b.get("status") == "broken", BROKEN_SECONDS)
    assert status == 503 and body["slack"] is False
    assert "token" in body["reason"] and error in body["reason"]
    assert time.monotonic() - started < 5  # within seconds of listening
    # meanwhile Slack is asked to deliver again later, and nothing is sent with the token
    response, _ = process.sender(fake_slack).message(PASTE, user=EN_USER)
    assert response.status == 503
    assert fake_slack.of("chat.postMessage") == []
    checks = len(fake_slack.of("auth.test"))
    time.sleep(2.5)
    assert (
        1 <= len(fake_slack.of("auth.test")) - checks <= 3
    )  # tried again, with backoff: not in a loop

    fake_slack.allow(revoked)
    _health_until(process, lambda s, b: s == 200 and b.get("ok"), RECOVER_SECONDS)
    _answered(process, fake_slack)
    assert process.proc.poll() is None
    assert len(_messages(process, "Slack refuses the bot token")) == 1
    assert not any("Traceback" in line for line in process.lines)


@pytest.mark.slow
def test_slack_unreachable_at_start_leaves_serve_up_and_broken_until_slack_answers(
    serve: Any, tmp_path: Any
) -> None:
    port = _free_port()  # nothing listens there yet: Slack is down
    process = serve(SLACK_API_URL=f"http://127.0.0.1:{port}/api/").listening()
    status, body = _health_until(process, lambda s, b: b.get("status") == "broken", BROKEN_SECONDS)
    assert status == 503 and "Slack unreachable" in body["reason"]

    fake = FakeSlack(users={EN_USER: {"locale": "en-US"}}, token=TOKEN).start(
        port=port
    )  # Slack is back
    try:
        _health_until(process, lambda s, b: s == 200 and b.get("ok"), RECOVER_SECONDS)
        _answered(process, fake)
    finally:
        fake.stop()
    assert len(_messages(process, "Slack unreachable")) == 1
    assert not any("Traceback" in line for line in process.lines)


@pytest.mark.slow
def test_socket_mode_with_slack_unreachable_stays_up_and_says_so_once(
    serve_env: dict[str, str], tmp_path: Any
) -> None:
    port = _free_port()
    env = {
        **serve_env,
        "SLACK_API_URL": f"http://127.0.0.1:{port}/api/",
        "SLACK_APP_TOKEN": "xapp-1-test-app-token",
    }
    process = ServeProcess(env, tmp_path, args=("serve", "--socket"))
    try:
        process.wait_for_line("keeps trying to connect", timeout=30)
        time.sleep(4)  # several tries later
        assert process.proc.poll() is None, "\n".join(process.lines)
        assert len(_messages(process, "keeps trying to connect")) == 1
        assert not any("Traceback" in line for line in process.lines)
    finally:
        process.kill()


@pytest.mark.slow
def test_socket_mode_with_the_app_token_refused_stays_up_and_says_so_once(
    serve_env: dict[str, str], tmp_path: Any, fake_slack: FakeSlack
) -> None:
    fake_slack.refuse("invalid_auth", method="apps.connections.open")
    process = ServeProcess(
        {**serve_env, "SLACK_APP_TOKEN": "xapp-1-revoked-app-token"},
        tmp_path,
        args=("serve", "--socket"),
    )
    try:
        process.wait_for_line("Slack refuses the app token", timeout=30)
        time.sleep(4)  # several tries later
        assert len(fake_slack.of("apps.connections.open")) >= 3
        assert process.proc.poll() is None, "\n".join(process.lines)
        assert len(_messages(process, "app token")) == 1
        assert not any("WSS URL" in line for line in process.lines)  # not a line per try
        assert not any("Traceback" in line for line in process.lines)
    finally:
        process.kill()


def test_connect_socket_backs_off_and_says_each_kind_of_failure_once(caplog: Any) -> None:
    import logging

    from slack_sdk.errors import SlackApiError
    from slack_sdk.web import SlackResponse

    from bot.slack.adapter.link import connect_socket

    refused = SlackResponse(
        client=None,
        http_verb="POST",
        api_url="",
        req_args={},
        data={"ok": False, "error": "invalid_auth"},
        headers={},
        status_code=200,
    )
    failures: list[Exception] = [
        ConnectionRefusedError(),
        ConnectionRefusedError(),
        SlackApiError("no", refused),
        SlackApiError("no", refused),
    ]
    waits: list[float] = []

    def connect() -> None:
        if failures:
            raise failures.pop(0)

    with caplog.at_level(logging.INFO, logger="bot.slack.adapter.link"):
        connect_socket(connect, first_backoff=1.0, max_backoff=3.0, sleep=waits.append)
    assert waits == [1.0, 2.0, 3.0, 3.0]
    said = [r.getMessage() for r in caplog.records if r.name == "bot.slack.adapter.link"]
    assert (
        len(said) == 3
        and "unreachable" in said[0]
        and "invalid_auth" in said[1]
        and "connected" in said[2]
    )
