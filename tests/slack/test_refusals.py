"""What a person and an operator see when Slack refuses: errkb not in the channel, the channel
gone, the bot token revoked in the middle of a job. The stand-in answers these as Slack does
(``FakeSlack.refuse``); each path ends as errkb promises: permanent refusals are not retried, a
refused token stops everything sent with it until Slack takes it again."""

from __future__ import annotations

import json
import logging
import time

import pytest

from tests.slack.conftest import CHANNEL, EN_USER, PASTE, TOKEN, Bot, Counted, wait_done
from tests.slack.fake_slack import FakeSlack
from tests.slack.standalone import standalone


def _errors(counted: Counted, method: str, error: str) -> float:
    return counted.value("errkb_slack_api_errors_total", method=method, error=error)


def test_a_paste_in_a_channel_errkb_is_not_in_is_tried_once_and_counted(
    bot: Bot, counted: Counted
) -> None:
    bot.fake.refuse("not_in_channel", channel=CHANNEL)
    response, ts = bot.send.message(PASTE)
    assert response.status == 200
    wait_done(bot, f"msg:cm-{ts}")
    time.sleep(0.3)
    assert len(bot.fake.of("chat.postMessage")) == 1  # a permanent answer: not retried
    assert bot.fake.of("chat.postEphemeral") == []  # nobody asked: nothing else is said
    assert _errors(counted, "chat.postMessage", "not_in_channel") == 1


def test_the_lookup_shortcut_where_errkb_is_not_in_the_channel_tells_the_person(bot: Bot) -> None:
    bot.fake.refuse("not_in_channel", channel=CHANNEL)
    response = bot.send.interactive(
        {
            "type": "message_action",
            "callback_id": "errkb_lookup",
            "trigger_id": "t-notin",
            "team": {"id": "T1"},
            "user": {"id": EN_USER},
            "channel": {"id": CHANNEL, "name": "errors"},
            "response_url": bot.fake.response_url("notin"),
            "message_ts": "1722500007.000001",
            "message": {
                "type": "message",
                "user": "UOTHER",
                "text": PASTE,
                "ts": "1722500007.000001",
            },
        }
    )
    assert response.status == 200
    told = bot.fake.wait_for("response_url", where=lambda c: c.params.get("name") == "notin")
    assert len(told) == 1 and "/invite @errkb" in json.dumps(told[0].params)
    assert len(bot.fake.of("chat.postMessage")) == 1


def test_a_welcome_to_a_channel_that_is_gone_is_not_retried(bot: Bot, counted: Counted) -> None:
    bot.fake.refuse("channel_not_found", channel="CGONE")
    event = {
        "type": "member_joined_channel",
        "user": "UBOT",
        "channel": "CGONE",
        "channel_type": "C",
        "team": "T1",
        "event_ts": "1722500000.000200",
    }
    assert bot.send.event(event, event_id="EvGONE001").status == 200
    wait_done(bot, "event:EvGONE001")
    time.sleep(0.3)
    assert len(bot.fake.of("chat.postMessage")) == 1
    assert _errors(counted, "chat.postMessage", "channel_not_found") == 1


@pytest.mark.slow
def test_a_token_revoked_mid_job_stops_what_is_sent_with_it_until_slack_takes_it_again(
    bot: Bot, fake_slack: FakeSlack, blank_database_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="bot.slack.adapter.link")
    with standalone(bot.records, fake_slack, blank_database_url, slack_bot_token=TOKEN) as own:
        assert own.health_until(lambda s, b: s == 200)[0] == 200
        revoked = fake_slack.refuse("token_revoked", token=TOKEN)
        response, ts = own.send.message(PASTE)
        assert response.status == 200  # taken before Slack refused anything
        assert fake_slack.wait_for("chat.postMessage")  # the answer was refused
        # the operator sees errkb broken, naming the token
        status, body = own.health_until(lambda s, b: s == 503)
        assert status == 503 and body["status"] == "broken" and "token_revoked" in body["reason"]
        checks = len(fake_slack.of("auth.test"))
        time.sleep(1.5)
        assert (
            len(fake_slack.of("chat.postMessage")) == 1
        )  # nothing more is sent with the dead token
        assert len(fake_slack.of("auth.test")) > checks  # but it is checked again, with backoff
        assert own.jobs() == [("paste", "pending", own.jobs()[0][2])]  # the answer waits

        fake_slack.allow(revoked)
        posts = fake_slack.wait_for(
            "chat.postMessage", 2, where=lambda c: c.params.get("thread_ts") == ts
        )
        assert len(posts) == 2  # the refused attempt, then the answer, once
        assert own.health_until(lambda s, b: s == 200)[0] == 200
        assert own.jobs_until(lambda j: j[0][1] == "done")[0][1] == "done"
    said = [
        r.getMessage()
        for r in caplog.records
        if r.name == "bot.slack.adapter.link" and r.levelno >= logging.ERROR
    ]
    assert len(said) == 1 and "token_revoked" in said[0]
