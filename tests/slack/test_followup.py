"""Closing the loop: once a maintainer adds a record for an unknown error, every thread it was
pasted in is told, once, in the language errkb answered there."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from sqlalchemy import select

from bot.channels import Mode
from bot.render.ids import ActionId, BlockId, CallbackId, InputId
from bot.render.state import AddState
from bot.store import channel_repo, repository
from bot.store.models import UnknownErrorRow, UnknownSightingRow
from tests.slack.blockkit import assert_valid_message
from tests.slack.conftest import (
    CHANNEL,
    EN_USER,
    MAINTAINER,
    TODAY,
    ZH_USER,
    Bot,
    wait_done,
    wait_for_unknown,
)
from tests.slack.fake_slack import BOT_USER, Call

ERROR = "RuntimeError: the flux capacitor is misaligned by 3 degrees"
RECORD = "physics/flux-capacitor-misaligned"
QUIET = "C0QUIET"


@pytest.fixture
def cleanup(bot: Bot) -> Iterator[None]:
    yield
    with bot.store.transaction() as session:
        repository.delete_record(session, record_id=RECORD, actor="test", now=TODAY)


def _mention(bot: Bot, text: str, *, user: str, ts: str, channel: str = CHANNEL) -> None:
    event = {
        "type": "app_mention",
        "channel": channel,
        "user": user,
        "text": f"<@{BOT_USER}> {text}",
        "ts": ts,
        "client_msg_id": f"cm-{ts}",
    }
    assert bot.send.event(event).status == 200


def _unknown_id(bot: Bot) -> int:
    wait_for_unknown(bot, "flux capacitor")
    with bot.store.read() as session:
        found = session.scalar(
            select(UnknownErrorRow.id).where(UnknownErrorRow.sample.contains("flux capacitor"))
        )
    assert found is not None
    return int(found)


def _threads(bot: Bot) -> set[tuple[str, str, str]]:
    with bot.store.read() as session:
        rows = session.execute(
            select(
                UnknownSightingRow.channel, UnknownSightingRow.thread_ts, UnknownSightingRow.user_id
            )
        ).all()
    return {tuple(r) for r in rows}  # type: ignore[misc]


def _add_record(bot: Bot, unknown: int) -> None:
    """A maintainer adds the record from the unknown queue's button, through the modal."""
    bot.send.click(ActionId.ADD_RECORD, AddState(unknown=unknown).dump(), user=MAINTAINER)
    view = bot.fake.wait_for("views.open")[-1].params["view"]
    values = {
        BlockId.RECORD_ID: RECORD,
        BlockId.SIGNATURE: ERROR,
        BlockId.REGEX: "flux capacitor is misaligned",
        BlockId.DOMAIN: "physics",
        BlockId.ROOT_CAUSE: "The flux capacitor was knocked out of alignment.",
        BlockId.WORKAROUND: "Realign the capacitor to 0 degrees",
    }
    state = {
        "values": {
            b: {InputId.VALUE: {"type": "plain_text_input", "value": v}} for b, v in values.items()
        }
    }
    response = bot.send.interactive(
        {
            "type": "view_submission",
            "team": {"id": "T1"},
            "user": {"id": MAINTAINER},
            "api_app_id": "A1",
            "view": {
                "id": "VADD",
                "type": "modal",
                "callback_id": CallbackId.ADD_RECORD_VIEW,
                "private_metadata": view["private_metadata"],
                "state": state,
            },
        }
    )
    assert response.status == 200 and response.body in (b"", b"{}")


def _follow_ups(bot: Bot, count: int) -> list[Call]:
    return bot.fake.wait_for(
        "chat.postMessage",
        count,
        where=lambda c: (
            bool(c.params.get("thread_ts")) and "flux" in json.dumps(c.params.get("blocks"))
        ),
    )


def test_every_thread_the_error_was_pasted_in_is_told_once_in_its_language(
    bot: Bot, cleanup: None
) -> None:
    _, first = bot.send.message(
        ERROR
    )  # not answered (nobody asked, errkb is not sure): remembered all the same
    _unknown_id(bot)
    bot.send.message(
        ERROR.replace("3", "7"), user=ZH_USER, thread_ts=first
    )  # the same thread again
    _mention(
        bot, ERROR, user=ZH_USER, ts="1722500100.000001"
    )  # asked: answered "unknown" in Chinese
    unknown = _unknown_id(bot)
    bot.fake.wait_for("chat.postMessage")
    assert _threads(bot) == {(CHANNEL, first, EN_USER), (CHANNEL, "1722500100.000001", ZH_USER)}
    bot.fake.reset()
    _add_record(bot, unknown)
    told = {c.params["thread_ts"]: c.params for c in _follow_ups(bot, 2)}
    assert set(told) == {first, "1722500100.000001"}
    for post in told.values():
        assert_valid_message(post)
        assert RECORD in json.dumps(post["blocks"]) and "Realign the capacitor" in json.dumps(
            post["blocks"]
        )
    assert f"<@{EN_USER}> errkb now knows this error" in json.dumps(told[first]["blocks"])
    assert f"<@{ZH_USER}> errkb 现在认识这个错误了" in json.dumps(
        told["1722500100.000001"]["blocks"], ensure_ascii=False
    )
    assert f"<@{MAINTAINER}>" in json.dumps(told[first]["blocks"])
    thanks = bot.fake.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("channel") == MAINTAINER
    )
    assert thanks
    # the same error noted again later, and the job done again: nobody hears it twice
    wait_done(bot, f"follow_up:{unknown}:{RECORD}")
    with bot.store.read() as session:
        untold = session.scalars(
            select(UnknownSightingRow).where(UnknownSightingRow.told_at.is_(None))
        ).all()
        told_record = session.scalars(select(UnknownSightingRow.told_record)).all()
    assert untold == [] and set(told_record) == {RECORD}


def test_off_and_quiet_channels_are_left_alone_unless_errkb_answered_there(
    bot: Bot, cleanup: None
) -> None:
    with bot.store.transaction() as session:
        channel_repo.set_channel_mode(
            session, channel=CHANNEL, mode=Mode.OFF, by=MAINTAINER, at=TODAY
        )
        channel_repo.set_channel_mode(
            session, channel=QUIET, mode=Mode.QUIET, by=MAINTAINER, at=TODAY
        )
    bot.send.message(ERROR)  # an off channel
    bot.send.message(ERROR, channel=QUIET, ts="1722500200.000001")  # quiet, nobody asked
    _mention(
        bot, ERROR, user=EN_USER, ts="1722500200.000009", channel=QUIET
    )  # quiet, asked: errkb answered
    unknown = _unknown_id(bot)
    bot.fake.wait_for("chat.postMessage")
    assert len(_threads(bot)) == 3
    bot.fake.reset()
    _add_record(bot, unknown)
    wait_done(bot, f"follow_up:{unknown}:{RECORD}")
    posts = [c for c in bot.fake.of("chat.postMessage") if c.params.get("thread_ts")]
    assert [(c.params["channel"], c.params["thread_ts"]) for c in posts] == [
        (QUIET, "1722500200.000009")
    ]


def test_a_follow_up_slack_refused_for_now_is_sent_later_once(bot: Bot, cleanup: None) -> None:
    _, first = bot.send.message(ERROR)
    unknown = _unknown_id(bot)
    bot.fake.reset()
    bot.fake.rate_limit(
        CHANNEL, seconds=0.3, retry_after=1
    )  # the first post is refused: try again in 1 s
    _add_record(bot, unknown)
    wait_done(bot, f"follow_up:{unknown}:{RECORD}", timeout=15)
    posts = [c for c in bot.fake.of("chat.postMessage") if c.params.get("thread_ts") == first]
    assert len(posts) == 2  # refused, then sent once
    with bot.store.read() as session:
        assert session.scalar(select(UnknownSightingRow.told_record)) == RECORD
