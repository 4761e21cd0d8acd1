"""Events: pastes in channels and DMs (``message``, snippets), mentions (``app_mention``),
the Home tab opened (``app_home_opened``), errkb invited to a channel (``member_joined_channel``),
errkb's tokens taken back (``app_uninstalled``, ``tokens_revoked``: done at once, see
:mod:`bot.slack.adapter.uninstall`).

Each listener writes a job and returns; Slack is acknowledged once the job is
in the database (or told 503 to deliver it again).
"""

from __future__ import annotations

from typing import Any

from slack_bolt import Ack, App, BoltContext, BoltResponse

from bot.alerts import is_from_app
from bot.fixes import says_it_worked
from bot.match.extract import extract
from bot.slack.adapter.listeners import alerts, assistant
from bot.slack.adapter.payloads import (
    EventEnvelope,
    HomeOpenedEnvelope,
    MemberJoinedEnvelope,
    RevokingEnvelope,
)
from bot.slack.adapter.uninstall import Revocations
from bot.slack.queue.intake import Intake
from bot.slack.queue.jobs import FixJob, HomeJob, JobKind, PasteJob, WelcomeJob


def submit_paste(
    intake: Intake, envelope: EventEnvelope, *, mentioned: bool
) -> BoltResponse | None:
    event = envelope.event
    direct = event.channel_type == "im"  # a paste in errkb's Messages tab asks errkb
    job = PasteJob(
        text=event.text,
        files=event.files,
        user=event.user or "",
        channel=event.channel,
        thread_ts=event.thread_ts or event.ts,
        message_ts=event.ts,
        asked=mentioned or direct,
        mention=mentioned,
    )
    # a message and its retries share the message id, whichever event delivered it
    key = f"msg:{event.client_msg_id}" if event.client_msg_id else f"event:{envelope.event_id}"
    return intake.submit(
        JobKind.PASTE, job, key=key, team_id=envelope.team_id, channel=event.channel
    )


def ack_event_message(
    body: dict[str, Any], context: BoltContext, intake: Intake
) -> BoltResponse | None:
    raw = body.get("event") or {}
    if raw.get("subtype") == "message_changed":
        return alerts.ack_message_changed(body, intake)
    if is_from_app(raw):
        return alerts.ack_alert(body, intake)
    envelope = EventEnvelope.model_validate(body)
    event = envelope.event
    if context.bot_user_id and f"<@{context.bot_user_id}" in event.text:
        return None  # the app_mention event for the same message answers it
    if event.channel_type == "im" and event.thread_ts:  # a thread in errkb's DM: the assistant view
        return assistant.submit_assistant_message(intake, envelope)
    if not event.files and event.channel_type != "im" and not extract(event.text).errors:
        if (
            event.thread_ts
            and event.thread_ts != event.ts
            and event.user
            and says_it_worked(event.text)
        ):
            return submit_said_fixed(intake, envelope)  # perhaps the asker, on a fix in the thread
        return None  # chit-chat: nothing to answer, nothing to keep
    return submit_paste(intake, envelope, mentioned=False)


def submit_said_fixed(intake: Intake, envelope: EventEnvelope) -> BoltResponse | None:
    event = envelope.event
    job = FixJob(
        channel=event.channel,
        thread_ts=event.thread_ts,
        ts=event.ts,
        by=event.user or "",
        said=True,
    )
    return intake.submit(
        JobKind.FIX,
        job,
        key=f"fix:said:{event.channel}:{event.ts}",
        team_id=envelope.team_id,
        channel=event.channel,
    )


def ack_event_mention(body: dict[str, Any], intake: Intake) -> BoltResponse | None:
    return submit_paste(intake, EventEnvelope.model_validate(body), mentioned=True)


def ack_event_file_shared(ack: Ack) -> None:
    ack()  # the message event with subtype file_share carries the snippet


def ack_event_app_home_opened(body: dict[str, Any], intake: Intake) -> BoltResponse | None:
    envelope = HomeOpenedEnvelope.model_validate(body)
    if envelope.event.tab != "home":
        return None  # the Messages tab: nothing to publish
    return intake.submit(
        JobKind.HOME,
        HomeJob(user=envelope.event.user),
        key=f"event:{envelope.event_id}",
        team_id=envelope.team_id,
        channel=None,
    )


def ack_event_member_joined_channel(
    body: dict[str, Any], context: BoltContext, intake: Intake
) -> BoltResponse | None:
    envelope = MemberJoinedEnvelope.model_validate(body)
    event = envelope.event
    if not context.bot_user_id or event.user != context.bot_user_id:
        return None  # someone else joined a channel errkb is in
    job = WelcomeJob(channel=event.channel, inviter=event.inviter)
    return intake.submit(
        JobKind.WELCOME,
        job,
        key=f"event:{envelope.event_id}",
        team_id=envelope.team_id,
        channel=event.channel,
    )


def ack_event_app_uninstalled(ack: Ack, body: dict[str, Any], revocations: Revocations) -> None:
    envelope = RevokingEnvelope.model_validate(body)
    revocations.uninstalled(team_id=envelope.team_id, enterprise_id=envelope.enterprise_id)
    ack()


def ack_event_tokens_revoked(ack: Ack, body: dict[str, Any], revocations: Revocations) -> None:
    envelope = RevokingEnvelope.model_validate(body)
    tokens = envelope.event.tokens
    revocations.revoked(
        team_id=envelope.team_id,
        enterprise_id=envelope.enterprise_id,
        bots=tokens.bot,
        users=tokens.oauth,
    )
    ack()


def ack_event_other(ack: Ack) -> None:
    """An event errkb does not read (a subscription it has no listener for): acknowledged,
    so Slack does not deliver it again, and ignored."""
    ack()


def register(app: App) -> None:
    app.event("message")(ack_event_message)
    app.event("app_mention")(ack_event_mention)
    app.event("file_shared")(ack_event_file_shared)
    app.event("app_home_opened")(ack_event_app_home_opened)
    app.event("member_joined_channel")(ack_event_member_joined_channel)
    app.event("app_uninstalled")(ack_event_app_uninstalled)
    app.event("tokens_revoked")(ack_event_tokens_revoked)
