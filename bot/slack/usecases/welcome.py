"""errkb invited to a channel: one short message saying what it does and how to configure it.

In the channel's language (its own setting, the operator's), else the language
of the person who invited errkb, else English. A channel set ``off`` before
errkb was invited again hears nothing.
"""

from __future__ import annotations

import logging

from bot.i18n import negotiate_locale, supported
from bot.render.channel import render_welcome
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.queue.jobs import JobKind, WelcomeJob, task
from bot.slack.web.metrics import Metrics
from bot.store import channel_repo, slack_repo
from bot.store.db import Store

log = logging.getLogger(__name__)


@task(JobKind.WELCOME, WelcomeJob)
def welcome(
    job: WelcomeJob, *, store: Store, slack: SlackGateway, settings: Settings, metrics: Metrics
) -> None:
    inviter_locale = slack.user_locale(job.inviter) if job.inviter else None
    with store.read() as session:
        here = channel_repo.channel_settings(session, channel=job.channel)
        chosen = slack_repo.chosen_locale(session, user_id=job.inviter) if job.inviter else None
    if not here.may_post(asked=True):
        metrics.decline("channel_off")
        return
    locale = supported(here.default_locale(settings.channel_locales)) or negotiate_locale(
        chosen, inviter_locale, None, ""
    )
    payload = render_welcome(locale, here)
    sent = slack.post_message(channel=job.channel, text=payload["text"], blocks=payload["blocks"])
    if sent.ok:
        metrics.answer("welcome")
    else:
        log.info("no welcome in %s: %s", job.channel, sent.error)
