"""A fix found in the thread of an unknown error: a check mark on a reply, or the asker saying it
worked (in English or Chinese), makes that reply the thread's fix; the unknown-error queue says
so, the add-record form opens with it (from any message of the thread, and from the queue), and
the follow-up once the record is saved credits whoever wrote it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from bot.render.ids import ActionId, BlockId, CallbackId, InputId
from bot.render.state import AddState
from bot.store import repository, sightings, slack_repo
from tests.slack.conftest import (
    CHANNEL,
    EN_USER,
    MAINTAINER,
    OWNER,
    TODAY,
    ZH_USER,
    Bot,
    wait_done,
    wait_for_unknown,
)

ERROR = "ZorblaxFluxError: flux capacitor 7 misaligned by 12 degrees"
FIX = "Recalibrate the capacitor before restarting the shard:\n```fluxctl recalibrate --shard 7```"
RECORD = "physics/zorblax-flux-misaligned"


@pytest.fixture
def cleanup(bot: Bot) -> Iterator[None]:
    yield
    with bot.store.transaction() as session:
        repository.delete_record(session, record_id=RECORD, actor="test", now=TODAY)


def pasted(bot: Bot, user: str = EN_USER) -> str:
    """``user`` pastes the unknown error; someone replies with the fix. The thread's root ts."""
    _, root = bot.send.message(ERROR, user=user)
    wait_for_unknown(bot, "ZorblaxFluxError")
    bot.fake.add_message(CHANNEL, root, ERROR, user=user)
    return root


def reply(bot: Bot, root: str, text: str = FIX, user: str = OWNER) -> str:
    ts = f"{float(root) + 1:.6f}"
    bot.fake.add_message(CHANNEL, ts, text, user=user, thread_ts=root)
    return ts


def react(bot: Bot, ts: str, reaction: str = "white_check_mark", user: str = MAINTAINER) -> None:
    event = {
        "type": "reaction_added",
        "user": user,
        "reaction": reaction,
        "item_user": OWNER,
        "item": {"type": "message", "channel": CHANNEL, "ts": ts},
        "event_ts": f"{float(ts) + 5:.6f}",
    }
    assert bot.send.event(event).status == 200
    wait_done(bot, f"fix:{CHANNEL}:{ts}:{user}")


def found_fix(bot: Bot, root: str) -> sightings.ThreadFix | None:
    with bot.store.read() as session:
        return sightings.thread_fix(session, channel=CHANNEL, thread_ts=root)


def opened_form(bot: Bot) -> tuple[dict[str, str], AddState]:
    view = bot.fake.wait_for("views.open")[-1].params["view"]
    values = {
        b["block_id"]: b["element"].get("initial_value", "")
        for b in view["blocks"]
        if b["type"] == "input"
    }
    return values, AddState.model_validate_json(view["private_metadata"])


def assert_prefilled(values: dict[str, str], root: str, fix_ts: str) -> None:
    assert values[BlockId.SIGNATURE] == ERROR and "ZorblaxFluxError" in values[BlockId.REGEX]
    assert values[BlockId.WORKAROUND] == "Recalibrate the capacitor before restarting the shard:"
    assert values[BlockId.HOW] == "fluxctl recalibrate --shard 7"
    assert values[BlockId.SOURCE] == f"https://test.slack.com/archives/{CHANNEL}/p{fix_ts}"
    assert values[BlockId.DOMAIN] and values[BlockId.RECORD_ID].startswith(
        values[BlockId.DOMAIN] + "/"
    )


@pytest.mark.parametrize("reaction", ["white_check_mark", "heavy_check_mark"])
def test_a_check_mark_on_a_reply_makes_it_the_threads_fix(bot: Bot, reaction: str) -> None:
    root = pasted(bot)
    fix_ts = reply(bot, root)
    react(bot, fix_ts, reaction)
    fix = found_fix(bot, root)
    assert fix is not None and fix.text == FIX and fix.user_id == OWNER and fix.ts == fix_ts
    with bot.store.read() as session:
        [queued] = [u for u in slack_repo.unknown_errors(session) if "ZorblaxFluxError" in u.sample]
    assert queued.fixed_in_thread


def test_other_reactions_and_threads_errkb_knows_are_not_fixes(bot: Bot) -> None:
    root = pasted(bot)
    fix_ts = reply(bot, root)
    event = {
        "type": "reaction_added",
        "user": MAINTAINER,
        "reaction": "eyes",
        "item": {"type": "message", "channel": CHANNEL, "ts": fix_ts},
    }
    assert bot.send.event(event).status == 200
    react(bot, root)  # the error itself is not its fix
    assert found_fix(bot, root) is None
    other = "1722509999.000001"
    bot.fake.add_message(CHANNEL, other, "just chatting")
    react(bot, reply(bot, other))  # a thread about no unknown error
    assert found_fix(bot, other) is None


@pytest.mark.parametrize(
    ("asker", "words"), [(EN_USER, "that worked, thanks!"), (ZH_USER, "好了，谢谢！")]
)
def test_the_asker_saying_it_worked_makes_the_reply_before_the_fix(
    bot: Bot, asker: str, words: str
) -> None:
    root = pasted(bot, asker)
    fix_ts = reply(bot, root)
    _, said = bot.send.message(words, user=asker, thread_ts=root, ts=f"{float(root) + 2:.6f}")
    bot.fake.add_message(CHANNEL, said, words, user=asker, thread_ts=root)
    wait_done(bot, f"fix:said:{CHANNEL}:{said}")
    fix = found_fix(bot, root)
    assert fix is not None and fix.ts == fix_ts and fix.user_id == OWNER


def test_someone_else_saying_it_worked_or_the_asker_saying_it_did_not_is_no_fix(bot: Bot) -> None:
    root = pasted(bot)
    reply(bot, root)
    _, said = bot.send.message(
        "that worked for me", user=ZH_USER, thread_ts=root, ts=f"{float(root) + 2:.6f}"
    )
    wait_done(bot, f"fix:said:{CHANNEL}:{said}")
    bot.send.message("it still has not worked", user=EN_USER, thread_ts=root)
    bot.send.message("还是没解决", user=EN_USER, thread_ts=root)
    assert found_fix(bot, root) is None


def test_add_to_errkb_on_any_message_of_the_thread_opens_the_form_with_the_fix(bot: Bot) -> None:
    root = pasted(bot)
    fix_ts = reply(bot, root)
    react(bot, fix_ts)
    bot.send.shortcut(
        CallbackId.ADD_SHORTCUT,
        {"text": FIX, "ts": fix_ts, "thread_ts": root, "user": OWNER},
        user=MAINTAINER,
    )
    values, state = opened_form(bot)
    assert_prefilled(values, root, fix_ts)
    assert state.fix_by == OWNER and state.unknown is not None


def test_a_fix_written_in_chinese_fills_the_form_as_written(bot: Bot) -> None:
    """A Chinese team's thread: the asker writes in Chinese, the fix is a Chinese reply marked
    with a check mark; the form takes the fix's words and its command as they were written."""
    root = pasted(bot, user=ZH_USER)
    fix = "重启分片之前先重新校准电容器：\n```fluxctl recalibrate --shard 7```"
    fix_ts = reply(bot, root, fix)
    react(bot, fix_ts)
    bot.send.shortcut(
        CallbackId.ADD_SHORTCUT, {"text": ERROR, "ts": root, "user": ZH_USER}, user=MAINTAINER
    )
    values, state = opened_form(bot)
    assert values[BlockId.SIGNATURE] == ERROR
    assert values[BlockId.WORKAROUND] == "重启分片之前先重新校准电容器："
    assert values[BlockId.HOW] == "fluxctl recalibrate --shard 7"
    assert values[BlockId.SOURCE] == f"https://test.slack.com/archives/{CHANNEL}/p{fix_ts}"
    assert state.fix_by == OWNER


def test_the_queues_add_button_opens_the_form_with_the_fix_and_the_follow_up_credits_it(
    bot: Bot, cleanup: None
) -> None:
    root = pasted(bot)
    fix_ts = reply(bot, root)
    react(bot, fix_ts)
    with bot.store.read() as session:
        [queued] = [u for u in slack_repo.unknown_errors(session) if "ZorblaxFluxError" in u.sample]
    bot.fake.reset()
    bot.send.command("unknown", user=MAINTAINER)
    [queue] = bot.fake.wait_for("response_url")
    assert "fix found in a thread" in json.dumps(queue.params["blocks"])
    bot.send.click(ActionId.ADD_RECORD, AddState(unknown=queued.id).dump(), user=MAINTAINER)
    values, _ = opened_form(bot)
    assert_prefilled(values, root, fix_ts)
    view = bot.fake.wait_for("views.open")[-1].params["view"]
    values.update(
        {
            BlockId.RECORD_ID: RECORD,
            BlockId.DOMAIN: "physics",
            BlockId.ROOT_CAUSE: "The capacitor drifts out of calibration after a restart.",
        }
    )
    state: dict[str, Any] = {
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
                "id": "VFIX",
                "type": "modal",
                "callback_id": CallbackId.ADD_RECORD_VIEW,
                "private_metadata": view["private_metadata"],
                "state": state,
            },
        }
    )
    assert response.status == 200 and response.body in (b"", b"{}")
    [told] = bot.fake.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == root
    )
    shown = json.dumps(told.params["blocks"])
    assert f"<@{OWNER}>'s reply in this thread" in shown and f"<@{EN_USER}>" in shown
    with bot.store.read() as session:
        record = repository.get_record(session, record_id=RECORD)
    assert record is not None
    assert record.workarounds[0].how == "fluxctl recalibrate --shard 7"
    assert record.workarounds[0].sources == [f"https://test.slack.com/archives/{CHANNEL}/p{fix_ts}"]
