"""The README's pictures and first-screen figures show what the bot really posts.

``scripts/starter_answers.py`` makes a thread reply without Slack or a
database; here the real app answers the same pastes over HTTP and must post
exactly that payload. If answering changes (new arguments, another
renderer), this fails until the tools follow.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from sqlalchemy import select

from bot.match.index import MatchIndex
from bot.store import slack_repo
from bot.store.models import SlackReplyRow, UnknownErrorRow
from graph.build import build_graph
from scripts.starter_answers import Knowledge, thread_reply
from tests.slack.conftest import CHANNEL, EN_USER, PASTE, TODAY, ZH_USER, Bot

TWO_ERRORS = PASTE + "\nCoolantPumpStalledError: coolant pump 3 reports zero flow for 30 seconds"
UNSURE = "<@UBOT> frobnicate.errors.FrobnicatorError: core"  # the type, too little of its message


def _posted(bot: Bot) -> dict[str, Any]:
    [post] = bot.fake.wait_for("chat.postMessage")
    blocks = post.params["blocks"]
    return {
        "text": post.params["text"],
        "blocks": json.loads(blocks) if isinstance(blocks, str) else blocks,
    }


def _stored(bot: Bot, ts: str, kb: Knowledge) -> dict[str, Any]:
    """What the bot read and wrote for the thread ``ts``: its reply row, the newest unknown
    error, and the votes and evidence earlier tests may have left on the records."""
    with bot.store.transaction() as session:
        reply = session.scalars(select(SlackReplyRow).where(SlackReplyRow.thread_ts == ts)).one()
        unknown = session.scalars(
            select(UnknownErrorRow.id).order_by(UnknownErrorRow.id.desc())
        ).first()
        ids = reply.args.get("records", [])
        shown = [r for r in map(kb.index.record, ids) if r is not None]
        return {
            "reply_id": reply.id,
            "unknown": unknown or 1,
            "counts": slack_repo.workaround_counts(session, record_ids=ids),
            "fresh": {r.id: r for r in slack_repo.with_evidence(session, records=shown)},
        }


@pytest.mark.slow
@pytest.mark.parametrize(
    "paste,user,locale,outcome",
    [
        (PASTE, EN_USER, "en", "answer"),
        (PASTE, ZH_USER, "zh", "answer"),
        (TWO_ERRORS, EN_USER, "en", "answer"),
        (f"<@UBOT> {TWO_ERRORS}", EN_USER, "en", "answer"),  # asked: both errors answered
        (UNSURE, EN_USER, "en", "candidates"),
    ],
)
def test_the_tools_reply_is_the_payload_the_bot_posts(
    bot: Bot, paste: str, user: str, locale: str, outcome: str
) -> None:
    ts = f"1722500100.{bot.send.next_id():06d}"
    asked = paste.startswith("<@UBOT>")  # a plain message is answered unasked
    if asked:
        bot.send.event(
            {
                "type": "app_mention",
                "channel": CHANNEL,
                "user": user,
                "ts": ts,
                "text": paste,
                "client_msg_id": f"cm-{ts}",
            }
        )
    else:
        bot.send.message(paste, user=user, ts=ts)
    posted = _posted(bot)
    kb = Knowledge(MatchIndex.build(bot.records), build_graph(bot.records))
    made, records, payload = thread_reply(
        kb,
        paste,
        locale=locale,
        asked=asked,
        today=TODAY.date(),
        channel=CHANNEL,
        thread=ts,
        **_stored(bot, ts, kb),
    )
    assert made == outcome and (records or outcome != "answer")
    assert payload == posted
