"""Messages errkb did not get as a person's paste: other apps' monitoring alerts, and edits.

An alert (a message posted by another app or bot) becomes a paste job when its
text, blocks or attachments (:func:`bot.alerts.alert_text`) hold an error; the
job answers it only in channels with ``/errkb channel alerts on``. Its key is
the alert's thread, so a monitor that updates its alert or repeats it in the
thread is answered once. errkb's own posts (any install's) never get here
(:func:`bot.slack.adapter.middleware.should_ignore`).

A ``message_changed`` from a person is answered when the new text holds an
error the old one did not (:func:`bot.edits.added_errors`), once per message
and errors (a repeat delivery, a further edit of the same error: nothing
more); one from an app is its alert updated.
"""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltResponse

from bot.alerts import alert_text, is_from_app, source_app
from bot.edits import added_errors, edit_key
from bot.match.extract import extract
from bot.slack.queue.intake import Intake
from bot.slack.queue.jobs import JobKind, PasteJob

#: Subtypes an app's alert comes with (a plain post, a legacy bot message, one shown in the
#: channel too).
ALERT_SUBTYPES = frozenset({None, "bot_message", "thread_broadcast"})
#: Subtypes of a person's message whose edit may be answered.
EDITABLE_SUBTYPES = frozenset({None, "thread_broadcast", "me_message", "file_share"})


def submit_alert(
    intake: Intake, body: dict[str, Any], message: dict[str, Any], channel: str
) -> BoltResponse | None:
    """A paste job for an app's alert that holds an error; None (nothing to do) otherwise."""
    ts = str(message.get("ts") or "")
    if message.get("subtype") not in ALERT_SUBTYPES or not ts or not channel:
        return None
    text = alert_text(message)
    if not extract(text).errors:
        return None
    root = str(message.get("thread_ts") or ts)
    job = PasteJob(
        text=text,
        user="",
        channel=channel,
        thread_ts=root,
        message_ts=ts,
        asked=False,
        source=source_app(message),
    )
    return intake.submit(
        JobKind.PASTE,
        job,
        key=f"alert:{channel}:{root}",
        team_id=body.get("team_id"),
        channel=channel,
    )


def ack_alert(body: dict[str, Any], intake: Intake) -> BoltResponse | None:
    event = body.get("event") or {}
    return submit_alert(intake, body, event, str(event.get("channel") or ""))


def ack_message_changed(body: dict[str, Any], intake: Intake) -> BoltResponse | None:
    event = body.get("event") or {}
    new = event.get("message")
    old = event.get("previous_message") or {}
    channel = str(event.get("channel") or "")
    if not isinstance(new, dict) or not channel:
        return None
    if is_from_app(new):
        return submit_alert(intake, body, new, channel)
    ts = str(new.get("ts") or "")
    user = new.get("user")
    text = str(new.get("text") or "")
    if not ts or not user or new.get("subtype") not in EDITABLE_SUBTYPES:
        return None
    added = added_errors(str(old.get("text") or "") if isinstance(old, dict) else "", text)
    if not added:
        return None  # no new error: the edit kept, reworded or removed it (an answer stays)
    direct = event.get("channel_type") == "im"
    job = PasteJob(
        text=text,
        user=str(user),
        channel=channel,
        thread_ts=str(new.get("thread_ts") or ts),
        message_ts=ts,
        asked=direct,
    )
    return intake.submit(
        JobKind.PASTE,
        job,
        key=edit_key(channel, ts, added),
        team_id=body.get("team_id"),
        channel=channel,
    )


__all__ = ["ack_alert", "ack_message_changed", "submit_alert"]
