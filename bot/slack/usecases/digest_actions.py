"""What the digest's buttons and the deprecate modal do.

Maintainers and the owners of a record's domain may act. The domain is the
record's own, as stored: a button or a modal only names the record. Anyone
else gets a polite refusal and nothing changes. Each action is audited and
the digest message is updated in place.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.orm import Session

from bot.clock import Clock
from bot.digest.jobs import collect, local_today
from bot.errors import RecordNotFound
from bot.i18n import negotiate_locale, t
from bot.render import panels
from bot.render.digest import item_note, mark_item, render_deprecate_modal, render_digest
from bot.render.ids import ActionId, BlockId, CallbackId, InputId
from bot.render.kit import Block, context
from bot.render.state import DeprecateState, DigestItemState
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.locale import user_locale
from bot.slack.adapter.roles import maintainers, may_act
from bot.slack.queue.jobs import ActionJob, ViewDoneJob, task
from bot.slack.usecases.feedback import private
from bot.slack.web.metrics import Metrics
from bot.store import digest_repo
from bot.store.db import Store

log = logging.getLogger(__name__)

SNOOZE_DAYS = 30


def _allowed(
    session: Session, settings: Settings, found: frozenset[str], user: str, record_id: str
) -> bool:
    domain = digest_repo.record_domain(session, record_id=record_id)
    if domain is None:
        raise RecordNotFound(record_id)
    return may_act(user, domain, maintainers=found, owners=settings.domain_owners)


def note_locale(settings: Settings, message: tuple[str, str] | None, clicker: str) -> str:
    """The language of a note written into a digest: the digest's own (its channel's),
    the clicker's only in their own DM: a note is read by everyone who reads the digest."""
    if message is None or message[0].startswith("D"):
        return clicker
    return negotiate_locale(None, None, settings.channel_locales.get(message[0]), "")


def update_digest(
    slack: SlackGateway,
    message: tuple[str, str] | None,
    shown: list[Block] | None,
    record: str,
    note: str,
) -> None:
    """Swap the record's buttons in the digest for ``note``; the blocks come from the click,
    or (after a modal) from the message itself."""
    if message is None:
        return
    channel, ts = message
    if shown is None:
        found = slack.call(
            "conversations.history", channel=channel, latest=ts, inclusive=True, limit=1
        )
        history = (found.data or {}).get("messages") or [] if found.ok else []
        shown = history[0].get("blocks") if history else None
    if not shown:
        log.info("digest message %s not found; not updated", ts)
        return
    slack.update_message(channel=channel, ts=ts, text=note, blocks=mark_item(shown, record, note))


@task(ActionId.DIGEST_CONFIRM, ActionJob, state=DigestItemState, action="confirm")
@task(ActionId.DIGEST_SNOOZE, ActionJob, state=DigestItemState, action="snooze")
def act(
    click: ActionJob,
    state: DigestItemState,
    action: str,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    clock: Clock,
    metrics: Metrics,
) -> None:
    """ "Still valid" or "Snooze 30 days"."""
    slack_locale = slack.user_locale(click.user)
    found = maintainers(settings, slack)
    now = clock.now()
    with store.transaction() as session:
        locale = user_locale(
            session, settings, user=click.user, slack_locale=slack_locale, channel=click.channel
        )
        shared = note_locale(settings, click.message, locale)
        allowed = _allowed(session, settings, found, click.user, state.record)
        if allowed and action == "confirm":
            digest_repo.confirm_record(
                session,
                record_id=state.record,
                actor=f"slack:{click.user}",
                today=now.date(),
                now=now,
            )
            note = item_note(shared, "digest.done.confirmed", user=click.user)
        elif allowed:
            until = digest_repo.snooze_record(
                session,
                record_id=state.record,
                days=SNOOZE_DAYS,
                actor=f"slack:{click.user}",
                today=now.date(),
                now=now,
            )
            note = item_note(
                shared, "digest.done.snoozed", user=click.user, until=until.isoformat()
            )
    if not allowed:
        private(slack, click, panels.render_text(locale, "digest.refuse"))
        metrics.decline("not_maintainer")
        return
    if click.message is None and click.response_url:  # /errkb stale, a private list: show it again
        with store.read() as session:
            items = collect(session, settings=settings, graph=None, now=now)
        listing = render_digest(
            locale, items, shown=settings.digest_size, unknown=[], today=local_today(settings, now)
        )
        slack.respond(
            click.response_url,
            {**listing, "blocks": [context(note), *listing["blocks"]], "replace_original": True},
        )
    else:
        update_digest(slack, click.message, click.blocks, state.record, note)
    metrics.answer(f"digest_{action}")


@task(ActionId.DIGEST_DEPRECATE, ActionJob, state=DigestItemState)
def open_deprecate(
    click: ActionJob,
    state: DigestItemState,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    metrics: Metrics,
) -> None:
    slack_locale = slack.user_locale(click.user)
    found = maintainers(settings, slack)
    with store.transaction() as session:
        locale = user_locale(
            session, settings, user=click.user, slack_locale=slack_locale, channel=click.channel
        )
        allowed = _allowed(session, settings, found, click.user, state.record)
    if not allowed:
        private(slack, click, panels.render_text(locale, "digest.refuse"))
        metrics.decline("not_maintainer")
        return
    modal = DeprecateState(
        record=state.record,
        domain=state.domain,
        channel=click.message[0] if click.message else None,
        ts=click.message[1] if click.message else None,
        locale=locale,
    )
    if click.trigger_id:
        slack.open_view(trigger_id=click.trigger_id, view=render_deprecate_modal(locale, modal))


def reason_of(state_values: dict[str, Any]) -> str:
    block = state_values.get(BlockId.DEPRECATE_REASON, {})
    return str((block.get(InputId.VALUE) or {}).get("value") or "").strip()


def deprecate(
    state: DeprecateState,
    user: str,
    reason: str,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    clock: Clock,
) -> dict[str, str] | None:
    """Deprecate while Slack waits for the modal's answer: errors to show in the modal, or None."""
    if not reason:
        return {BlockId.DEPRECATE_REASON: t(state.locale, "digest.deprecate.required")}
    found = maintainers(settings, slack)
    with store.transaction() as session:
        if not _allowed(session, settings, found, user, state.record):
            return {BlockId.DEPRECATE_REASON: t(state.locale, "digest.refuse")}
        digest_repo.deprecate_record(
            session, record_id=state.record, reason=reason, actor=f"slack:{user}", now=clock.now()
        )
    return None


@task(CallbackId.DEPRECATE_VIEW, ViewDoneJob, state=DeprecateState)
def after_deprecate(
    done: ViewDoneJob,
    state: DeprecateState,
    *,
    slack: SlackGateway,
    settings: Settings,
    metrics: Metrics,
) -> None:
    user = done.user
    reason = done.result
    message = (state.channel, state.ts) if state.channel and state.ts else None
    note = item_note(
        note_locale(settings, message, state.locale),
        "digest.done.deprecated",
        user=user,
        reason=reason,
    )
    update_digest(slack, message, None, state.record, note)
    metrics.answer("digest_deprecate")
