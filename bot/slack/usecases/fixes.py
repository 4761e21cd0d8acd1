"""A fix found in a thread about an unknown error, remembered for the record that will answer it.

Someone reacts with a check mark to a reply in the thread of an error errkb did
not know, or the person who pasted it says it worked ("that worked", "好了")
just after a reply: that reply is the thread's fix (``bot.store.sightings``).
The add-record form then opens with it as the first workaround, its code as
``how`` and the thread's link as the source (:func:`prefill_fix`), and the
follow-up in the thread credits the person who wrote it.
"""

from __future__ import annotations

import logging
from typing import Any

from sqlalchemy.orm import Session

from bot.fixes import fix_workaround
from bot.render.ids import BlockId
from bot.render.modal import with_fix
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.queue.jobs import FixJob, JobKind, task
from bot.slack.web.metrics import Metrics
from bot.store import sightings
from bot.store.db import Store
from bot.store.sightings import ThreadFix

log = logging.getLogger(__name__)

#: How far back in a thread the reply before "that worked" is looked for.
THREAD_MESSAGES = 100


def _ts(message: dict[str, Any]) -> float:
    try:
        return float(message.get("ts") or 0)
    except ValueError:
        return 0.0


def _by_person(message: dict[str, Any]) -> bool:
    return bool(message.get("user")) and not message.get("bot_id") and not message.get("subtype")


def _marked(job: FixJob, slack: SlackGateway) -> tuple[str | None, dict[str, Any] | None]:
    """(the thread, the reply that fixed it), read from Slack."""
    if job.thread_ts is None:  # a reaction: the message it is on, and its thread
        found = slack.thread_messages(channel=job.channel, thread_ts=job.ts, limit=THREAD_MESSAGES)
        reply = next((m for m in found if m.get("ts") == job.ts), None)
        root = str(reply.get("thread_ts") or "") if reply else ""
        if reply is None or not root or root == job.ts or not _by_person(reply):
            return None, None  # not a person's reply in a thread
        return root, reply
    found = slack.thread_messages(  # the replies before the asker said it worked
        channel=job.channel, thread_ts=job.thread_ts, limit=THREAD_MESSAGES, latest=job.ts
    )
    said = _ts({"ts": job.ts})
    before = [
        m
        for m in found
        if _ts(m) < said
        and m.get("ts") != job.thread_ts
        and _by_person(m)
        and m.get("user") != job.by
    ]
    return job.thread_ts, (before[-1] if before else None)


@task(JobKind.FIX, FixJob)
def capture_fix(job: FixJob, *, store: Store, slack: SlackGateway, metrics: Metrics) -> None:
    """Remember the reply ``job`` marks as the fix of its thread's unknown error."""
    if job.thread_ts is not None:
        with store.read() as session:
            noted = sightings.thread_sighting(session, channel=job.channel, thread_ts=job.thread_ts)
        if noted is None or noted.user_id != job.by:
            metrics.decline("not_a_fix")  # only the person who pasted the error can say it worked
            return
    thread, reply = _marked(job, slack)
    if thread is None or reply is None:
        metrics.decline("not_a_fix")
        return
    with store.read() as session:
        noted = sightings.thread_sighting(session, channel=job.channel, thread_ts=thread)
    if noted is None:
        metrics.decline("not_a_fix")  # a thread about an error errkb knows, or about no error
        return
    permalink = slack.permalink(channel=job.channel, ts=str(reply["ts"]))
    with store.transaction() as session:
        sightings.set_fix(
            session,
            sighting_id=noted.id,
            text=str(reply.get("text") or ""),
            user_id=str(reply["user"]),
            ts=str(reply["ts"]),
            permalink=permalink,
        )
    log.info(
        "fix found in a thread", extra={"unknown_id": noted.unknown_id, "channel": job.channel}
    )


def prefill_fix(values: dict[BlockId, str], fix: ThreadFix | None) -> dict[BlockId, str]:
    """The add-record form's values with the thread's fix as its first workaround."""
    if fix is None:
        return values
    action, how = fix_workaround(fix.text)
    return with_fix(values, action=action, how=how, source=fix.permalink)


def fix_of(
    session: Session, *, unknown: int | None, channel: str | None, thread: str | None
) -> ThreadFix | None:
    """The fix found for an unknown error: in this thread, else in any of its threads."""
    found = (
        sightings.thread_fix(session, channel=channel, thread_ts=thread)
        if channel and thread
        else None
    )
    if found is None and unknown is not None:
        found = sightings.unknown_fix(session, unknown_id=unknown)
    return found


__all__ = ["capture_fix", "fix_of", "prefill_fix"]
