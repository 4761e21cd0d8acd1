"""What the digest's buttons and the deprecate modal do. Maintainers and the record's
domain owners may act; anyone else gets a polite refusal and nothing changes.
Each action is audited and the digest message is updated in place."""

from __future__ import annotations

import logging
from typing import Any

from bot.i18n import t
from bot.render import blocks, panels
from bot.render.digest import item_note, mark_item, render_deprecate_modal
from bot.render.ids import BlockId, InputId
from bot.render.state import DeprecateState, DigestItemState
from bot.slack import feedback
from bot.slack.clock import today
from bot.slack.locale import user_locale
from bot.slack.world import World
from bot.store import digest_repo

log = logging.getLogger(__name__)

SNOOZE_DAYS = 30


def may_act(world: World, user: str, domain: str) -> bool:
    return user in world.settings.domain_owners.get(domain, ()) or world.is_maintainer(user)


def _refuse(
    world: World, locale: str, user: str, channel: str | None, response_url: str | None
) -> None:
    refusal = blocks.ephemeral(panels.render_text(locale, "digest.refuse"))
    if response_url:
        world.gateway.respond(response_url, {**refusal, "replace_original": False})
    elif channel:
        world.gateway.post_ephemeral(
            channel=channel, user=user, text=refusal["text"], blocks=refusal["blocks"]
        )
    world.metrics.decline("not_maintainer")


def _update(world: World, message: tuple[str, str] | None, shown: list[dict[str, Any]] | None, record: str,
            note: str) -> None:  # fmt: skip
    """Swap the record's buttons in the digest for ``note``; the blocks come from the click,
    or (after a modal) from the message itself."""
    if message is None:
        return
    channel, ts = message
    if shown is None:
        found = world.gateway.call(
            "conversations.history", channel=channel, latest=ts, inclusive=True, limit=1
        )
        history = (found.data or {}).get("messages") or [] if found.ok else []
        shown = history[0].get("blocks") if history else None
    if not shown:
        log.info("digest message %s not found; not updated", ts)
        return
    world.gateway.update_message(
        channel=channel, ts=ts, text=note, blocks=mark_item(shown, record, note)
    )


def act(world: World, *, action: str, state: DigestItemState, user: str, channel: str | None,
        message: tuple[str, str] | None, shown: list[dict[str, Any]] | None, response_url: str | None) -> None:  # fmt: skip
    """ "Still valid" or "Snooze 30 days"."""
    locale = user_locale(world, user=user, channel=channel)
    if not may_act(world, user, state.domain):
        _refuse(world, locale, user, channel, response_url)
        return
    now = world.clock.now()
    with world.store.transaction() as session:
        if action == "confirm":
            digest_repo.confirm_record(session, record_id=state.record, actor=f"slack:{user}", today=today(world.clock),
                                       now=now)  # fmt: skip
            note = item_note(locale, "digest.done.confirmed", user=user)
        else:
            until = digest_repo.snooze_record(session, record_id=state.record, days=SNOOZE_DAYS,
                                              actor=f"slack:{user}", today=today(world.clock), now=now)  # fmt: skip
            note = item_note(locale, "digest.done.snoozed", user=user, until=until.isoformat())
    _update(world, message, shown, state.record, note)
    world.metrics.answer(f"digest_{action}")


def open_deprecate(world: World, *, state: DigestItemState, user: str, channel: str | None,
                   message: tuple[str, str] | None, trigger_id: str, response_url: str | None) -> None:  # fmt: skip
    locale = user_locale(world, user=user, channel=channel)
    if not may_act(world, user, state.domain):
        _refuse(world, locale, user, channel, response_url)
        return
    modal = DeprecateState(record=state.record, domain=state.domain, channel=message[0] if message else None,
                           ts=message[1] if message else None, locale=locale)  # fmt: skip
    world.gateway.open_view(trigger_id=trigger_id, view=render_deprecate_modal(locale, modal))


def reason_of(state_values: dict[str, Any]) -> str:
    block = state_values.get(BlockId.DEPRECATE_REASON, {})
    return str((block.get(InputId.VALUE) or {}).get("value") or "").strip()


def check_deprecate(
    world: World, *, state: DeprecateState, user: str, reason: str
) -> dict[str, str] | None:
    """Errors to show in the modal, or None when the deprecation may go ahead."""
    if not may_act(world, user, state.domain):
        return {BlockId.DEPRECATE_REASON: t(state.locale, "digest.refuse")}
    if not reason:
        return {BlockId.DEPRECATE_REASON: t(state.locale, "digest.deprecate.required")}
    return None


def deprecate(world: World, *, state: DeprecateState, user: str, reason: str) -> None:
    with world.store.transaction() as session:
        digest_repo.deprecate_record(session, record_id=state.record, reason=reason, actor=f"slack:{user}",
                                     now=world.clock.now())  # fmt: skip
    message = (state.channel, state.ts) if state.channel and state.ts else None
    note = item_note(state.locale, "digest.done.deprecated", user=user, reason=reason)
    _update(world, message, None, state.record, note)
    world.metrics.answer("digest_deprecate")


def open_record(
    world: World, *, state: DigestItemState, user: str, channel: str, response_url: str | None
) -> None:
    feedback.show(
        world, record_id=state.record, user=user, channel=channel, response_url=response_url
    )
