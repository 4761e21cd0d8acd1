"""Buttons: votes, share, show a record, add to the knowledge base."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from bot.render.ids import ActionId
from bot.render.state import AddState, RecordState, ReplyState, VoteState, load_state
from bot.slack import feedback
from bot.slack.failures import guarded
from bot.slack.payloads import BlockActions
from bot.slack.world import World


def register(app: App, world: World) -> None:
    def ack_action(ack: Ack) -> None:
        ack()

    def handle_action_vote(body: dict[str, Any]) -> None:
        payload = BlockActions.model_validate(body)
        verdict = "fixed" if payload.actions[0].action_id == ActionId.VOTE_FIXED else "failed"
        feedback.vote(world, state=load_state(VoteState, payload.value), verdict=verdict, user=payload.user.id,
                      response_url=payload.response_url, message=payload.message)  # fmt: skip

    def handle_action_share(body: dict[str, Any]) -> None:
        payload = BlockActions.model_validate(body)
        feedback.share(world, state=load_state(ReplyState, payload.value), user=payload.user.id,
                       channel=payload.channel.id if payload.channel else None, response_url=payload.response_url)  # fmt: skip

    def handle_action_show(body: dict[str, Any]) -> None:
        payload = BlockActions.model_validate(body)
        feedback.show_button(world, state=load_state(RecordState, payload.value), user=payload.user.id,
                             channel=payload.channel.id if payload.channel else payload.user.id,
                             response_url=payload.response_url)  # fmt: skip

    def handle_action_add(body: dict[str, Any]) -> None:
        payload = BlockActions.model_validate(body)
        feedback.open_add_modal(world, state=load_state(AddState, payload.value), user=payload.user.id,
                                channel=payload.channel.id if payload.channel else None,
                                trigger_id=payload.trigger_id, response_url=payload.response_url)  # fmt: skip

    for action in (ActionId.VOTE_FIXED, ActionId.VOTE_FAILED):
        app.action(action)(ack=ack_action, lazy=[guarded(world, handle_action_vote)])
    app.action(ActionId.SHARE)(ack=ack_action, lazy=[guarded(world, handle_action_share)])
    app.action(ActionId.SHOW_RECORD)(ack=ack_action, lazy=[guarded(world, handle_action_show)])
    app.action(ActionId.ADD_RECORD)(ack=ack_action, lazy=[guarded(world, handle_action_add)])
