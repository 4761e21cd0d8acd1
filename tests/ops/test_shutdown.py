"""Graceful shutdown: SIGTERM stops ``errkb serve --http`` accepting, lets the answers in flight
reach Slack, then exits 0."""

from __future__ import annotations

import socket
import time
from typing import Any

import pytest

from tests.ops.conftest import ServeProcess
from tests.slack.conftest import PASTE
from tests.slack.fake_slack import FakeSlack


def refuses_connections(port: int, timeout: float = 10.0) -> bool:
    """True once nothing accepts on ``port`` (polled until ``timeout``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
        except OSError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.slow
def test_sigterm_finishes_the_answer_in_flight_then_exits_0(
    serve: Any, fake_slack: FakeSlack
) -> None:
    bot: ServeProcess = serve().ready()
    fake_slack.hold("chat.postMessage")  # the answer is on its way to Slack, not yet there
    try:
        response, ts = bot.sender(fake_slack).message(PASTE)
        assert response.status == 200
        assert fake_slack.wait_for(
            "chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts
        )
        bot.terminate()
        bot.wait_for_line("stopping on signal")
        assert bot.port is not None and refuses_connections(bot.port), (
            "still accepting after SIGTERM"
        )
        assert bot.proc.poll() is None, "exited before the answer in flight was delivered"
    finally:
        fake_slack.release("chat.postMessage")
    assert bot.wait() == 0
    answers = fake_slack.of("chat.postMessage")
    assert len(answers) == 1 and answers[0].params["thread_ts"] == ts
    assert any(r["msg"] == "work in flight finished" for r in bot.records())
    assert not bot.tracebacks(), bot.tracebacks()


@pytest.mark.slow
def test_sigterm_when_idle_exits_0_at_once(serve: Any) -> None:
    bot: ServeProcess = serve().ready()
    bot.terminate()
    assert bot.wait(timeout=15) == 0
