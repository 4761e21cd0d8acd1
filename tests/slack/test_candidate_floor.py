"""Only candidates worth a look, over signed HTTP: chat lines get no records, an unknown
error gets one short public line with the Add button, never a list of few-percent guesses."""

from __future__ import annotations

import json

import pytest

from tests.slack.blockkit import assert_valid_message, buttons, read_text
from tests.slack.conftest import CHANNEL, ZH_USER, Bot

UNKNOWN = "ZorgleBlorpException: qwzx vrrp ktchk"
THREAD = "1722500000.000009"


def mention(bot: Bot, text: str, ts: str, user: str = "UENGLISH") -> None:
    bot.send.event(
        {
            "type": "app_mention",
            "channel": CHANNEL,
            "user": user,
            "ts": ts,
            "thread_ts": THREAD,
            "text": f"<@UBOT> {text}",
            "client_msg_id": f"cm-{ts}",
        }
    )


@pytest.mark.parametrize("chat", ["the retro moved to Thursday", "lunch at noon?"])
def test_a_chat_line_with_a_mention_gets_no_records_and_nothing_public(bot: Bot, chat: str) -> None:
    mention(bot, chat, "1722500003.000001")
    [private] = bot.fake.wait_for("chat.postEphemeral")
    text = read_text(private.params["blocks"])
    assert "could not find an error" in text and "errkbtest/" not in text and "llm/" not in text
    assert bot.fake.of("chat.postMessage") == []


@pytest.mark.parametrize(
    ("user", "line"),
    [
        ("UENGLISH", "Nothing in the knowledge base matches this error yet."),
        (ZH_USER, "知识库中还没有与这个错误匹配的记录。"),
    ],
)
def test_an_unknown_error_in_a_thread_is_one_short_line_with_add(
    bot: Bot, user: str, line: str
) -> None:
    mention(bot, UNKNOWN, "1722500004.000001", user=user)
    [post] = bot.fake.wait_for("chat.postMessage")
    blocks = post.params["blocks"]
    assert post.params["thread_ts"] == THREAD
    assert len(blocks) == 1 and read_text(blocks).strip() == line
    assert list(buttons(blocks)) == ["errkb.add_record"]
    assert "%" not in json.dumps(blocks)  # no scored guesses
    assert_valid_message(post.params)


def test_errkb_on_a_chat_line_lists_no_candidates(bot: Bot) -> None:
    bot.send.command("lunch at noon?")
    [call] = bot.fake.wait_for("response_url")
    text = json.dumps(call.params["blocks"], ensure_ascii=False)
    assert "Not sure" not in text and "errkbtest/" not in text and "llm/" not in text


def test_errkb_on_an_unknown_error_shows_the_error_but_no_guesses(bot: Bot) -> None:
    bot.send.command(UNKNOWN)
    [call] = bot.fake.wait_for("response_url")
    text = read_text(call.params["blocks"])
    assert "ZorgleBlorpException" in text and "Not sure" not in text and "%" not in text
