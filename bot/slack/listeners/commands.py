"""The ``/errkb`` slash command: ack at once, run the subcommand after."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from bot.render.ids import COMMAND
from bot.slack.commands import Command, parse_command, run_command
from bot.slack.failures import guarded
from bot.slack.payloads import SlashCommand
from bot.slack.world import World


def register(app: App, world: World) -> None:
    def ack_command(ack: Ack) -> None:
        ack()

    def handle_command_errkb(body: dict[str, Any]) -> None:
        command = SlashCommand.model_validate(body)
        name, arg = parse_command(command.text)
        run_command(world, Command(name=name, arg=arg, user=command.user_id, channel=command.channel_id,
                                   response_url=command.response_url))  # fmt: skip

    app.command(COMMAND)(ack=ack_command, lazy=[guarded(world, handle_command_errkb)])
