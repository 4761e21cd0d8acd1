"""What buttons and the add-record modal do: vote, share, show, add to the knowledge base."""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from bot.errors import RecordNotFound
from bot.i18n import t
from bot.records import Record, validation_problems
from bot.render import blocks, panels
from bot.render.ids import BlockId
from bot.render.modal import form_values, modal_errors, prefill, record_from_form, render_add_modal
from bot.render.state import AddState, BadState, RecordState, ReplyState, VoteState
from bot.slack.answer import render_stored
from bot.slack.clock import today
from bot.slack.locale import user_locale
from bot.slack.world import World
from bot.store import repository, slack_repo

log = logging.getLogger(__name__)


def vote(world: World, *, state: VoteState, verdict: str, user: str, response_url: str | None,
         message: tuple[str, str] | None) -> None:  # fmt: skip
    """Record a vote, count it, and update the answer in place to say so."""
    now = world.clock.now()
    with world.store.transaction() as session:
        reply = slack_repo.get_reply(session, reply_id=state.reply)
        if reply is None:
            raise BadState(f"reply {state.reply} is gone")
        outcome = slack_repo.cast_vote(session, user_id=user, record_id=state.record, position=state.pos,
                                       thread=reply.thread, verdict=verdict, at=now)  # fmt: skip
        if verdict == "fixed" and outcome.changed:
            slack_repo.record_evidence(
                session, record_id=state.record, actor=f"slack:{user}", today=now.date(), at=now
            )
    note = t(reply.locale, f"vote.{verdict}", user=user)
    payload = render_stored(world, reply, ephemeral=message is None, note=note)
    if message is not None:  # (channel, ts) of the public message that was clicked
        world.gateway.update_message(channel=message[0], ts=message[1], text=payload["text"],
                                     blocks=payload["blocks"])  # fmt: skip
    elif response_url:
        world.gateway.respond(response_url, {**payload, "replace_original": True})


def share(
    world: World, *, state: ReplyState, user: str, channel: str | None, response_url: str | None
) -> None:
    """Post an ephemeral reply for everyone (in its thread when it has one)."""
    with world.store.transaction() as session:
        reply = slack_repo.get_reply(session, reply_id=state.reply)
        if reply is None:
            raise BadState(f"reply {state.reply} is gone")
        target = channel or reply.channel
        copy_id = slack_repo.add_reply(session, kind=reply.kind, locale=reply.locale, user_id=user, channel=target,
                                       thread_ts=reply.thread_ts, args=reply.args, at=world.clock.now())  # fmt: skip
        copy = slack_repo.get_reply(session, reply_id=copy_id)
    assert copy is not None
    payload = render_stored(world, copy, ephemeral=False)
    sent = world.gateway.post_message(channel=target, text=payload["text"], blocks=payload["blocks"],
                                      thread_ts=copy.thread_ts)  # fmt: skip
    if not sent.ok:
        if response_url:
            world.gateway.respond(
                response_url,
                blocks.ephemeral(panels.render_text(reply.locale, "share.not_in_channel")),
            )
        return
    if response_url:
        world.gateway.respond(response_url, {"delete_original": True})
    world.metrics.answer("share")


def show(
    world: World, *, record_id: str, user: str, channel: str, response_url: str | None
) -> None:
    """A record, privately, with "Share in channel"."""
    index = world.index.current()
    if index is not None and index.record(record_id) is None:
        raise RecordNotFound(record_id)
    locale = user_locale(world, user=user, channel=channel)
    with world.store.transaction() as session:
        reply_id = slack_repo.add_reply(session, kind="record", locale=locale, user_id=user, channel=channel,
                                        thread_ts=None, args={"record": record_id}, at=world.clock.now())  # fmt: skip
        reply = slack_repo.get_reply(session, reply_id=reply_id)
    assert reply is not None
    payload = blocks.ephemeral(render_stored(world, reply, ephemeral=True))
    if response_url:
        world.gateway.respond(response_url, payload)
    else:
        world.gateway.post_ephemeral(
            channel=channel, user=user, text=payload["text"], blocks=payload["blocks"]
        )


def show_button(
    world: World, *, state: RecordState, user: str, channel: str, response_url: str | None
) -> None:
    show(world, record_id=state.record, user=user, channel=channel, response_url=response_url)


def open_add_modal(world: World, *, state: AddState, user: str, channel: str | None, trigger_id: str,
                   response_url: str | None) -> None:  # fmt: skip
    """Maintainers get the modal prefilled from the unknown error; others a polite refusal."""
    locale = user_locale(world, user=user, channel=channel)
    if not world.is_maintainer(user):
        refusal = blocks.ephemeral(panels.render_refusal(locale))
        if response_url:
            world.gateway.respond(response_url, refusal)
        elif channel:
            world.gateway.post_ephemeral(
                channel=channel, user=user, text=refusal["text"], blocks=refusal["blocks"]
            )
        world.metrics.decline("not_maintainer")
        return
    values: dict[BlockId, str] = {}
    if state.unknown is not None:
        with world.store.read() as session:
            unknown = slack_repo.get_unknown(session, unknown_id=state.unknown)
        if unknown is not None:
            values = prefill(unknown.sample, unknown.template)
    view = render_add_modal(locale, state.model_copy(update={"locale": locale}), values)
    world.gateway.open_view(trigger_id=trigger_id, view=view)


def submit_record(
    world: World, *, state: AddState, user: str, state_values: dict[str, Any]
) -> dict[str, str] | str:
    """Validate and add the modal's record: its id, or ``{block_id: problem}`` for the modal."""
    if not world.is_maintainer(user):
        return {BlockId.RECORD_ID: t(state.locale, "refuse.not_maintainer")}
    now = world.clock.now()
    data = record_from_form(form_values(state_values), today=today(world.clock))
    try:
        record = Record.model_validate(data)
    except ValidationError as exc:
        return modal_errors(validation_problems(exc))
    with world.store.transaction() as session:
        if slack_repo.record_exists(session, record_id=record.id):
            return {BlockId.RECORD_ID: t(state.locale, "modal.exists")}
        repository.import_records(
            session, records=[record], on_conflict="fail", actor=f"slack:{user}", now=now
        )
    log.info("record added from Slack", extra={"record_id": record.id})
    return record.id


def thank_for_record(world: World, *, state: AddState, user: str, record_id: str) -> None:
    text = t(state.locale, "modal.created", id=record_id)
    payload = panels.render_text(state.locale, "modal.created", id=record_id)
    if state.channel:
        world.gateway.post_ephemeral(channel=state.channel, user=user, text=text, blocks=payload["blocks"],
                                     thread_ts=state.thread)  # fmt: skip
    else:
        world.gateway.post_message(channel=user, text=text, blocks=payload["blocks"])
