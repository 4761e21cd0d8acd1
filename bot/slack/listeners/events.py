"""Events: pastes in channels (``message``, snippets), mentions (``app_mention``)."""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltContext

from bot.slack.answer import Paste, answer_paste
from bot.slack.failures import guarded
from bot.slack.payloads import EventEnvelope, MessageEvent
from bot.slack.world import World


def _ack(ack: Ack) -> None:
    ack()


def paste_text(world: World, event: MessageEvent) -> str:
    """The message text plus the text of any attached snippets / .log / .txt files."""
    parts = [event.text]
    budget = world.settings.paste_limit
    for file in event.files[:3]:
        if file.is_text and file.url and budget > 0:
            body = world.gateway.download_text(file.url, limit=budget)
            if body:
                parts.append(body)
                budget -= len(body)
    return "\n".join(p for p in parts if p)


def _paste(
    world: World, body: dict[str, Any], *, mentioned: bool
) -> tuple[Paste, tuple[str, str | None]]:
    envelope = EventEnvelope.model_validate(body)
    event = envelope.event
    paste = Paste(text=paste_text(world, event), user=event.user or "", channel=event.channel,
                  thread_ts=event.thread_ts or event.ts, message_ts=event.ts, asked=mentioned)  # fmt: skip
    return paste, (envelope.event_id, event.client_msg_id)


def register(app: App, world: World) -> None:
    def handle_event_message(body: dict[str, Any], context: BoltContext) -> None:
        event = body.get("event") or {}
        if context.bot_user_id and f"<@{context.bot_user_id}" in (event.get("text") or ""):
            return  # the app_mention event for the same message answers it
        paste, claim = _paste(world, body, mentioned=False)
        if paste.text.strip():
            answer_paste(world, paste, claim=claim)

    def handle_event_mention(body: dict[str, Any]) -> None:
        paste, claim = _paste(world, body, mentioned=True)
        answer_paste(world, paste, claim=claim)

    def handle_event_file_shared(ack: Ack) -> None:
        ack()  # the message event with subtype file_share carries the snippet

    app.event("message")(ack=_ack, lazy=[guarded(world, handle_event_message)])
    app.event("app_mention")(ack=_ack, lazy=[guarded(world, handle_event_mention)])
    app.event("file_shared")(handle_event_file_shared)
