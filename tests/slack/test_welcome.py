"""errkb invited to a channel says once, in the channel's language, what it does and how to
configure it."""

from __future__ import annotations

import json

from sqlalchemy import func, select

from bot.channels import Mode
from bot.store import channel_repo
from bot.store.models import JobRow
from tests.slack.blockkit import assert_valid_message
from tests.slack.conftest import EN_USER, MAINTAINER, TODAY, ZH_USER, Bot, wait_done
from tests.slack.fake_slack import BOT_USER

NEW_CHANNEL = "C0NEWTEAM"


def _joined(
    bot: Bot, user: str = BOT_USER, inviter: str | None = EN_USER, event_id: str | None = None
) -> None:
    event = {
        "type": "member_joined_channel",
        "user": user,
        "channel": NEW_CHANNEL,
        "channel_type": "C",
        "team": "T1",
        "event_ts": "1722500000.000100",
        **({"inviter": inviter} if inviter else {}),
    }
    assert bot.send.event(event, event_id=event_id).status == 200


def _welcomes(bot: Bot, count: int = 1) -> list[dict[str, object]]:
    found = bot.fake.wait_for(
        "chat.postMessage", count, where=lambda c: c.params.get("channel") == NEW_CHANNEL
    )
    return [c.params for c in found]


def test_errkb_invited_says_what_it_does_and_how_to_configure_it(bot: Bot) -> None:
    _joined(bot)
    [post] = _welcomes(bot)
    assert_valid_message(post)
    shown = json.dumps(post["blocks"])
    assert "Hi, I'm errkb" in str(post["text"]) and "/errkb channel" in shown
    assert "In this channel errkb is *on*" in shown and "thread_ts" not in post


def test_the_welcome_is_in_the_inviters_language_unless_the_channel_has_one(bot: Bot) -> None:
    _joined(bot, inviter=ZH_USER)
    assert "你好，我是 errkb" in str(_welcomes(bot)[0]["text"])
    bot.fake.reset()
    with bot.store.transaction() as session:
        channel_repo.set_channel_locale(
            session, channel=NEW_CHANNEL, locale="en", by=MAINTAINER, at=TODAY
        )
    _joined(bot, inviter=ZH_USER)
    assert "Hi, I'm errkb" in str(_welcomes(bot)[0]["text"])


def test_someone_else_joining_is_not_welcomed(bot: Bot) -> None:
    _joined(bot, user=EN_USER)
    _joined(bot)  # errkb's own join, after: the only welcome
    assert len(_welcomes(bot)) == 1
    assert len(bot.fake.of("chat.postMessage")) == 1


def test_a_redelivered_event_welcomes_once(bot: Bot) -> None:
    _joined(bot, event_id="EvWELCOME1")
    _joined(bot, event_id="EvWELCOME1")
    _welcomes(bot)
    wait_done(bot, "event:EvWELCOME1")
    with bot.store.read() as session:
        assert session.scalar(select(func.count()).select_from(JobRow)) == 1
    assert len(bot.fake.of("chat.postMessage")) == 1


def test_a_channel_switched_off_hears_nothing(bot: Bot) -> None:
    with bot.store.transaction() as session:
        channel_repo.set_channel_mode(
            session, channel=NEW_CHANNEL, mode=Mode.OFF, by=MAINTAINER, at=TODAY
        )
    _joined(bot, inviter=None, event_id="EvWELCOME2")
    wait_done(bot, "event:EvWELCOME2")
    assert bot.fake.of("chat.postMessage") == []
