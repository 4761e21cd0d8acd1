"""The job runner: each server's workers, doing the Slack work the database holds.

Slack is acknowledged only once its work is a row in ``slack_jobs``
(:mod:`bot.slack.queue.intake`). A job that comes in while a worker is free and
nothing older waits is written already claimed by this server and handed to
that worker at once (:meth:`JobRunner.reserve_worker`, the one fast path); any
other (one that had to wait, another replica's, a restart's, a retry's) is claimed with a lease by
a fetcher thread, woken when such a job is added here and polling otherwise.
The fetcher also writes the "done" of finished jobs, a batch at a time, in
the transaction it claims in: a paste costs the database two transactions
(its intake and its answer), not four. A job's outcome:

- done: the handler returned (a permanent Slack refusal is a result too);
- postponed: a transient failure (:data:`bot.errors.TRANSIENT`: the database
  or Slack unavailable) is tried again after a backoff of 1, 2, 4 … 30
  seconds, and at once when another job gets through to Slack again; a rate
  limit waits Slack's ``Retry-After`` and holds back that channel's other
  jobs meanwhile, without costing an attempt or a thread;
- expired: the answer would come too late (past the job's deadline);
- ended: the workspace uninstalled errkb (``authorize`` raised
  :class:`~bot.errors.SlackUninstalled`): written as done, nothing sent;
- failed: anything else, once, reported to the user by ``on_failure``.

``authorize`` gives the bot token for a job's workspace before its handler
runs (None: the gateway's own); it may raise a transient error (Slack
refuses the token for now: the job waits, nothing is sent with it) or
:class:`~bot.errors.SlackUninstalled`.

A server that dies leaves its claimed jobs to whoever claims them after the
lease (finished ones whose "done" it had not written yet included: an answer
in a thread is never posted twice, see :func:`bot.slack.usecases.answer_paste.deliver`); a
clean stop finishes the jobs in flight, writes their outcome and leaves the
rest pending.
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
from datetime import timedelta

from bot.clock import Clock
from bot.errors import (
    TRANSIENT,
    SlackRateLimited,
    SlackTokenRefused,
    SlackUnavailable,
    SlackUninstalled,
)
from bot.slack.adapter import scope
from bot.slack.queue.jobs import TRACE
from bot.slack.web.metrics import Metrics
from bot.store import jobs_repo
from bot.store.db import Store
from bot.store.jobs_repo import Job
from bot.throttle import LogThrottle

log = logging.getLogger(__name__)

Handler = Callable[[Job], None]
MAX_BACKOFF = 30.0
KEEP_FINISHED = timedelta(days=1)
HOUSEKEEPING_SECONDS = 60.0
STATS_SECONDS = 2.0


def backoff(
    attempts: int, *, jitter: float = 0.2, rng: Callable[[], float] = random.random
) -> float:
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
        clock: Clock,
        workers: int,
        lease: timedelta,
        on_failure: Callable[[Job, Exception], None],
        authorize: Callable[[str | None], str | None] = lambda team: None,
        poll_seconds: float = 0.5,
    ) -> None:
        self.store = store
        self.handlers = handlers
        self.metrics = metrics
        self.clock = clock
        self.workers = workers
        self.lease = lease
        self.poll_seconds = poll_seconds
        self.on_failure = on_failure
        self.authorize = authorize
        self.owner = owner_name()
        self._pool = ThreadPoolExecutor(workers, thread_name_prefix="errkb-work")
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._busy = 0
        self._backlog = True  # due jobs may wait in the database: new ones queue behind them
        self._done: list[Job] = []  # finished here; their "done" not written yet
        self._limited_until: dict[str, float] = {}  # channel → monotonic time its rate limit ends
        self._thread: threading.Thread | None = None
        self._last_poll = self._last_stats = self._last_housekeeping = float("-inf")
        self._warnings = LogThrottle(10.0)
        self._outage = False  # a Slack call failed since the last job that went through

    # -- control -----------------------------------------------------------------

    def notify(self) -> None:
        """A pending job was added here: claim now rather than at the next poll."""
        with self._lock:
            self._backlog = True
        self._wake.set()

    def reserve_worker(self, channel: str | None) -> str | None:
        """A worker for a job about to be added, if one is free, nothing older waits and
        the channel is not rate limited: the owner to add the job claimed by; then
        :meth:`run_claimed_job` once it is added, or :meth:`release_worker` if it is not."""
        with self._lock:
            if self._stop.is_set() or self._backlog or self._busy >= self.workers:
                return None
            if channel is not None and self._limited_until.get(channel, 0.0) > time.monotonic():
                return None
            self._busy += 1
            return self.owner

    def run_claimed_job(self, job: Job) -> None:
        """Run ``job``, added claimed by this runner, on the worker :meth:`reserve_worker` kept."""
        try:
            self._pool.submit(self._execute, job)
        except RuntimeError:  # stopping: the job waits for its lease to run out
            self.release_worker()
            log.warning("job %s not started: stopping", job.key, extra={"job": job.key})

    def release_worker(self) -> None:
        """Give back a worker :meth:`reserve_worker` kept for a job that was not added."""
        with self._lock:
            self._busy -= 1

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="errkb-jobs", daemon=True)
        self._thread.start()

    def stop(self, *, timeout: float = 30.0) -> None:
        """Claim nothing more; finish the jobs in flight and write their outcome (the rest
        stay pending)."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=timeout)
        self._pool.shutdown(wait=True)
        self._finish_and_claim(0)

    def shutdown(self, wait: bool = True) -> None:
        """:meth:`stop`, under the name an HTTP server's graceful stop calls."""
        self.stop()

    @property
    def busy(self) -> int:
        with self._lock:
            return self._busy

    # -- the fetcher -------------------------------------------------------------

    def _rate_limited_channels(self) -> list[str]:
        now = time.monotonic()
        with self._lock:
            for channel in [c for c, until in self._limited_until.items() if until <= now]:
                del self._limited_until[channel]
            return list(self._limited_until)

    def _finish_and_claim(self, free: int) -> list[Job] | None:
        """One transaction: write the "done" of the jobs finished here, claim up to ``free``
        (None: the database could not be reached)."""
        with self._lock:
            done = self._done
            self._done = []
        if not done and free <= 0:
            return []
        try:
            with self.store.transaction() as session:
                now = self.clock.now()
                still_held = jobs_repo.finish_jobs(session, jobs=done, owner=self.owner, now=now)
                jobs = jobs_repo.claim_due_jobs(
                    session,
                    owner=self.owner,
                    now=now,
                    lease=self.lease,
                    limit=free,
                    skip_channels=self._rate_limited_channels(),
                )
        except TRANSIENT as exc:
            with self._lock:
                self._done[:0] = done  # written with the next transaction that gets through
            if self._warnings.due():
                log.warning("cannot claim work: %s", exc)
            return None
        if still_held < len(done):
            log.info(
                "%d finished job(s) had lost their lease to another server", len(done) - still_held
            )
        return jobs

    def _loop(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            with self._lock:
                free = self.workers - self._busy
                backlog = self._backlog
            polling = time.monotonic() - self._last_poll >= self.poll_seconds
            claiming = free > 0 and (backlog or polling)
            if (
                claiming or polling
            ):  # a poll writes the "done" of finished jobs even when none can be claimed
                if polling:
                    self._last_poll = time.monotonic()
                found = self._finish_and_claim(free if claiming else 0)
                jobs = found or []
                with self._lock:
                    if claiming and found is not None:
                        self._backlog = len(found) >= free  # fewer than asked for: none is left
                    self._busy += len(jobs)
                for job in jobs:
                    self._pool.submit(self._execute, job)
            self._housekeeping()
            self._wake.wait(max(0.0, self._last_poll + self.poll_seconds - time.monotonic()))

    def _housekeeping(self) -> None:
        now = time.monotonic()
        try:
            if now - self._last_stats >= STATS_SECONDS:
                self._last_stats = now
                with self.store.read() as session:
                    found = jobs_repo.stats(session, now=self.clock.now())
                self.metrics.queue(found.pending, found.oldest_pending_seconds)
            if now - self._last_housekeeping >= HOUSEKEEPING_SECONDS:
                self._last_housekeeping = now
                with self.store.transaction() as session:
                    jobs_repo.prune(session, before=self.clock.now() - KEEP_FINISHED)
        except TRANSIENT:
            pass  # the claim loop already says the database is away

    # -- one job -----------------------------------------------------------------

    def _execute(self, job: Job) -> None:
        started = time.perf_counter()
        try:
            trace = job.payload.get(TRACE) or {}
            with scope.bound(
                request_id=trace.get("request_id"),
                event_id=trace.get("event_id"),
                team_id=job.team_id,
            ):
                outcome = self._run(job)
                ms = round((time.perf_counter() - started) * 1000, 1)
                log.info(
                    "job %s %s",
                    job.kind,
                    outcome,
                    extra={"job": job.key, "kind": job.kind, "ms": ms, "attempt": job.attempts},
                )
        finally:
            with self._lock:
                self._busy -= 1
                backlog = self._backlog
            if backlog:  # a worker is free for what waits
                self._wake.set()

    def _run(self, job: Job) -> str:
        handler = self.handlers.get(job.kind)
        try:
            if handler is None:
                raise LookupError(f"no handler for job kind {job.kind!r}")
            with scope.bound(bot_token=self.authorize(job.team_id)):
                handler(job)
        except SlackUninstalled as exc:
            log.info("job %s ended: %s", job.key, exc, extra={"job": job.key, "kind": job.kind})
            with self._lock:
                self._done.append(job)
            return "ended"
        except SlackRateLimited as exc:
            return self._rate_limited(job, exc)
        except TRANSIENT as exc:
            return self._transient(job, exc)
        except Exception as exc:  # noqa: BLE001 - the one place a job's failure ends
            return self._failed(job, exc)
        if self._outage:  # Slack answers again: what waited for it need not wait out its backoff
            self._outage = False
            self._change_postponed(jobs_repo.hurry, prefix=SlackUnavailable.__name__)
        with self._lock:
            self._done.append(job)  # written by the fetcher's next transaction
        return "done"

    def hurry_refused(self) -> None:
        """Slack takes the bot token again: the jobs that waited for it are due now."""
        self._change_postponed(jobs_repo.hurry, prefix=SlackTokenRefused.__name__)
        self.notify()

    def _change_postponed(self, change: Callable[..., int], **values: object) -> None:
        try:
            with self.store.transaction() as session:
                count = change(session, now=self.clock.now(), **values)
            if count:
                log.info("%d postponed job(s) tried again now", count)
        except TRANSIENT as exc:
            log.warning("could not hurry postponed jobs: %s", exc)

    def _save_outcome(
        self, change: Callable[..., bool], job: Job, *, outcome: str, **values: object
    ) -> str:
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
                self._limited_until[exc.channel or job.channel or ""] = (
                    time.monotonic() + exc.retry_after
                )
        self.metrics.retry(job.kind, "ratelimited")
        return self._later(job, exc.retry_after, str(exc), count_attempt=False)

    def _transient(self, job: Job, exc: Exception) -> str:
        self.metrics.retry(job.kind, type(exc).__name__)
        if isinstance(exc, SlackUnavailable):
            self._outage = True
        return self._later(
            job, backoff(job.attempts), f"{type(exc).__name__}: {exc}", count_attempt=True
        )

    def _later(self, job: Job, seconds: float, error: str, *, count_attempt: bool) -> str:
        now = self.clock.now()
        when = now + timedelta(seconds=seconds)
        if when > job.deadline:
            self.metrics.expire(job.kind)
            log.warning(
                "job %s expired: %s", job.key, error, extra={"job": job.key, "kind": job.kind}
            )
            return self._save_outcome(
                jobs_repo.expire, job, now=now, error=error, outcome="expired"
            )
        return self._save_outcome(
            jobs_repo.postpone,
            job,
            run_after=when,
            error=error,
            count_attempt=count_attempt,
            outcome=f"postponed {seconds:.1f} s",
        )

    def _failed(self, job: Job, exc: Exception) -> str:
        try:
            self.on_failure(job, exc)
        except TRANSIENT as reporting:
            log.warning("could not tell the user about a failure: %s", reporting)
        return self._save_outcome(
            jobs_repo.fail,
            job,
            now=self.clock.now(),
            error=f"{type(exc).__name__}: {exc}",
            outcome="failed",
        )

    # -- without threads (tests, one-shot tools) ----------------------------------

    def run_due(self) -> int:
        """Claim and run every due job on this thread, and write their outcome; how many ran."""
        ran = 0
        while jobs := self._finish_and_claim(self.workers) or []:
            for job in jobs:
                with self._lock:
                    self._busy += 1
                self._execute(job)
                ran += 1
        self._finish_and_claim(0)
        return ran
