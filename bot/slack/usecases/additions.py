"""The "Add to errkb" message shortcut: a maintainer makes a record from a message's error.

The add-record modal opens prefilled: the message's exception line as the
signature, a regex that matches it with what varies generalised, a domain
from the closest records (:mod:`bot.match.suggest`), and, when a reply in the
message's thread was marked as the fix, that fix as the first workaround
(:mod:`bot.slack.usecases.fixes`): then any message of the thread opens the thread's
error. When the error
was noted as unknown before, the modal carries that, so the people who pasted it are
told once the record is in (:mod:`bot.slack.usecases.followup`). Anyone else gets a
private refusal.
"""

from __future__ import annotations

from bot.knowledge import IndexSource
from bot.match.extract import extract
from bot.match.features import OFFER
from bot.match.index import MatchIndex
from bot.match.normalise import template
from bot.match.suggest import exception_line, suggest_domain
from bot.render import blocks, panels
from bot.render.ids import CallbackId
from bot.render.kit import Message
from bot.render.modal import prefill, render_add_modal
from bot.render.state import AddState
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.locale import user_locale
from bot.slack.adapter.roles import maintainers
from bot.slack.queue.jobs import ShortcutJob, task
from bot.slack.usecases.answer_paste import loaded
from bot.slack.usecases.fixes import fix_of, prefill_fix
from bot.slack.web.metrics import Metrics
from bot.store import slack_repo
from bot.store.db import Store

NEIGHBOURS = 5


def neighbours(kb: MatchIndex, text: str, line: str) -> list[tuple[str, float]]:
    """(domain, score) of the records closest to the message: its matches worth a look (at
    or above the candidate floor: a distant record says nothing of the domain), else the
    record a search by its line finds first."""
    found = [
        (m.record_id, m.score) for m in kb.triage(text).matches[:NEIGHBOURS] if m.score >= OFFER
    ]
    # no candidate worth a look: only the closest record by words says anything of the domain
    found = found or kb.search(line, limit=1)
    return [
        (record.domain, score) for rid, score in found if (record := kb.record(rid)) is not None
    ]


def _private(slack: SlackGateway, job: ShortcutJob, payload: Message) -> None:
    if job.response_url:
        slack.respond(job.response_url, blocks.ephemeral(payload))
    else:
        slack.post_ephemeral(
            channel=job.channel, user=job.user, text=payload["text"], blocks=payload["blocks"]
        )


@task(CallbackId.ADD_SHORTCUT, ShortcutJob)
def open_add_from_message(
    job: ShortcutJob,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    index: IndexSource,
    metrics: Metrics,
) -> None:
    slack_locale = slack.user_locale(job.user)
    allowed = job.user in maintainers(settings, slack)
    line = exception_line(job.text) if allowed and extract(job.text).errors else ""
    thread = job.thread_ts or job.message_ts
    with store.read() as session:
        locale = user_locale(
            session, settings, user=job.user, slack_locale=slack_locale, channel=job.channel
        )
        unknown = slack_repo.find_unknown(session, template=template(line)) if line else None
        fix = (
            fix_of(session, unknown=unknown, channel=job.channel, thread=thread)
            if allowed
            else None
        )
        noted = (
            slack_repo.get_unknown(session, unknown_id=fix.unknown_id) if fix and not line else None
        )
    if not allowed:
        _private(slack, job, panels.render_refusal(locale))
        metrics.decline("not_maintainer")
        return
    if noted is not None:  # any message of a thread whose fix was found: the thread's error
        line = noted.example
        unknown = noted.id
    line = line or exception_line(job.text)
    text = job.text if noted is None else noted.sample
    domain = suggest_domain(text, neighbours(loaded(index), text, line)) if line else None
    state = AddState(
        unknown=unknown,
        channel=job.channel,
        thread=thread,
        locale=locale,
        fix_by=fix.user_id if fix else None,
    )
    values = prefill_fix(prefill(line, line, domain=domain), fix)
    if job.trigger_id:
        slack.open_view(trigger_id=job.trigger_id, view=render_add_modal(locale, state, values))


__all__ = ["open_add_from_message"]
