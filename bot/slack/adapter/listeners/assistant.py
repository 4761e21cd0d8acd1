"""Slack's assistant view: a thread opened (``assistant_thread_started``), and what the person
writes in it: a subcommand (``search …``, ``stale``; the suggested prompts send these) or a
paste, answered in the thread (:mod:`bot.slack.usecases.assistant`)."""

from __future__ import annotations

from typing import Any

from slack_bolt import App, BoltResponse

from bot.slack.adapter.payloads import AssistantThreadEnvelope, EventEnvelope
from bot.slack.queue.intake import Intake
from bot.slack.queue.jobs import AssistantJob, CommandJob, JobKind, PasteJob
from bot.slack.usecases.slash import parse_command


def ack_event_assistant_thread_started(body: dict[str, Any], intake: Intake) -> BoltResponse | None:
    envelope = AssistantThreadEnvelope.model_validate(body)
    thread = envelope.event.assistant_thread
    job = AssistantJob(user=thread.user_id, channel=thread.channel_id, thread_ts=thread.thread_ts)
    return intake.submit(
        JobKind.ASSISTANT,
        job,
        key=f"event:{envelope.event_id}",
        team_id=envelope.team_id,
        channel=thread.channel_id,
    )


def submit_assistant_message(intake: Intake, envelope: EventEnvelope) -> BoltResponse | None:
    """A message in an assistant thread: its subcommand, answered in the thread, or a paste."""
    event = envelope.event
    assert event.thread_ts is not None
    key = f"msg:{event.client_msg_id}" if event.client_msg_id else f"event:{envelope.event_id}"
    name, arg = parse_command(event.text)
    if name != "paste" and not event.files:
        command = CommandJob(
            name=name,
            arg=arg,
            user=event.user or "",
            channel=event.channel,
            thread_ts=event.thread_ts,
        )
        return intake.submit(
            JobKind.COMMAND, command, key=key, team_id=envelope.team_id, channel=event.channel
        )
    paste = PasteJob(
        text=event.text,
        files=event.files,
        user=event.user or "",
        channel=event.channel,
        thread_ts=event.thread_ts,
        message_ts=event.ts,
        asked=True,
        assistant=True,
    )
    return intake.submit(
        JobKind.PASTE, paste, key=key, team_id=envelope.team_id, channel=event.channel
    )


def register(app: App) -> None:
    app.event("assistant_thread_started")(ack_event_assistant_thread_started)


__all__ = ["ack_event_assistant_thread_started", "register", "submit_assistant_message"]
