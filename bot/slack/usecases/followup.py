"""Closing the loop: a maintainer added a record for an unknown error, so the threads it was
pasted in are told, once each, in the language errkb answered there.

The threads were remembered when the error was noted (``bot.store.sightings``).
Each is claimed before errkb posts and released again when the post cannot be
made now (errkb is retried later), so no thread hears it twice. Channel
settings hold: an ``off`` channel hears nothing, a ``quiet`` one only in a
thread errkb already answered in.
"""

from __future__ import annotations

import logging

from bot.clock import Clock
from bot.render.followup import render_known_now
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.locale import user_locale
from bot.slack.queue.jobs import FollowUpJob, JobKind, task
from bot.slack.web.metrics import Metrics
from bot.store import channel_repo, repository, sightings
from bot.store.db import Store

log = logging.getLogger(__name__)


@task(JobKind.FOLLOW_UP, FollowUpJob)
def tell_pasters(
    job: FollowUpJob,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    clock: Clock,
    metrics: Metrics,
) -> None:
    with store.read() as session:
        record = repository.get_record(session, record_id=job.record)
        waiting = sightings.untold(session, unknown_id=job.unknown)
    if record is None:
        log.info("record %s is gone: no follow-up", job.record)
        return
    for sighting in waiting:
        slack_locale = slack.user_locale(sighting.user_id)
        with store.transaction() as session:
            here = channel_repo.channel_settings(session, channel=sighting.channel)
            answered = sightings.thread_answer_locale(
                session, channel=sighting.channel, thread_ts=sighting.thread_ts
            )
            if not here.may_follow_up(answered_here=answered is not None):
                metrics.decline("channel_settings")
                continue
            if not sightings.claim(
                session, sighting_id=sighting.id, record_id=record.id, at=clock.now()
            ):
                continue  # another attempt told it
            locale = answered or user_locale(
                session,
                settings,
                user=sighting.user_id,
                slack_locale=slack_locale,
                channel=sighting.channel,
            )
        payload = render_known_now(
            locale, record, asker=sighting.user_id, added_by=job.by, fixed_by=job.fix_by
        )
        try:
            sent = slack.post_message(
                channel=sighting.channel,
                thread_ts=sighting.thread_ts,
                text=payload["text"],
                blocks=payload["blocks"],
            )
        except Exception:
            with store.transaction() as session:
                sightings.release(session, sighting_id=sighting.id)
            raise
        if sent.ok:
            metrics.answer("follow_up")
        else:
            log.info("no follow-up in %s: %s", sighting.channel, sent.error)


__all__ = ["tell_pasters"]
