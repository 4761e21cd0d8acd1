"""Buttons: Bolt routes each errkb button by its action id; its listener writes a job of that
kind, done by the use case declared for it (:data:`bot.slack.queue.jobs.TASKS`)."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltResponse

from bot.render.ids import ActionId
from bot.slack.adapter.payloads import BlockActions
from bot.slack.queue.intake import Intake
from bot.slack.queue.jobs import ActionJob


def ack_button(ack: Ack, body: dict[str, Any], intake: Intake) -> BoltResponse | None:
    click = BlockActions.model_validate(body)
    shown = body.get("message")
    job = ActionJob(
        action_id=click.actions[0].action_id,
        value=click.value,
        user=click.user.id,
        channel=click.channel.id if click.channel else None,
        message=click.message,
        blocks=list(shown.get("blocks") or []) if isinstance(shown, dict) else None,
        response_url=click.response_url,
        trigger_id=click.trigger_id,
        home=click.home,
    )
    key = f"action:{click.trigger_id}:{click.actions[0].action_ts or ''}"
    refused = intake.submit(
        click.actions[0].action_id, job, key=key, team_id=click.team_id, channel=job.channel
    )
    if refused is None:
        ack()
    return refused


def register(app: App) -> None:
    for action in ActionId:
        app.action(action)(ack_button)
