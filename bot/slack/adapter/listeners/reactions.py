"""A check-mark reaction (``reaction_added``: ``white_check_mark``, ``heavy_check_mark``) on a
message: perhaps the fix of an unknown error's thread (:mod:`bot.slack.usecases.fixes` decides)."""

from __future__ import annotations

from typing import Any

from slack_bolt import App, BoltContext, BoltResponse

from bot.slack.adapter.payloads import ReactionEnvelope
from bot.slack.queue.intake import Intake
from bot.slack.queue.jobs import FixJob, JobKind

#: The reactions that say "this is what fixed it".
FIXED_REACTIONS = frozenset({"white_check_mark", "heavy_check_mark"})


def ack_event_reaction_added(
    body: dict[str, Any], context: BoltContext, intake: Intake
) -> BoltResponse | None:
    envelope = ReactionEnvelope.model_validate(body)
    event = envelope.event
    if (
        event.reaction.split("::")[0] not in FIXED_REACTIONS
        or event.item.type != "message"
        or not event.item.ts
    ):
        return None
    if context.bot_user_id and event.user == context.bot_user_id:
        return None
    job = FixJob(channel=event.item.channel, ts=event.item.ts, by=event.user)
    return intake.submit(
        JobKind.FIX,
        job,
        key=f"fix:{event.item.channel}:{event.item.ts}:{event.user}",
        team_id=envelope.team_id,
        channel=event.item.channel,
    )


def register(app: App) -> None:
    app.event("reaction_added")(ack_event_reaction_added)


__all__ = ["FIXED_REACTIONS", "ack_event_reaction_added", "register"]
