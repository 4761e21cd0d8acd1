"""The job runner: each server's workers, doing the Slack work the database holds.

Slack is acknowledged only once its work is a row in ``slack_jobs``
(:mod:`bot.slack.intake`). Here a fetcher thread claims due jobs with a lease
and hands them to a pool of workers; a job enqueued by this server wakes it
at once, others (another replica's, a restart's, a retry's) are found by
polling. A job's outcome:

- done: the handler returned (a permanent Slack refusal is a result too);
- postponed: a transient failure (:data:`bot.errors.TRANSIENT`: the database
  or Slack unavailable) is tried again after a backoff of 1, 2, 4 … 30
  seconds, and at once when another job gets through to Slack again; a rate
  limit waits Slack's ``Retry-After`` and holds back that channel's other
  jobs meanwhile, without costing an attempt or a thread;
- expired: the answer would come too late (past the job's deadline);
- failed: anything else, once, reported to the user by ``on_failure``.

A server that dies leaves its claimed jobs to whoever claims them after the
lease; a clean stop finishes the jobs in flight and leaves the rest pending.
"""

from __future__ import annotations

import logging
import os
import random
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime, timedelta

from bot.errors import TRANSIENT, SlackRateLimited, SlackUnavailable
from bot.slack import scope
from bot.slack.jobs import TRACE
from bot.slack.metrics import Metrics
from bot.store import jobs_repo
from bot.store.db import Store
from bot.store.jobs_repo import Job

log = logging.getLogger(__name__)

Handler = Callable[[Job], None]
MAX_BACKOFF = 30.0
KEEP_FINISHED = timedelta(days=1)
HOUSEKEEPING_SECONDS = 60.0
STATS_SECONDS = 2.0


def backoff(attempts: int, *, jitter: float = 0.2, rng: Callable[[], float] = random.random) -> float:
    """Seconds before attempt ``attempts + 1``: 1, 2, 4 … capped at :data:`MAX_BACKOFF`."""
    base = min(MAX_BACKOFF, 2.0 ** max(0, attempts - 1))
    return base * (1 - jitter + 2 * jitter * rng())


def owner_name() -> str:
    return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"


class JobRunner:
    def __init__(
        self,
        *,
        store: Store,
        handlers: Mapping[str, Handler],
        metrics: Metrics,
        clock: Callable[[], datetime],
        workers: int,
        lease: timedelta,
        on_failure: Callable[[Job, Exception], None],
        authorize: Callable[[str | None], str | None] = lambda team: None,
        poll_seconds: float = 0.5,
    ) -> None:
        self.store, self.handlers, self.metrics, self.clock = store, handlers, metrics, clock
        self.workers, self.lease, self.poll_seconds = workers, lease, poll_seconds
        self.on_failure, self.authorize = on_failure, authorize
        self.owner = owner_name()
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="errkb-work")
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._busy = 0
        self._held: dict[str, float] = {}  # channel → monotonic time its rate limit ends
        self._thread: threading.Thread | None = None
        self._last_stats = self._last_housekeeping = 0.0
        self._warned = 0.0
        self._outage = False  # a Slack call failed since the last job that went through

    # -- control -----------------------------------------------------------------

    def notify(self) -> None:
        """A job was added here: look now rather than at the next poll."""
        self._wake.set()

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="errkb-jobs", daemon=True)
        self._thread.start()

    def stop(self, *, timeout: float = 30.0) -> None:
        """Claim nothing more; finish the jobs in flight (the rest stay pending)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)
        self._pool.shutdown(wait=True)

    def shutdown(self, wait: bool = True) -> None:
        """:meth:`stop`, under the name an HTTP server's graceful stop calls."""
        self.stop()

    @property
    def busy(self) -> int:
        with self._lock:
            return self._busy

    # -- the fetcher -------------------------------------------------------------

    def _held_channels(self) -> list[str]:
        now = time.monotonic()
        with self._lock:
            for channel in [c for c, until in self._held.items() if until <= now]:
                del self._held[channel]
            return list(self._held)

    def _claim(self, free: int) -> list[Job]:
        try:
            with self.store.transaction() as session:
                return jobs_repo.claim(session, owner=self.owner, now=self.clock(), lease=self.lease,
                                       limit=free, skip_channels=self._held_channels())  # fmt: skip
        except TRANSIENT as exc:
            if time.monotonic() - self._warned > 10:
                self._warned = time.monotonic()
                log.warning("cannot claim work: %s", exc)
            return []

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            with self._lock:
                free = self.workers - self._busy
            jobs = self._claim(free) if free > 0 else []
            for job in jobs:
                with self._lock:
                    self._busy += 1
                self._pool.submit(self._execute, job)
            self._housekeeping()
            if len(jobs) < free or free <= 0:
                self._wake.wait(self.poll_seconds)

    def _housekeeping(self) -> None:
        now = time.monotonic()
        try:
            if now - self._last_stats >= STATS_SECONDS:
                self._last_stats = now
                with self.store.transaction() as session:
                    found = jobs_repo.stats(session, now=self.clock())
                self.metrics.queue(found.pending, found.running, found.oldest_pending_seconds)
            if now - self._last_housekeeping >= HOUSEKEEPING_SECONDS:
                self._last_housekeeping = now
                with self.store.transaction() as session:
                    jobs_repo.prune(session, before=self.clock() - KEEP_FINISHED)
        except TRANSIENT:
            pass  # the claim loop already says the database is away

    # -- one job -----------------------------------------------------------------

    def _execute(self, job: Job) -> None:
        started = time.perf_counter()
        try:
            trace = job.payload.get(TRACE) or {}
            with scope.bound(request_id=trace.get("request_id"), event_id=trace.get("event_id"),
                             team_id=job.team_id, bot_token=self.authorize(job.team_id)):  # fmt: skip
                outcome = self._run(job)
                ms = round((time.perf_counter() - started) * 1000, 1)
                log.info("job %s %s", job.kind, outcome, extra={"job": job.key, "kind": job.kind, "ms": ms,
                                                                "attempt": job.attempts})  # fmt: skip
        finally:
            with self._lock:
                self._busy -= 1
            self._wake.set()

    def _run(self, job: Job) -> str:
        handler = self.handlers.get(job.kind)
        try:
            if handler is None:
                raise LookupError(f"no handler for job kind {job.kind!r}")
            handler(job)
        except SlackRateLimited as exc:
            return self._rate_limited(job, exc)
        except TRANSIENT as exc:
            return self._transient(job, exc)
        except Exception as exc:  # noqa: BLE001 - the one place a job's failure ends
            return self._failed(job, exc)
        if self._outage:  # Slack answers again: what waited for it need not wait out its backoff
            self._outage = False
            self._settle_many(jobs_repo.hurry, prefix=SlackUnavailable.__name__)
        return self._settle(jobs_repo.finish, job, now=self.clock(), outcome="done")

    def _settle_many(self, change: Callable[..., int], **values: object) -> None:
        try:
            with self.store.transaction() as session:
                count = change(session, now=self.clock(), **values)
            if count:
                log.info("%d postponed job(s) tried again now", count)
        except TRANSIENT as exc:
            log.warning("could not hurry postponed jobs: %s", exc)

    def _settle(self, change: Callable[..., bool], job: Job, *, outcome: str, **values: object) -> str:
        """Write the job's outcome; a database that fails now leaves the lease to run out."""
        try:
            with self.store.transaction() as session:
                if not change(session, job_id=job.id, owner=self.owner, **values):
                    return "lost its lease"
        except TRANSIENT as exc:
            log.warning("job %s: outcome %s not saved: %s", job.key, outcome, exc)
            return f"{outcome}, not saved"
        return outcome

    def _rate_limited(self, job: Job, exc: SlackRateLimited) -> str:
        if exc.channel or job.channel:
            with self._lock:
                self._held[exc.channel or job.channel or ""] = time.monotonic() + exc.retry_after
        self.metrics.job_retry(job.kind, "ratelimited")
        return self._later(job, exc.retry_after, str(exc), count_attempt=False)

    def _transient(self, job: Job, exc: Exception) -> str:
        self.metrics.job_retry(job.kind, type(exc).__name__)
        if isinstance(exc, SlackUnavailable):
            self._outage = True
        return self._later(job, backoff(job.attempts), f"{type(exc).__name__}: {exc}", count_attempt=True)

    def _later(self, job: Job, seconds: float, error: str, *, count_attempt: bool) -> str:
        now = self.clock()
        when = now + timedelta(seconds=seconds)
        if when > job.deadline:
            self.metrics.job_expired(job.kind)
            log.warning("job %s expired: %s", job.key, error, extra={"job": job.key, "kind": job.kind})
            return self._settle(jobs_repo.expire, job, now=now, error=error, outcome="expired")
        return self._settle(jobs_repo.postpone, job, run_after=when, error=error,
                            count_attempt=count_attempt, outcome=f"postponed {seconds:.1f} s")  # fmt: skip

    def _failed(self, job: Job, exc: Exception) -> str:
        try:
            self.on_failure(job, exc)
        except TRANSIENT as reporting:
            log.warning("could not tell the user about a failure: %s", reporting)
        return self._settle(jobs_repo.fail, job, now=self.clock(), error=f"{type(exc).__name__}: {exc}",
                            outcome="failed")  # fmt: skip

    # -- without threads (tests, one-shot tools) ----------------------------------

    def run_due(self) -> int:
        """Claim and run every due job on this thread; how many ran."""
        ran = 0
        while jobs := self._claim(self.workers):
            for job in jobs:
                with self._lock:
                    self._busy += 1
                self._execute(job)
                ran += 1
        return ran
