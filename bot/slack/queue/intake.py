"""Slack work is written to the database before Slack is acknowledged.

:meth:`Intake.submit` is what every acknowledging listener calls. The job's
key makes a redelivery (to any replica) a no-op. When the database cannot
take the job, or too many jobs are waiting already, Slack gets a 503 instead
of a 200 errkb could not honour: Slack delivers an event again later (a slash
command or a click shows the person an error they can retry), and nothing
acknowledged is lost. The bound, the de-duplication and the insert are one
statement; when a worker is free the job is written already claimed by it
and handed over without another transaction (:meth:`Workers.reserve_worker`).
"""

from __future__ import annotations

import logging
from datetime import timedelta
from typing import Protocol

from slack_bolt import BoltResponse

from bot.clock import Clock
from bot.errors import StorageUnavailable
from bot.slack.adapter import scope
from bot.slack.queue.jobs import TRACE, Payload
from bot.slack.web.metrics import Metrics
from bot.store import jobs_repo
from bot.store.db import Store
from bot.store.jobs_repo import Job
from bot.throttle import LogThrottle

log = logging.getLogger(__name__)

#: The context key the middleware puts the intake under: Bolt gives it to every listener
#: with a parameter of that name.
CONTEXT_KEY = "intake"
#: How long an acknowledgement waits for the database: Slack gives up on it after 3 seconds.
WAIT_SECONDS = 1.5
BUSY = BoltResponse(status=503, body="", headers={"Retry-After": "60"})


class Workers(Protocol):
    """Who does the jobs (:class:`bot.slack.queue.runner.JobRunner`)."""

    lease: timedelta

    def reserve_worker(
        self, channel: str | None
    ) -> str | None: ...  # a free worker's owner name, or None
    def run_claimed_job(self, job: Job) -> None: ...  # run a job added claimed by that owner
    def release_worker(self) -> None: ...  # the reserved worker is not needed after all
    def notify(self) -> None: ...  # a pending job was added


class Intake:
    def __init__(
        self,
        *,
        store: Store,
        clock: Clock,
        metrics: Metrics,
        limit: int,
        deadline: timedelta,
        workers: Workers,
    ) -> None:
        self.store = store
        self.clock = clock
        self.metrics = metrics
        self.limit = limit
        self.deadline = deadline
        self.workers = workers
        self._warnings = LogThrottle(5.0)

    def submit(
        self, kind: str, payload: Payload, *, key: str, team_id: str | None, channel: str | None
    ) -> BoltResponse | None:
        """Write the job; None when Slack may be acknowledged, else the response to give."""
        now = self.clock.now()
        team_id = (
            scope.current().enterprise_id or team_id
        )  # an org-wide install answers for its enterprise
        owner = self.workers.reserve_worker(channel)
        try:
            with self.store.write_rows(wait=WAIT_SECONDS) as rows:
                added = jobs_repo.enqueue_job(
                    rows,
                    key=key,
                    kind=kind,
                    payload=_with_trace(payload),
                    team_id=team_id,
                    channel=channel,
                    now=now,
                    deadline=now + self.deadline,
                    limit=self.limit,
                    owner=owner,
                    lease=self.workers.lease,
                )
        except BaseException as exc:
            if owner is not None:
                self.workers.release_worker()
            if not isinstance(exc, StorageUnavailable):
                raise
            self.metrics.decline("storage_unavailable")
            self._warn(f"cannot take Slack work: {exc}")
            return BUSY
        if added.job is None:
            if owner is not None:
                self.workers.release_worker()
            if added.full:
                self.metrics.decline("queue_full")
                self._warn(f"{self.limit} jobs are waiting: Slack is asked to deliver again later")
                return BUSY
            self.metrics.decline("duplicate")
        elif owner is not None:
            self.workers.run_claimed_job(added.job)
        else:
            self.workers.notify()
        return None

    def _warn(self, message: str) -> None:
        """One line every few seconds at most, however many requests are refused."""
        if self._warnings.due():
            log.warning(message)


def _with_trace(payload: Payload) -> dict[str, object]:
    """The payload as JSON, with the ids of the request that brought it (for the job's log
    lines)."""
    return {**payload.model_dump(mode="json"), TRACE: scope.current().log_fields()}
