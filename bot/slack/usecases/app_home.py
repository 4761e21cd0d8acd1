"""The App Home tab: gather what the user should see, render it, ``views.publish`` it.

Published when the tab is opened, after a search or a language choice in it,
and after any button clicked in it (:mod:`bot.slack.queue.handlers`), so the tab
always shows what is true now. Rights are looked up here as everywhere
(:func:`bot.slack.adapter.roles.maintainers`); a button in the tab is checked again
when clicked, as in the digest.
"""

from __future__ import annotations

import logging
import threading

from bot.clock import Clock
from bot.digest.jobs import collect, local_today
from bot.i18n import AUTO, available_locales
from bot.i18n.coverage import record_coverage
from bot.knowledge import GraphSource, IndexSource
from bot.match.index import MatchIndex
from bot.render.home import (
    SHOWN_RECENT,
    SHOWN_RESULTS,
    SHOWN_UNKNOWN,
    HomeView,
    KbStats,
    RecentAnswer,
    render_home,
)
from bot.render.ids import ActionId
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.locale import user_locale
from bot.slack.adapter.roles import maintainers
from bot.slack.queue.jobs import ActionJob, HomeJob, JobKind, task
from bot.slack.usecases.answer_paste import loaded
from bot.store import channel_repo, home_repo, slack_repo
from bot.store.db import Store

log = logging.getLogger(__name__)

SEARCH_CHARS = 500


class _Translated:
    """Per locale, the share of the knowledge base's texts that read in it.

    Counted record by record (:func:`record_coverage`) and kept by the record's packed
    bytes, which an index update shares for every record it does not change: the first
    home tab after an update counts the changed records only (counting all of them again
    grows with the knowledge base and would hold up the answers meanwhile). Only the
    counts of the index last asked about are kept.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._counts: dict[bytes, tuple[tuple[int, int] | None, ...]] = {}
        self._last: tuple[MatchIndex, dict[str, float]] | None = None

    def __call__(self, kb: MatchIndex) -> dict[str, float]:
        with self._lock:
            if self._last is not None and self._last[0] is kb:
                return self._last[1]
            locales = available_locales()
            packed = kb.packed_records()
            counts: dict[bytes, tuple[tuple[int, int] | None, ...]] = {}
            for record_id in packed:
                data = packed.get_packed(record_id)
                assert data is not None
                known = self._counts.get(data)
                if known is None:
                    record = packed[record_id]
                    known = tuple(_counted(record_coverage(record, locale)) for locale in locales)
                counts[data] = known
            self._counts = counts
            texts = [0] * len(locales)
            missing = [0] * len(locales)
            for known in counts.values():
                for n, found in enumerate(known):
                    if found is not None:
                        texts[n] += found[0]
                        missing[n] += found[1]
            shares = {
                locale: 100.0 if not texts[n] else 100.0 * (texts[n] - missing[n]) / texts[n]
                for n, locale in enumerate(locales)
            }
            self._last = (kb, shares)
            return shares


def _counted(found: tuple[int, tuple[str, ...]] | None) -> tuple[int, int] | None:
    return None if found is None else (found[0], len(found[1]))


translated = _Translated()


def recent(kb: MatchIndex, seen: list[home_repo.AnswerSeen]) -> list[RecentAnswer]:
    """Answers whose leading record is still in the knowledge base."""
    out = []
    for answer in seen:
        record = next((r for r in map(kb.record, answer.records) if r is not None), None)
        if record is not None:
            out.append(
                RecentAnswer(
                    answer.reply_id,
                    answer.channel,
                    answer.at,
                    record,
                    closest=answer.kind == "candidates",
                )
            )
    return out[:SHOWN_RECENT]


@task(JobKind.HOME, HomeJob)
def publish_home(
    job: HomeJob,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
) -> None:
    kb = loaded(index)
    slack_locale = slack.user_locale(job.user)
    maintainer = job.user in maintainers(settings, slack)
    owned = sorted(d for d, users in settings.domain_owners.items() if job.user in users)
    now = clock.now()
    with store.read() as session:
        locale = user_locale(
            session, settings, user=job.user, slack_locale=slack_locale, channel=None
        )
        chosen = slack_repo.chosen_locale(session, user_id=job.user)
        seen = home_repo.recent_answers(session, user_id=job.user, limit=SHOWN_RECENT * 3)
        stale = (
            collect(
                session,
                settings=settings,
                graph=graph.current(),
                now=now,
                domains=None if maintainer else owned,
            )
            if maintainer or owned
            else []
        )
        unknown = slack_repo.unknown_errors(session, limit=SHOWN_UNKNOWN) if maintainer else []
        unknown_total = home_repo.unknown_count(session) if maintainer else None
        alert_channels = channel_repo.alert_channels(session) if maintainer else []
    results = []
    if job.search:
        hits = [
            (kb.record(rid), score) for rid, score in kb.search(job.search, limit=SHOWN_RESULTS)
        ]
        results = [(record, score) for record, score in hits if record is not None]
    stats = KbStats(
        len(kb), translated(kb), stale=len(stale) if maintainer else None, unknown=unknown_total
    )
    view = HomeView(
        locale=locale,
        today=local_today(settings, now),
        chosen=chosen,
        search=job.search,
        results=results,
        recent=recent(kb, seen),
        stats=stats,
        maintainer=maintainer,
        unknown=unknown,
        stale=stale,
        stale_total=len(stale),
        alert_channels=alert_channels,
    )
    sent = slack.publish_home(user=job.user, view=render_home(view, now))
    if not sent.ok:
        log.info("Home tab not published: %s", sent.error)


@task(ActionId.HOME_SEARCH, ActionJob)
def search_home(
    click: ActionJob,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
) -> None:
    """Enter in the Home tab's search box: the tab again, with what was found."""
    words = (click.value or "").strip()[:SEARCH_CHARS] or None
    publish_home(
        HomeJob(user=click.user, search=words),
        store=store,
        slack=slack,
        settings=settings,
        index=index,
        graph=graph,
        clock=clock,
    )


@task(ActionId.HOME_LANG, ActionJob)
def choose_home_language(
    click: ActionJob,
    *,
    store: Store,
    slack: SlackGateway,
    settings: Settings,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
) -> None:
    """The Home tab's language select: stored like ``/errkb lang``, the tab again in it."""
    choice = (click.value or "").strip().lower()
    if choice in (*available_locales(), AUTO):
        with store.transaction() as session:
            slack_repo.choose_locale(
                session,
                user_id=click.user,
                locale=None if choice == AUTO else choice,
                at=clock.now(),
            )
    publish_home(
        HomeJob(user=click.user),
        store=store,
        slack=slack,
        settings=settings,
        index=index,
        graph=graph,
        clock=clock,
    )


__all__ = ["choose_home_language", "publish_home", "search_home"]
