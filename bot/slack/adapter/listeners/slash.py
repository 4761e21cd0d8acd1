"""The ``/errkb`` slash command: write the job, then acknowledge."""

from __future__ import annotations

import uuid
from typing import Any

from slack_bolt import Ack, App, BoltResponse

from bot.render.ids import COMMAND
from bot.slack.adapter.payloads import SlashCommand
from bot.slack.queue.intake import Intake
from bot.slack.queue.jobs import CommandJob, JobKind, PasteJob
from bot.slack.usecases.slash import parse_command


def ack_command_errkb(ack: Ack, body: dict[str, Any], intake: Intake) -> BoltResponse | None:
    command = SlashCommand.model_validate(body)
    name, arg = parse_command(command.text)
    key = f"command:{command.trigger_id or uuid.uuid4().hex}"
    intake = intake
    if name == "paste":
        paste = PasteJob(
            text=arg,
            user=command.user_id,
            channel=command.channel_id,
            thread_ts=None,
            asked=True,
            response_url=command.response_url,
        )
        refused = intake.submit(
            JobKind.PASTE, paste, key=key, team_id=command.team_id, channel=command.channel_id
        )
    else:
        job = CommandJob(
            name=name,
            arg=arg,
            user=command.user_id,
            channel=command.channel_id,
            response_url=command.response_url,
            trigger_id=command.trigger_id,
        )
        refused = intake.submit(
            JobKind.COMMAND, job, key=key, team_id=command.team_id, channel=command.channel_id
        )
    if refused is None:
        ack()
    return refused


def register(app: App) -> None:
    app.command(COMMAND)(ack_command_errkb)
