"""Message shortcuts. "Look up in errkb": the chosen message is a paste, answered in its
thread. "Add to errkb": a maintainer makes a record from the message (a shortcut job)."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltResponse

from bot.alerts import alert_text, is_from_app
from bot.render.ids import CallbackId
from bot.slack.adapter.payloads import MessageShortcut
from bot.slack.queue.intake import Intake
from bot.slack.queue.jobs import JobKind, PasteJob, ShortcutJob


def ack_shortcut_lookup(ack: Ack, body: dict[str, Any], intake: Intake) -> BoltResponse | None:
    shortcut = MessageShortcut.model_validate(body)
    message = shortcut.message
    raw = body.get("message") or {}
    text = (
        alert_text(raw) if is_from_app(raw) else message.text
    )  # an alert: its blocks and attachments too
    paste = PasteJob(
        text=text,
        files=message.files,
        user=shortcut.user.id,
        author=message.user,
        channel=shortcut.channel.id,
        thread_ts=message.thread_ts or message.ts,
        message_ts=message.ts,
        asked=True,
        lookup=True,
        response_url=shortcut.response_url,
    )
    refused = intake.submit(
        JobKind.PASTE,
        paste,
        key=f"shortcut:{shortcut.trigger_id}",
        team_id=shortcut.team_id,
        channel=shortcut.channel.id,
    )
    if refused is None:
        ack()
    return refused


def ack_shortcut_add(ack: Ack, body: dict[str, Any], intake: Intake) -> BoltResponse | None:
    shortcut = MessageShortcut.model_validate(body)
    message = shortcut.message
    job = ShortcutJob(
        callback_id=shortcut.callback_id,
        user=shortcut.user.id,
        channel=shortcut.channel.id,
        text=message.text,
        message_ts=message.ts,
        thread_ts=message.thread_ts,
        trigger_id=shortcut.trigger_id,
        response_url=shortcut.response_url,
    )
    refused = intake.submit(
        CallbackId.ADD_SHORTCUT,
        job,
        key=f"shortcut:{shortcut.trigger_id}",
        team_id=shortcut.team_id,
        channel=shortcut.channel.id,
    )
    if refused is None:
        ack()
    return refused


def register(app: App) -> None:
    app.shortcut(CallbackId.LOOKUP_SHORTCUT)(ack_shortcut_lookup)
    app.shortcut(CallbackId.ADD_SHORTCUT)(ack_shortcut_add)
