"""The add-record modal's submission: validate in the ack (errors shown in the modal), thank after."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltContext

from bot.render.ids import CallbackId
from bot.render.state import AddState, load_state
from bot.slack import feedback
from bot.slack.failures import guarded
from bot.slack.payloads import ViewSubmission
from bot.slack.world import World

ADDED = "errkb_added_record"


def register(app: App, world: World) -> None:
    def ack_view_add_record(ack: Ack, body: dict[str, Any], context: BoltContext) -> None:
        payload = ViewSubmission.model_validate(body)
        state = load_state(AddState, payload.view.private_metadata)
        added = feedback.submit_record(
            world, state=state, user=payload.user.id, state_values=payload.values
        )
        if isinstance(added, dict):
            ack(response_action="errors", errors=added)
            return
        context[ADDED] = added
        ack()

    def handle_view_add_record(body: dict[str, Any], context: BoltContext) -> None:
        if not context.get(ADDED):
            return  # the modal showed errors; nothing was added
        payload = ViewSubmission.model_validate(body)
        state = load_state(AddState, payload.view.private_metadata)
        feedback.thank_for_record(
            world, state=state, user=payload.user.id, record_id=context[ADDED]
        )

    app.view(CallbackId.ADD_RECORD_VIEW)(
        ack=ack_view_add_record, lazy=[guarded(world, handle_view_add_record)]
    )
