"""Answers people can correct: "Not this error", "Remove", "More"; and what errkb learns from
them."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import select

from bot.render.ids import ActionId, BlockId, CallbackId, InputId
from bot.render.state import CorrectionState
from bot.store.models import AuditRow, CorrectionRow
from tests.slack.blockkit import assert_valid_message, assert_valid_view, buttons, read_text
from tests.slack.conftest import CHANNEL, EN_USER, MAINTAINER, PASTE, ZH_USER, Bot

WRONG = "errkbtest/frobnicator-overheat"  # what the matcher answers PASTE with
RIGHT = "errkbtest/frobnicator-underheat"  # what people say it is
OTHER = "C0ELSEWHERE"


def _answer(bot: Bot, channel: str = CHANNEL, temp: int = 512) -> tuple[str, dict[str, Any]]:
    """Paste the error in ``channel``; the (ts of errkb's answer, the answer's payload)."""
    ts = f"1722700000.{bot.send.next_id():06d}"
    event = {
        "type": "message",
        "channel": channel,
        "user": EN_USER,
        "ts": ts,
        "client_msg_id": f"cm-{ts}",
        "text": PASTE.replace("512", str(temp)),
    }
    assert bot.send.event(event).status == 200
    [post] = bot.fake.wait_for("chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts)
    [answer_ts] = [
        k[1] for k, m in bot.fake.messages.items() if m.get("thread_ts") == ts and m.get("bot_id")
    ]
    return answer_ts, post.params


def _click(
    bot: Bot,
    payload: dict[str, Any],
    action: str,
    answer_ts: str,
    channel: str = CHANNEL,
    user: str = EN_USER,
) -> None:
    value = buttons(payload["blocks"])[action]["value"]
    n = bot.send.next_id()
    response = bot.send.interactive(
        {
            "type": "block_actions",
            "team": {"id": "T1"},
            "user": {"id": user},
            "api_app_id": "A1",
            "trigger_id": f"trig-c{n}",
            "channel": {"id": channel},
            "container": {"type": "message", "message_ts": answer_ts, "channel_id": channel},
            "message": {"ts": answer_ts, "blocks": payload["blocks"]},
            "response_url": bot.fake.response_url(f"c{n}"),
            "actions": [
                {
                    "type": "button",
                    "action_id": action,
                    "block_id": "b",
                    "value": value,
                    "action_ts": str(n),
                }
            ],
        }
    )
    assert response.status == 200


def _submit(bot: Bot, view: dict[str, Any], choice: str, user: str = EN_USER) -> int:
    body = {
        "type": "view_submission",
        "team": {"id": "T1"},
        "user": {"id": user},
        "api_app_id": "A1",
        "view": {
            **view,
            "id": f"V{bot.send.next_id()}",
            "state": {
                "values": {
                    BlockId.CORRECT_CHOICE: {
                        InputId.VALUE: {
                            "type": "radio_buttons",
                            "selected_option": {"value": choice},
                        }
                    }
                }
            },
        },
    }
    return bot.send.interactive(body).status


def _correct(bot: Bot, payload: dict[str, Any], answer_ts: str, choice: str) -> dict[str, Any]:
    _click(bot, payload, ActionId.NOT_THIS, answer_ts)
    [opened] = bot.fake.wait_for("views.open")
    view = opened.params["view"]
    assert_valid_view(view)
    assert _submit(bot, view, choice) == 200
    [update] = bot.fake.wait_for("chat.update", where=lambda c: c.params["ts"] == answer_ts)
    assert_valid_message(update.params)
    return update.params


def test_a_wrong_answer_corrected_once_is_answered_right_next_time_in_another_channel(
    bot: Bot,
) -> None:
    answer_ts, first = _answer(bot)
    assert WRONG in read_text(first["blocks"])
    _click(bot, first, ActionId.NOT_THIS, answer_ts)
    [opened] = bot.fake.wait_for("views.open")
    options = [
        o["value"]
        for b in opened.params["view"]["blocks"]
        if b.get("block_id") == BlockId.CORRECT_CHOICE
        for o in b["element"]["options"]
    ]
    assert RIGHT in options and options[-1] == "none", "the other candidates, and none of these"
    assert _submit(bot, opened.params["view"], RIGHT) == 200
    [corrected] = bot.fake.wait_for("chat.update", where=lambda c: c.params["ts"] == answer_ts)
    text = read_text(corrected.params["blocks"])
    assert (
        f"Corrected by <@{EN_USER}>: this is `{RIGHT}`." in text
        and RIGHT in text
        and WRONG not in text
    )
    # the same error (other numbers), pasted in another channel: answered right at once
    _, again = _answer(bot, OTHER, temp=999)
    assert RIGHT in read_text(again["blocks"]) and WRONG not in read_text(again["blocks"])
    with bot.store.transaction() as session:
        audit = session.scalars(select(AuditRow).where(AuditRow.action == "correction")).all()
    assert [(a.record_id, a.actor, a.before, a.after["chosen"]) for a in audit] == [
        (RIGHT, f"slack:{EN_USER}", {"answered": WRONG}, RIGHT)
    ]


def test_none_of_these_withdraws_the_answer_and_errkb_stays_silent_next_time(bot: Bot) -> None:
    answer_ts, first = _answer(bot)
    withdrawn = _correct(bot, first, answer_ts, "none")
    assert "says errkb does not know this error yet" in read_text(withdrawn["blocks"])
    assert "errkb.vote.fixed" not in buttons(withdrawn["blocks"])
    ts = f"1722700001.{bot.send.next_id():06d}"
    bot.send.event(
        {
            "type": "message",
            "channel": OTHER,
            "user": EN_USER,
            "ts": ts,
            "client_msg_id": f"cm-{ts}",
            "text": PASTE.replace("512", "600"),
        }
    )
    assert (
        bot.fake.wait_for(
            "chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts, timeout=1.5
        )
        == []
    )


def test_a_maintainer_can_undo_what_people_taught_errkb(bot: Bot) -> None:
    answer_ts, first = _answer(bot)
    _correct(bot, first, answer_ts, RIGHT)
    with bot.store.transaction() as session:
        correction = session.scalars(select(CorrectionRow)).one()
    undo = CorrectionState(correction=correction.id).dump()
    bot.send.click(ActionId.UNDO_CORRECTION, undo, user=EN_USER)  # not a maintainer: refused
    [refusal] = bot.fake.wait_for("response_url")
    assert "Only knowledge-base maintainers" in refusal.params["text"]
    bot.send.click(ActionId.UNDO_CORRECTION, undo, user=MAINTAINER)
    bot.fake.wait_for("response_url", 2)
    _, again = _answer(bot, OTHER, temp=700)
    assert WRONG in read_text(again["blocks"]), "back to what the knowledge base says"


def test_remove_is_for_the_asker_and_maintainers(bot: Bot) -> None:
    answer_ts, first = _answer(bot)
    _click(bot, first, ActionId.REMOVE, answer_ts, user=ZH_USER)
    [refusal] = bot.fake.wait_for("response_url")
    assert "只有贴出这个错误的人" in json.dumps(refusal.params, ensure_ascii=False)
    assert bot.fake.of("chat.delete") == []
    _click(bot, first, ActionId.REMOVE, answer_ts, user=EN_USER)
    [deleted] = bot.fake.wait_for("chat.delete")
    assert deleted.params["ts"] == answer_ts and deleted.params["channel"] == CHANNEL


def test_more_expands_in_place_and_a_vote_keeps_it_expanded(bot: Bot) -> None:
    answer_ts, first = _answer(bot)
    folded = read_text(first["blocks"])
    assert "Dead ends" not in folded
    _click(bot, first, ActionId.MORE, answer_ts)
    [expanded] = bot.fake.wait_for("chat.update")
    text = read_text(expanded.params["blocks"])
    assert (
        "Dead ends" in text
        and "Move the job to a cooler rack" in text
        and "Often confused with" in text
    )
    assert buttons(expanded.params["blocks"])[ActionId.MORE]["text"]["text"] == "Less"
    assert_valid_message(expanded.params)
    _click(bot, expanded.params, ActionId.VOTE_FIXED, answer_ts)
    [_, voted] = bot.fake.wait_for("chat.update", 2)
    assert "Dead ends" in read_text(
        voted.params["blocks"]
    ) and "noted that this fixed it" in read_text(voted.params["blocks"])


def test_a_mention_in_a_thread_answers_the_error_in_the_thread(bot: Bot) -> None:
    root = f"1722700002.{bot.send.next_id():06d}"
    bot.fake.add_message(CHANNEL, root, PASTE)
    bot.fake.add_message(
        CHANNEL, f"1722700002.{bot.send.next_id():06d}", "same here, any idea?", thread_ts=root
    )
    mention = f"1722700003.{bot.send.next_id():06d}"
    bot.send.event(
        {
            "type": "app_mention",
            "channel": CHANNEL,
            "user": EN_USER,
            "ts": mention,
            "thread_ts": root,
            "client_msg_id": f"cm-{mention}",
            "text": "<@UBOT> can you look at the traceback above?",
        }
    )
    [post] = bot.fake.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == root
    )
    assert WRONG in read_text(post.params["blocks"])
    assert bot.fake.of("conversations.replies")


def test_a_mention_with_no_error_anywhere_gets_a_private_hint(bot: Bot) -> None:
    mention = f"1722700004.{bot.send.next_id():06d}"
    bot.send.event(
        {
            "type": "app_mention",
            "channel": CHANNEL,
            "user": EN_USER,
            "ts": mention,
            "client_msg_id": f"cm-{mention}",
            "text": "<@UBOT> thanks!",
        }
    )
    [hint] = bot.fake.wait_for("chat.postEphemeral")
    assert hint.params["user"] == EN_USER and "could not find an error" in hint.params["text"]
    assert bot.fake.of("chat.postMessage") == []


def test_the_shortcut_on_a_message_with_no_error_answers_privately(bot: Bot) -> None:
    bot.send.interactive(
        {
            "type": "message_action",
            "callback_id": CallbackId.LOOKUP_SHORTCUT,
            "trigger_id": "t-lunch",
            "team": {"id": "T1"},
            "user": {"id": EN_USER},
            "channel": {"id": CHANNEL},
            "response_url": bot.fake.response_url("lunch"),
            "message": {"text": "lunch at noon?", "ts": "1722700005.1"},
        }
    )
    [reply] = bot.fake.wait_for("response_url")
    assert reply.params["response_type"] == "ephemeral"
    assert bot.fake.of("chat.postMessage") == []
