"""The message shortcut "Look up in errkb": triage the chosen message, answer in its thread."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App

from bot.render.ids import CallbackId
from bot.slack.answer import Paste, answer_paste
from bot.slack.failures import guarded
from bot.slack.listeners.events import paste_text
from bot.slack.payloads import MessageEvent, MessageShortcut
from bot.slack.world import World


def register(app: App, world: World) -> None:
    def ack_shortcut(ack: Ack) -> None:
        ack()

    def handle_shortcut_lookup(body: dict[str, Any]) -> None:
        payload = MessageShortcut.model_validate(body)
        message = payload.message
        event = MessageEvent(type="message", channel=payload.channel.id, **message.model_dump())
        paste = Paste(text=paste_text(world, event), user=payload.user.id, channel=payload.channel.id,
                      thread_ts=message.thread_ts or message.ts, message_ts=message.ts, asked=True,
                      response_url=payload.response_url)  # fmt: skip
        answer_paste(world, paste)

    app.shortcut(CallbackId.LOOKUP_SHORTCUT)(
        ack=ack_shortcut, lazy=[guarded(world, handle_shortcut_lookup)]
    )
