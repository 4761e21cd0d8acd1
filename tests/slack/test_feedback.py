"""Votes, sharing, and the maintainer-only "Add to knowledge base" modal."""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import func, select

from bot.render.ids import ActionId, BlockId, CallbackId, InputId
from bot.render.state import AddState, ReplyState, VoteState
from bot.store import repository
from bot.store.models import AuditRow, WorkaroundRow
from tests.slack.blockkit import assert_valid_message, assert_valid_view
from tests.slack.conftest import (
    CHANNEL,
    EN_USER,
    MAINTAINER,
    PASTE,
    TODAY,
    ZH_USER,
    Bot,
    wait_for_unknown,
)

RECORD = "errkbtest/frobnicator-overheat"


def _buttons(blocks: list[dict[str, Any]], action_id: str) -> list[dict[str, Any]]:
    return [
        e
        for b in blocks
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == action_id
    ]


def _counts(bot: Bot, position: int) -> tuple[int, int]:
    with bot.store.transaction() as session:
        row = session.execute(
            select(WorkaroundRow.fixed_count, WorkaroundRow.failed_count).where(
                WorkaroundRow.record_id == RECORD, WorkaroundRow.position == position
            )
        ).one()
    return row[0], row[1]


def _answer(bot: Bot) -> list[dict[str, Any]]:
    bot.send.message(PASTE)
    blocks: list[dict[str, Any]] = bot.fake.wait_for("chat.postMessage")[0].params["blocks"]
    return blocks


def test_votes_change_counts_evidence_and_update_the_answer_in_place(bot: Bot) -> None:
    blocks = _answer(bot)
    fixed = _buttons(blocks, ActionId.VOTE_FIXED)
    assert len(fixed) == 1, "one set of feedback controls per answer"
    first = VoteState.model_validate_json(fixed[0]["value"])
    assert first.pos == 1  # the best fix: ranked by success rate, "Prime the coolant loop" (0.9)
    with bot.store.transaction() as session:
        before = repository.get_record(session, record_id=RECORD)
        last_audit = session.scalar(select(func.max(AuditRow.id))) or 0
    assert bot.send.click(ActionId.VOTE_FIXED, fixed[0]["value"]).status == 200
    updates = bot.fake.wait_for("chat.update")
    assert len(updates) == 1
    assert "1 of 1 here" in json.dumps(updates[0].params["blocks"])
    assert "noted that this fixed it" in json.dumps(updates[0].params["blocks"])
    assert_valid_message(updates[0].params)
    assert _counts(bot, 1) == (1, 0)
    # the same vote again changes nothing; another user's "didn't help" counts
    bot.send.click(ActionId.VOTE_FIXED, fixed[0]["value"])
    bot.send.click(ActionId.VOTE_FAILED, fixed[0]["value"], user=ZH_USER)
    bot.fake.wait_for("chat.update", 3)
    assert _counts(bot, 1) == (1, 1)
    # changing one's mind moves the count
    bot.send.click(ActionId.VOTE_FAILED, fixed[0]["value"])
    bot.fake.wait_for("chat.update", 4)
    assert _counts(bot, 1) == (0, 2)
    with bot.store.transaction() as session:
        after = repository.get_record(session, record_id=RECORD)
        audit = session.scalars(
            select(AuditRow).where(
                AuditRow.record_id == RECORD, AuditRow.action == "confirm", AuditRow.id > last_audit
            )
        ).all()
    assert before is not None and after is not None
    assert (
        after.evidence_count == before.evidence_count + 1 and after.last_confirmed == TODAY.date()
    )
    assert len(audit) == 1 and audit[0].actor == f"slack:{EN_USER}"


def test_share_posts_an_ephemeral_answer_in_the_channel(bot: Bot) -> None:
    bot.send.command(PASTE)
    reply = bot.fake.wait_for("response_url")[0].params
    share = _buttons(reply["blocks"], ActionId.SHARE)[0]
    assert ReplyState.model_validate_json(share["value"]).reply >= 1
    bot.fake.reset()
    bot.send.click(ActionId.SHARE, share["value"])
    posts = bot.fake.wait_for("chat.postMessage")
    assert len(posts) == 1 and posts[0].params["channel"] == CHANNEL
    assert not _buttons(posts[0].params["blocks"], ActionId.SHARE)
    assert_valid_message(posts[0].params)
    assert bot.fake.wait_for("response_url")[0].params == {
        "name": bot.fake.of("response_url")[0].params["name"],
        "delete_original": True,
    }


def test_share_where_errkb_is_not_a_member_explains_politely(bot: Bot) -> None:
    bot.send.command(PASTE)
    share = _buttons(bot.fake.wait_for("response_url")[0].params["blocks"], ActionId.SHARE)[0]
    bot.fake.reset()
    bot.fake.not_in.add(CHANNEL)
    bot.send.click(ActionId.SHARE, share["value"])
    assert "Invite me" in bot.fake.wait_for("response_url")[0].params["text"]


def test_add_to_knowledge_base_refuses_a_non_maintainer(bot: Bot) -> None:
    state = AddState(unknown=None, channel=CHANNEL).dump()
    bot.send.click(ActionId.ADD_RECORD, state, user=EN_USER)
    refusal = bot.fake.wait_for("response_url")
    assert len(refusal) == 1 and "only knowledge-base maintainers" in refusal[0].params["text"]
    assert refusal[0].params["response_type"] == "ephemeral"
    assert bot.fake.of("views.open") == []


def _submit(bot: Bot, view: dict[str, Any], values: dict[str, str], user: str = MAINTAINER) -> Any:
    state = {
        "values": {
            block: {InputId.VALUE: {"type": "plain_text_input", "value": values.get(block)}}
            for block in [b["block_id"] for b in view["blocks"]]
        }
    }
    return bot.send.interactive(
        {
            "type": "view_submission",
            "team": {"id": "T1"},
            "user": {"id": user},
            "api_app_id": "A1",
            "trigger_id": "t9",
            "view": {
                "id": "V1",
                "type": "modal",
                "callback_id": CallbackId.ADD_RECORD_VIEW,
                "private_metadata": view["private_metadata"],
                "state": state,
            },
        }
    )


def test_a_maintainer_adds_a_record_from_an_unknown_error(bot: Bot) -> None:
    bot.send.message("RuntimeError: the flux capacitor is misaligned by 3 degrees")
    wait_for_unknown(bot, "flux capacitor")
    bot.send.command("unknown", user=MAINTAINER)
    add = _buttons(
        [
            {"type": "actions", "elements": [b["accessory"]]}
            for b in bot.fake.wait_for("response_url")[0].params["blocks"]
            if "accessory" in b
        ],
        ActionId.ADD_RECORD,
    )[0]
    bot.send.click(ActionId.ADD_RECORD, add["value"], user=MAINTAINER)
    view = bot.fake.wait_for("views.open")[0].params["view"]
    assert_valid_view(view)
    prefilled = {b["block_id"]: b["element"].get("initial_value", "") for b in view["blocks"]}
    assert "flux capacitor" in prefilled[BlockId.SIGNATURE]
    assert prefilled[BlockId.DOMAIN]  # a domain from the closest records, as the shortcut suggests
    # invalid: a regex that does not compile, no domain → errors shown in the modal
    bad = _submit(
        bot,
        view,
        {**prefilled, BlockId.REGEX: "flux(capacitor", BlockId.DOMAIN: "", BlockId.ROOT_CAUSE: "x"},
    )
    assert bad.status == 200 and bad.json()["response_action"] == "errors"
    assert set(bad.json()["errors"]) >= {BlockId.REGEX, BlockId.DOMAIN}
    good = {
        **prefilled,
        BlockId.DOMAIN: "physics",
        BlockId.ROOT_CAUSE: "Misaligned flux.",
        BlockId.RECORD_ID: "physics/flux-capacitor-misaligned",
        BlockId.WORKAROUND: "Realign it",
    }
    ok = _submit(bot, view, good)
    assert ok.status == 200 and ok.body in (b"", b"{}")
    with bot.store.transaction() as session:
        record = repository.get_record(session, record_id="physics/flux-capacitor-misaligned")
        assert record is not None and record.workarounds[0].action == "Realign it"
        repository.delete_record(session, record_id=record.id, actor="test", now=TODAY)
    thanks = bot.fake.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("channel") == MAINTAINER
    )
    assert thanks and "physics/flux-capacitor-misaligned" in thanks[0].params["text"]
    again = _submit(bot, view, {**good, BlockId.RECORD_ID: RECORD})
    assert again.json()["errors"][BlockId.RECORD_ID] == "A record with this id already exists."


def test_a_non_maintainer_cannot_submit_the_modal_either(bot: Bot) -> None:
    view = {
        "blocks": [{"block_id": b} for b in (BlockId.RECORD_ID,)],
        "private_metadata": AddState().dump(),
    }
    response = _submit(bot, view, {BlockId.RECORD_ID: "x/y"}, user=EN_USER)
    assert response.json()["response_action"] == "errors"
