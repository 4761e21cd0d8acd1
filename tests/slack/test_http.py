"""The HTTP surface: signatures, url_verification, /healthz, /metrics; tokens never logged."""

from __future__ import annotations

import json
import logging
import time
import urllib.request

import pytest

from bot.slack.web.logs import RedactTokens
from tests.slack.conftest import ACK_S, PASTE, TOKEN, Bot, Counted


def _get(url: str) -> tuple[int, str]:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read().decode()


def test_url_verification_echoes_the_challenge(bot: Bot) -> None:
    body = json.dumps(
        {"token": "legacy", "challenge": "abc123", "type": "url_verification"}
    ).encode()
    response = bot.send.post(body, "application/json")
    assert response.status == 200 and response.json()["challenge"] == "abc123"


def test_a_forged_signature_is_refused(bot: Bot) -> None:
    body = json.dumps(
        {
            "type": "event_callback",
            "event_id": "EvForged",
            "event": {"type": "message", "channel": "C1", "user": "U1", "text": PASTE, "ts": "1.0"},
        }
    ).encode()
    assert bot.send.post(body, "application/json", secret="not-the-secret").status == 401
    assert bot.send.command("help", secret="wrong").status == 401
    assert bot.fake.wait_for("chat.postMessage", timeout=0.5) == []


def test_a_workspace_errkb_is_not_installed_in_is_refused(bot: Bot) -> None:
    event = {
        "token": "legacy",
        "team_id": "T0STRANGER",
        "api_app_id": "A1",
        "type": "event_callback",
        "event_id": "EvStranger",
        "event": {
            "type": "message",
            "channel": "C1",
            "user": "U1",
            "text": PASTE,
            "ts": "1722500000.999001",
        },
    }
    assert bot.send.post(json.dumps(event).encode(), "application/json").status == 403
    assert bot.send.command("help", team_id="T0STRANGER").status == 403
    assert bot.fake.wait_for("chat.postMessage", timeout=0.5) == []
    assert bot.fake.wait_for("response_url", timeout=0.5) == []


def test_a_full_queue_asks_slack_to_deliver_again_later(bot: Bot, counted: Counted) -> None:
    from datetime import UTC, datetime, timedelta

    from bot.store import jobs_repo

    later = datetime.now(UTC) + timedelta(
        hours=1
    )  # due in an hour: they wait in the queue meanwhile
    with bot.store.transaction() as session:
        for n in range(bot.settings.queue_limit):
            jobs_repo.enqueue_job(
                session,
                key=f"filler:{n}",
                kind="paste",
                payload={},
                team_id="T1",
                channel="C1",
                now=later,
                deadline=later,
            )
    response, _ = bot.send.message(PASTE)
    assert response.status == 503 and response.seconds < ACK_S
    assert counted.value("errkb_declines_total", reason="queue_full") == 1
    assert bot.fake.wait_for("chat.postMessage", timeout=0.5) == []


def test_a_replayed_request_older_than_five_minutes_is_refused(bot: Bot) -> None:
    old = int(time.time()) - 6 * 60
    assert bot.send.command("help", timestamp=old).status == 401
    assert bot.send.command("help", timestamp=int(time.time()) - 60).status == 200


def test_healthz_reports_database_and_knowledge_base(bot: Bot) -> None:
    status, body = _get(bot.url + "/healthz")
    data = json.loads(body)
    assert status == 200 and data["ok"] and data["database"]
    assert data["knowledge_base"]["loaded"] and data["knowledge_base"]["records"] == len(
        bot.records
    )


def test_metrics_are_prometheus_text(bot: Bot) -> None:
    bot.send.message(PASTE)
    bot.fake.wait_for("chat.postMessage")
    deadline = time.monotonic() + 5
    while (
        bot.metrics.value("errkb_answers_total", kind="answer") < 1 and time.monotonic() < deadline
    ):
        time.sleep(0.01)
    status, body = _get(bot.url + "/metrics")
    assert status == 200
    assert 'errkb_events_total{kind="event:message"}' in body
    assert 'errkb_answers_total{kind="answer"}' in body
    assert 'errkb_match_seconds_bucket{le="+Inf"}' in body and "errkb_match_seconds_count" in body
    assert "# TYPE errkb_slack_api_errors_total counter" in body
    assert "errkb_declines_total" in body


def test_tokens_never_reach_the_logs(bot: Bot, caplog: pytest.LogCaptureFixture) -> None:
    redact = RedactTokens()
    root = logging.getLogger()
    root.addFilter(redact)
    caplog.handler.addFilter(redact)
    try:
        with caplog.at_level(logging.DEBUG):
            bot.send.message(PASTE)
            bot.fake.wait_for("chat.postMessage")
            bot.send.command("help")
            bot.fake.wait_for("response_url")
    finally:
        root.removeFilter(redact)
    assert caplog.records, "expected debug logging from slack_sdk and bolt"
    assert all(TOKEN not in r.getMessage() for r in caplog.records)
