"""Slack's assistant view: errkb as an assistant in the split view.

``assistant_thread_started`` (a person opened a new assistant thread) sets the
thread's suggested prompts in their language (:func:`start_thread`). A paste
in an assistant thread is a paste job with ``assistant`` set: while errkb
works the thread shows a status (:func:`working`), and once it has answered
the thread is titled with the error (:func:`titled`). A workspace without the
assistant view keeps errkb's classic Messages tab: a top-level direct message
is answered as any other paste.

Bolt's ``Assistant`` middleware is not used: it acknowledges every assistant
event itself, and errkb acknowledges an event only once its job is in the
database (:mod:`bot.slack.queue.intake`).
"""

from __future__ import annotations

import logging

from bot.i18n import t
from bot.match.rank import Triage
from bot.render.assistant import render_prompts, thread_title
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.locale import user_locale
from bot.slack.queue.jobs import AssistantJob, JobKind, PasteJob, task
from bot.store.db import Store

log = logging.getLogger(__name__)


def _locale(
    store: Store, settings: Settings, slack: SlackGateway, user: str, channel: str, text: str = ""
) -> str:
    slack_locale = slack.user_locale(user)
    with store.read() as session:
        return user_locale(
            session, settings, user=user, slack_locale=slack_locale, channel=channel, text=text
        )


@task(JobKind.ASSISTANT, AssistantJob)
def start_thread(
    job: AssistantJob, *, store: Store, slack: SlackGateway, settings: Settings
) -> None:
    """A new assistant thread: offer what errkb does, as prompts in the person's language."""
    locale = _locale(store, settings, slack, job.user, job.channel)
    title, prompts = render_prompts(locale)
    sent = slack.call(
        "assistant.threads.setSuggestedPrompts",
        channel_id=job.channel,
        thread_ts=job.thread_ts,
        title=title,
        prompts=prompts,
    )
    if not sent.ok:
        log.info("no suggested prompts in %s: %s", job.channel, sent.error)


def working(slack: SlackGateway, paste: PasteJob, locale: str) -> None:
    """Show that errkb is looking the paste up (Slack clears it when errkb replies)."""
    assert paste.thread_ts is not None
    slack.call(
        "assistant.threads.setStatus",
        channel_id=paste.channel,
        thread_ts=paste.thread_ts,
        status=t(locale, "assistant.status"),
    )


def titled(slack: SlackGateway, paste: PasteJob, triage: Triage, *, sent: bool) -> None:
    """Name the thread after the error it answered; without an answer in the thread (nothing
    sent, or no error found), clear the status instead."""
    assert paste.thread_ts is not None
    title = thread_title(triage) if sent else None
    if title is None:
        slack.call(
            "assistant.threads.setStatus",
            channel_id=paste.channel,
            thread_ts=paste.thread_ts,
            status="",
        )
        return
    slack.call(
        "assistant.threads.setTitle",
        channel_id=paste.channel,
        thread_ts=paste.thread_ts,
        title=title,
    )


def status_locale(store: Store, settings: Settings, slack: SlackGateway, paste: PasteJob) -> str:
    """The language of the status line, before the answer's language is settled."""
    return _locale(store, settings, slack, paste.user, paste.channel, paste.text)


__all__ = ["start_thread", "status_locale", "titled", "working"]
