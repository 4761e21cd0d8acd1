"""What the answer's buttons and the add-record modal do: vote, share, show, add a record.

Each function is one use case: the click's state (validated), then by name
the few things it uses. Rights are looked up where they are needed
(:func:`bot.slack.adapter.roles.maintainers`), never taken from the button.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError

from bot.clock import Clock
from bot.i18n import t
from bot.i18n.problems import localized_problems
from bot.knowledge import GraphSource, IndexSource
from bot.match.suggest import suggest_domain
from bot.records import Record, record_problems
from bot.render import blocks, panels
from bot.render.ids import ActionId, BlockId, CallbackId
from bot.render.modal import form_values, modal_errors, prefill, record_from_form, render_add_modal
from bot.render.state import AddState, BadState, ReplyState, VoteState
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.locale import user_locale
from bot.slack.adapter.roles import maintainers
from bot.slack.queue.jobs import ActionJob, ViewDoneJob, task
from bot.slack.usecases.additions import neighbours
from bot.slack.usecases.answer_paste import loaded, render_reply
from bot.slack.usecases.fixes import fix_of, prefill_fix
from bot.slack.web.metrics import Metrics
from bot.store import repository, slack_repo
from bot.store.db import Store

log = logging.getLogger(__name__)


def private(
    slack: SlackGateway, click: ActionJob, payload: blocks.Message, *, replace: bool = False
) -> None:
    """Tell only the person who clicked."""
    if click.response_url:
        slack.respond(
            click.response_url, {**blocks.ephemeral(payload), "replace_original": replace}
        )
    elif click.channel:
        slack.post_ephemeral(
            channel=click.channel, user=click.user, text=payload["text"], blocks=payload["blocks"]
        )


@task(ActionId.VOTE_FIXED, ActionJob, state=VoteState, verdict="fixed")
@task(ActionId.VOTE_FAILED, ActionJob, state=VoteState, verdict="failed")
def vote(
    click: ActionJob,
    state: VoteState,
    verdict: str,
    *,
    store: Store,
    slack: SlackGateway,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
) -> None:
    """Record a vote, count it, and update the answer in place to say so."""
    now = clock.now()
    with store.transaction() as session:
        reply = slack_repo.get_reply(session, reply_id=state.reply)
        if reply is None:
            raise BadState(f"reply {state.reply} is gone")
        outcome = slack_repo.cast_vote(
            session,
            user_id=click.user,
            record_id=state.record,
            position=state.pos,
            thread=reply.thread,
            verdict=verdict,
            at=now,
        )
        if verdict == "fixed" and outcome.changed:
            slack_repo.record_evidence(
                session,
                record_id=state.record,
                actor=f"slack:{click.user}",
                today=now.date(),
                at=now,
            )
        note = t(reply.locale, f"vote.{verdict}", user=click.user)
        payload = render_reply(
            session,
            reply,
            index=index,
            graph=graph,
            today=now.date(),
            ephemeral=click.message is None,
            note=note,
        )
    if click.message is not None:  # (channel, ts) of the public message that was clicked
        slack.update_message(
            channel=click.message[0],
            ts=click.message[1],
            text=payload["text"],
            blocks=payload["blocks"],
        )
    elif click.response_url:
        slack.respond(click.response_url, {**payload, "replace_original": True})


@task(ActionId.SHARE, ActionJob, state=ReplyState)
def share(
    click: ActionJob,
    state: ReplyState,
    *,
    store: Store,
    slack: SlackGateway,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
    metrics: Metrics,
) -> None:
    """Post a private reply for everyone (in its thread when it has one)."""
    with store.transaction() as session:
        reply = slack_repo.get_reply(session, reply_id=state.reply)
        if reply is None:
            raise BadState(f"reply {state.reply} is gone")
        target = click.channel or reply.channel
        copy_id = slack_repo.add_reply(
            session,
            kind=reply.kind,
            locale=reply.locale,
            user_id=click.user,
            channel=target,
            thread_ts=reply.thread_ts,
            args=reply.args,
            at=clock.now(),
        )
        copy = slack_repo.get_reply(session, reply_id=copy_id)
        assert copy is not None
        payload = render_reply(
            session, copy, index=index, graph=graph, today=clock.now().date(), ephemeral=False
        )
    sent = slack.post_message(
        channel=target, text=payload["text"], blocks=payload["blocks"], thread_ts=copy.thread_ts
    )
    if not sent.ok:
        private(slack, click, panels.render_text(reply.locale, "share.not_in_channel"))
        return
    if click.response_url:
        slack.respond(click.response_url, {"delete_original": True})
    metrics.answer("share")


@task(ActionId.ADD_RECORD, ActionJob, state=AddState)
def open_add_modal(
    click: ActionJob,
    state: AddState,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    metrics: Metrics,
    index: IndexSource,
) -> None:
    """Maintainers get the modal prefilled from the unknown error; others a polite refusal."""
    slack_locale = slack.user_locale(click.user)
    allowed = click.user in maintainers(settings, slack)
    with store.transaction() as session:
        locale = user_locale(
            session, settings, user=click.user, slack_locale=slack_locale, channel=click.channel
        )
        unknown = (
            slack_repo.get_unknown(session, unknown_id=state.unknown)
            if allowed and state.unknown
            else None
        )
        fix = (
            fix_of(session, unknown=state.unknown, channel=state.channel, thread=state.thread)
            if unknown
            else None
        )
    if not allowed:
        private(slack, click, panels.render_refusal(locale))
        metrics.decline("not_maintainer")
        return
    values: dict[BlockId, str] = {}
    if unknown is not None:
        line = unknown.example
        domain = suggest_domain(unknown.sample, neighbours(loaded(index), unknown.sample, line))
        values = prefill_fix(prefill(unknown.sample, unknown.template, domain=domain), fix)
    view = render_add_modal(
        locale,
        state.model_copy(update={"locale": locale, "fix_by": fix.user_id if fix else None}),
        values,
    )
    if click.trigger_id:
        slack.open_view(trigger_id=click.trigger_id, view=view)


def submit_record(
    state: AddState,
    user: str,
    state_values: dict[str, Any],
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    clock: Clock,
) -> dict[str, str] | str:
    """Validate and add the modal's record: its id, or ``{block_id: problem}`` for the modal.
    Runs while Slack waits for the modal's answer."""
    if user not in maintainers(settings, slack):
        return {BlockId.RECORD_ID: t(state.locale, "refuse.not_maintainer")}
    now = clock.now()
    data = record_from_form(form_values(state_values), today=now.date())
    try:
        record = Record.model_validate(data)
    except ValidationError as exc:
        return modal_errors(localized_problems(record_problems(exc), state.locale))
    with store.transaction() as session:
        if slack_repo.record_exists(session, record_id=record.id):
            return {BlockId.RECORD_ID: t(state.locale, "modal.exists")}
        repository.import_records(
            session, records=[record], on_conflict="fail", actor=f"slack:{user}", now=now
        )
    log.info("record added from Slack", extra={"record_id": record.id})
    return record.id


@task(CallbackId.ADD_RECORD_VIEW, ViewDoneJob, state=AddState)
def thank_for_record(done: ViewDoneJob, state: AddState, *, slack: SlackGateway) -> None:
    """Thanks for the record ``done.result`` the add-record modal made."""
    user = done.user
    record_id = done.result
    payload = panels.render_text(state.locale, "modal.created", id=record_id)
    if state.channel:
        slack.post_ephemeral(
            channel=state.channel,
            user=user,
            text=payload["text"],
            blocks=payload["blocks"],
            thread_ts=state.thread,
        )
    else:
        slack.post_message(channel=user, text=payload["text"], blocks=payload["blocks"])
