"""The message shortcut "Look up in errkb": the chosen message is a paste, answered in its thread."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltContext, BoltResponse

from bot.render.ids import CallbackId
from bot.slack.intake import intake_of
from bot.slack.jobs import JobKind, PasteJob
from bot.slack.payloads import MessageShortcut


def ack_shortcut_lookup(ack: Ack, body: dict[str, Any], context: BoltContext) -> BoltResponse | None:
    shortcut = MessageShortcut.model_validate(body)
    message = shortcut.message
    paste = PasteJob(text=message.text, files=message.files, user=shortcut.user.id, author=message.user,
                     channel=shortcut.channel.id,
                     thread_ts=message.thread_ts or message.ts, message_ts=message.ts, asked=True,
                     response_url=shortcut.response_url)  # fmt: skip
    refused = intake_of(context).submit(JobKind.PASTE, paste, key=f"shortcut:{shortcut.trigger_id}",
                                        team_id=shortcut.team_id, channel=shortcut.channel.id)  # fmt: skip
    if refused is None:
        ack()
    return refused


def register(app: App) -> None:
    app.shortcut(CallbackId.LOOKUP_SHORTCUT)(ack_shortcut_lookup)
