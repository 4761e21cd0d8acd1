"""The digest's buttons and the deprecate modal."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltContext

from bot.render.ids import ActionId, CallbackId
from bot.render.state import DeprecateState, DigestItemState, load_state
from bot.slack import digest
from bot.slack.failures import guarded
from bot.slack.payloads import BlockActions, ViewSubmission
from bot.slack.world import World

ALLOWED = "errkb_deprecate_allowed"


def register(app: App, world: World) -> None:
    def ack_action(ack: Ack) -> None:
        ack()

    def _click(body: dict[str, Any]) -> tuple[BlockActions, DigestItemState]:
        payload = BlockActions.model_validate(body)
        return payload, load_state(DigestItemState, payload.value)

    def _shown(body: dict[str, Any]) -> list[dict[str, Any]] | None:
        message = body.get("message")
        return list(message.get("blocks") or []) if isinstance(message, dict) else None

    def handle_action_digest_confirm(body: dict[str, Any]) -> None:
        payload, state = _click(body)
        digest.act(world, action="confirm", state=state, user=payload.user.id,
                   channel=payload.channel.id if payload.channel else None, message=payload.message,
                   shown=_shown(body), response_url=payload.response_url)  # fmt: skip

    def handle_action_digest_snooze(body: dict[str, Any]) -> None:
        payload, state = _click(body)
        digest.act(world, action="snooze", state=state, user=payload.user.id,
                   channel=payload.channel.id if payload.channel else None, message=payload.message,
                   shown=_shown(body), response_url=payload.response_url)  # fmt: skip

    def handle_action_digest_deprecate(body: dict[str, Any]) -> None:
        payload, state = _click(body)
        digest.open_deprecate(world, state=state, user=payload.user.id,
                              channel=payload.channel.id if payload.channel else None, message=payload.message,
                              trigger_id=payload.trigger_id, response_url=payload.response_url)  # fmt: skip

    def handle_action_digest_open(body: dict[str, Any]) -> None:
        payload, state = _click(body)
        digest.open_record(world, state=state, user=payload.user.id,
                           channel=payload.channel.id if payload.channel else payload.user.id,
                           response_url=payload.response_url)  # fmt: skip

    def ack_view_deprecate(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
        payload = ViewSubmission.model_validate(body)
        state = load_state(DeprecateState, payload.view.private_metadata)
        errors = digest.check_deprecate(world, state=state, user=payload.user.id,
                                        reason=digest.reason_of(payload.values))  # fmt: skip
        if errors:
            ack(response_action="errors", errors=errors)
            return
        context[ALLOWED] = True
        ack()

    def handle_view_deprecate(body: dict[str, Any], context: BoltContext) -> None:
        if not context.get(ALLOWED):
            return
        payload = ViewSubmission.model_validate(body)
        state = load_state(DeprecateState, payload.view.private_metadata)
        digest.deprecate(
            world, state=state, user=payload.user.id, reason=digest.reason_of(payload.values)
        )

    lazy = {
        ActionId.DIGEST_CONFIRM: handle_action_digest_confirm,
        ActionId.DIGEST_SNOOZE: handle_action_digest_snooze,
        ActionId.DIGEST_DEPRECATE: handle_action_digest_deprecate,
        ActionId.DIGEST_OPEN: handle_action_digest_open,
    }
    for action, handler in lazy.items():
        app.action(action)(ack=ack_action, lazy=[guarded(world, handler)])
    app.view(CallbackId.DEPRECATE_VIEW)(
        ack=ack_view_deprecate, lazy=[guarded(world, handle_view_deprecate)]
    )
