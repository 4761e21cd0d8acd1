"""The digest at the edges: gathering its inputs, posting it once per period, scheduling.

Every replica runs the same scheduler. The cron job and a short retry tick
both call :meth:`DigestSender.run_due`, which names the period by its cron fire
time and claims (period, audience) in the database before posting, as the
keyed job ``digest:{period}:{audience}`` in ``slack_jobs``: one claimant per
period, a missed period sent once on the next start, a failed
post retried on the next tick and only marked done once Slack has it.
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Protocol
from zoneinfo import ZoneInfo

from apscheduler.schedulers.background import BackgroundScheduler
from sqlalchemy.orm import Session

from bot.clock import Clock
from bot.digest.schedule import latest_fire, make_trigger, next_fire, period_key
from bot.digest.select import StaleItem, StalePolicy, importance_of, select_stale
from bot.errors import ErrkbError, SlackUnavailable, UnknownDomain
from bot.i18n import negotiate_locale
from bot.render.digest import render_digest
from bot.settings import Settings
from bot.store import corrections_repo, digest_repo, jobs_repo, slack_repo
from bot.store.db import Store
from graph.build import KnowledgeGraph

log = logging.getLogger(__name__)

USAGE_WINDOW = timedelta(days=30)
#: A digest due this long before errkb started still counts as on time.
GRACE = timedelta(hours=1)
#: A digest job's deadline when no next period supersedes it (the last one, a manual one).
KEEP_UNSCHEDULED = timedelta(days=1)


def local_today(settings: Settings, now: datetime) -> date:
    return now.astimezone(ZoneInfo(settings.timezone)).date()


def policy_of(settings: Settings) -> StalePolicy:
    return StalePolicy(
        settings.stale_after_days,
        settings.stale_after_days_by_domain,
        settings.stale_after_days_by_tier,
    )


def collect(
    session: Session,
    *,
    settings: Settings,
    graph: KnowledgeGraph | None,
    now: datetime,
    domains: Sequence[str] | None = None,
) -> list[StaleItem]:
    """Every stale record (optionally of some domains), ranked; :class:`UnknownDomain` for a
    domain no record has (rather than "nothing is stale")."""
    if domains:
        known = digest_repo.domains(session)
        unknown = [d for d in domains if d not in known]
        if unknown:
            raise UnknownDomain(unknown, known)
    candidates = digest_repo.load_candidates(session)
    matches = digest_repo.match_counts(session, since=now - USAGE_WINDOW)
    centrality = (
        {rid: (c.in_degree, c.pagerank) for rid, c in graph.centralities().items()} if graph else {}
    )
    weights = importance_of(
        [c.record_id for c in candidates], matches=matches, centrality=centrality
    )
    return select_stale(
        candidates,
        importance=weights,
        policy=policy_of(settings),
        today=local_today(settings, now),
        domains=domains,
    )


@dataclass(frozen=True)
class Audience:
    """Who a digest goes to: the digest channel, or one domain owner by DM."""

    key: str
    channel: str
    domains: tuple[str, ...] | None = None
    user: str | None = None


def audiences(settings: Settings) -> list[Audience]:
    found = []
    if settings.digest_channel:
        found.append(Audience(f"channel:{settings.digest_channel}", settings.digest_channel))
    owned: dict[str, list[str]] = {}
    for domain, users in sorted(settings.domain_owners.items()):
        for user in users:
            owned.setdefault(user, []).append(domain)
    for user, domains in sorted(owned.items()):
        found.append(Audience(f"owner:{user}", user, tuple(domains), user))
    return found


class Poster(Protocol):
    """What the sender needs of Slack (the gateway has it)."""

    def post_message(
        self, *, channel: str, text: str, blocks: Sequence[dict[str, object]]
    ) -> object: ...
    def user_locale(self, user_id: str) -> str | None: ...


class DigestSender:
    """Posts digests once per period and audience, whichever replica gets there first."""

    def __init__(
        self,
        *,
        settings: Settings,
        store: Store,
        gateway: Poster,
        graph: Callable[[], KnowledgeGraph | None],
        clock: Clock,
    ) -> None:
        self.settings = settings
        self.store = store
        self.gateway = gateway
        self.graph = graph
        self.clock = clock
        self.trigger = make_trigger(settings.digest_cron, settings.timezone)
        self.owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        self.started = clock.now()
        self._lock = threading.Lock()

    def run_due(self) -> list[str]:
        """Send the digest of the latest due period to every audience still owed it.

        A period that began more than :data:`GRACE` before this process started is
        a *missed* digest: it is sent only when it is recent (errkb posted this
        audience a digest for an earlier period, and the missed one is within one
        period of now), never on a first start for a period long past: that
        audience waits for the next one.
        """
        now = self.clock.now()
        fire = latest_fire(self.trigger, now)
        if fire is None:
            return []
        with self._lock:
            on_time = fire >= self.started - GRACE
            owed = [a for a in audiences(self.settings) if on_time or self._missed(a, fire, now)]
            until = next_fire(self.trigger, fire)
            period = period_key(fire)
            return [a.key for a in owed if self.send(a, period, now, until=until)]

    def _missed(self, audience: Audience, fire: datetime, now: datetime) -> bool:
        following = next_fire(self.trigger, fire)
        recent = following is None or now - fire <= following - fire
        if not recent:
            return False
        with self.store.read() as session:
            earlier = [
                r
                for r in digest_repo.runs(session)
                if r.audience == audience.key and r.period < period_key(fire)
            ]
        return bool(earlier)

    def send(
        self, audience: Audience, period: str, now: datetime, *, until: datetime | None = None
    ) -> bool:
        """Claim, build, post and mark done; False when another replica has it or Slack failed.

        The claim is the period's keyed job (``digest:{period}:{audience}``), with the
        lease every job has: a replica that dies mid-post loses it after
        ``ERRKB_JOB_LEASE_SECONDS``, and another posts the digest."""
        lease = timedelta(seconds=self.settings.job_lease_seconds)
        with self.store.transaction() as session:
            job = jobs_repo.claim_keyed_job(
                session,
                key=digest_repo.run_key(period, audience.key),
                kind=jobs_repo.DIGEST,
                payload={"period": period, "audience": audience.key},
                owner=self.owner,
                now=now,
                lease=lease,
                deadline=until or now + KEEP_UNSCHEDULED,
            )
        if job is None:
            return False
        try:
            ts, shown = self._post(audience, now)
        except (ErrkbError, OSError) as exc:
            log.warning("digest for %s not sent: %s", audience.key, exc, extra={"period": period})
            with self.store.transaction() as session:
                jobs_repo.fail(
                    session, job_id=job.id, owner=self.owner, now=self.clock.now(), error=str(exc)
                )
            return False
        posted = {"by": self.owner, "channel": audience.channel, "ts": ts}
        with self.store.transaction() as session:
            jobs_repo.mark_stage(
                session, job_id=job.id, owner=self.owner, stage="posted", result=posted
            )
            jobs_repo.finish_jobs(session, jobs=[job], owner=self.owner, now=self.clock.now())
            digest_repo.mark_digested(session, record_ids=shown, at=now)
        log.info(
            "digest sent", extra={"period": period, "audience": audience.key, "records": len(shown)}
        )
        return True

    def _locale(self, audience: Audience) -> str:
        if audience.user is None:
            return negotiate_locale(
                None, None, self.settings.channel_locales.get(audience.channel), ""
            )
        with self.store.read() as session:
            chosen = slack_repo.chosen_locale(session, user_id=audience.user)
        return negotiate_locale(
            chosen, None if chosen else self.gateway.user_locale(audience.user), None, ""
        )

    def _post(self, audience: Audience, now: datetime) -> tuple[str | None, list[str]]:
        locale = self._locale(audience)
        with self.store.read() as session:
            items = collect(
                session,
                settings=self.settings,
                graph=self.graph(),
                now=now,
                domains=audience.domains,
            )
            unknown = [(u.count, u.example) for u in slack_repo.unknown_errors(session, limit=5)]
            # what people corrected since the last digest's period: for the maintainers' channel
            since = now - USAGE_WINDOW
            wrong = (
                corrections_repo.wrong_counts(session, since=since) if audience.user is None else []
            )
            taught = corrections_repo.recent(session, since=since) if audience.user is None else []
        msg = render_digest(
            locale,
            items,
            shown=self.settings.digest_size,
            unknown=unknown,
            today=local_today(self.settings, now),
            owner_domains=audience.domains,
            wrong=wrong,
            taught=taught,
        )
        sent = self.gateway.post_message(
            channel=audience.channel, text=msg["text"], blocks=msg["blocks"]
        )
        if not getattr(sent, "ok", False):
            raise SlackUnavailable(
                f"digest post to {audience.channel} failed: {getattr(sent, 'error', '?')}"
            )
        return getattr(sent, "ts", None), [
            item.record_id for item in items[: self.settings.digest_size]
        ]


def start_scheduler(sender: DigestSender, settings: Settings) -> BackgroundScheduler | None:
    """The cron job plus a retry tick; None when no digest audience is configured."""
    if not audiences(settings):
        log.info("no digest channel or domain owners: digest scheduler not started")
        return None
    scheduler = BackgroundScheduler(timezone=ZoneInfo(settings.timezone))
    scheduler.add_job(
        _safely(sender),
        sender.trigger,
        id="digest",
        coalesce=True,
        max_instances=1,
        misfire_grace_time=None,
    )
    # the retry tick also runs at once, so a digest missed while errkb was down goes out now
    scheduler.add_job(
        _safely(sender),
        "interval",
        seconds=settings.digest_retry_seconds,
        id="digest-retry",
        coalesce=True,
        max_instances=1,
        next_run_time=sender.clock.now(),
    )
    scheduler.start()
    return scheduler


def _safely(sender: DigestSender) -> Callable[[], None]:
    def run() -> None:
        try:
            sender.run_due()
        except ErrkbError as exc:  # the database is down: the next tick tries again
            log.warning("digest run failed: %s", exc)

    return run
