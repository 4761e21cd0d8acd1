"""A paste or a search holding a NUL byte or a lone surrogate (which JSON carries, PostgreSQL
refuses and no driver can encode) is acknowledged and answered, on SQLite and PostgreSQL alike:
the text is cleaned as Slack's payload is read."""

from __future__ import annotations

import json

from tests.slack.conftest import CHANNEL, PASTE, Bot

UNFIT = {"NUL": "\x00", "lone surrogate": "\ud800", "both": "\x00\udfff\x00"}


def test_a_paste_with_a_nul_or_a_lone_surrogate_is_answered_in_its_thread(bot: Bot) -> None:
    for name, bad in UNFIT.items():
        bot.fake.reset()
        text = PASTE.replace("core temperature", f"core{bad} temperature") + bad
        response, ts = bot.send.message(text)
        assert response.status == 200, (name, response.status, response.body[:300])
        posts = bot.fake.wait_for("chat.postMessage")
        assert len(posts) == 1, name
        post = posts[0].params
        assert post["channel"] == CHANNEL and post["thread_ts"] == ts
        assert "Prime the coolant loop" in post["text"], (name, post["text"])
        assert "\x00" not in json.dumps(post) and "\\ud800" not in json.dumps(post)


def test_a_search_with_a_nul_is_answered_privately(bot: Bot) -> None:
    response = bot.send.command("search frobnicator\x00 temperature\x00")
    assert response.status == 200, response.body[:300]
    [call] = bot.fake.wait_for("response_url")
    assert "errkbtest/frobnicator-overheat" in json.dumps(call.params["blocks"])


def test_a_search_of_nothing_but_a_nul_is_answered_privately(bot: Bot) -> None:
    response = bot.send.command("search \x00")
    assert response.status == 200, response.body[:300]
    [call] = bot.fake.wait_for("response_url")
    assert call.params["response_type"] == "ephemeral" and "Traceback" not in json.dumps(
        call.params
    )
