"""Durable Slack work: the ``slack_jobs`` table. Keyword-only arguments; nothing commits.

A job's life::

    enqueue ──▶ pending ──claim──▶ running ──finish──▶ done
                   ▲                  │
                   └──── postpone ────┤──fail──▶ failed   (a permanent error)
                                      └──expire─▶ expired (past its deadline)

A running job whose lease ran out (its process died) is claimable again,
exactly like a pending one. Every change of a claimed job names the owner
that claimed it, so a worker that lost its lease to another changes nothing.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import and_, delete, func, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from bot.store.models import JobRow

PENDING, RUNNING, DONE, FAILED, EXPIRED = "pending", "running", "done", "failed", "expired"
ERROR_CHARS = 500


@dataclass(frozen=True)
class Job:
    id: int
    key: str
    kind: str
    team_id: str | None
    channel: str | None
    payload: dict[str, Any]
    attempts: int  # including the current one
    deadline: datetime
    created_at: datetime
    stage: str | None  # how far the previous attempt got
    result: dict[str, Any] | None
    owner: str  # who holds it now


@dataclass(frozen=True)
class QueueStats:
    pending: int  # due or waiting for a retry
    running: int
    oldest_pending_seconds: float


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _job(row: JobRow) -> Job:
    return Job(owner=row.lease_owner or "", id=row.id, key=row.key, kind=row.kind, team_id=row.team_id, channel=row.channel,
               payload=dict(row.payload), attempts=row.attempts, deadline=_aware(row.deadline),
               created_at=_aware(row.created_at), stage=row.stage,
               result=dict(row.result) if row.result else None)  # fmt: skip


def enqueue(session: Session, *, key: str, kind: str, payload: dict[str, Any], team_id: str | None,
            channel: str | None, now: datetime, deadline: datetime) -> bool:  # fmt: skip
    """Add a job; False when its key is already taken (a redelivery): nothing changes then."""
    dialect = session.get_bind().dialect.name
    build = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}[dialect]
    values = {"key": key, "kind": kind, "team_id": team_id, "channel": channel, "payload": payload,
              "status": PENDING, "attempts": 0, "run_after": now, "deadline": deadline, "created_at": now}  # fmt: skip
    statement = build(JobRow).values(**values).on_conflict_do_nothing().returning(JobRow.id)  # type: ignore[attr-defined]
    return session.execute(statement).first() is not None


def _claimable(now: datetime) -> Any:
    return or_(
        and_(JobRow.status == PENDING, JobRow.run_after <= now),
        and_(JobRow.status == RUNNING, JobRow.lease_until < now),
    )


def claim(session: Session, *, owner: str, now: datetime, lease: timedelta, limit: int,
          skip_channels: Collection[str] = ()) -> list[Job]:  # fmt: skip
    """Take up to ``limit`` due jobs, oldest first, for ``owner`` until ``now + lease``.

    Jobs of ``skip_channels`` (rate limited right now) are left for later. On
    PostgreSQL rows another replica is claiming are skipped, not waited for.
    """
    if limit <= 0:
        return []
    query = select(JobRow.id).where(_claimable(now)).order_by(JobRow.id).limit(limit)
    if skip_channels:
        query = query.where(or_(JobRow.channel.is_(None), JobRow.channel.not_in(list(skip_channels))))
    if session.get_bind().dialect.name == "postgresql":
        query = query.with_for_update(skip_locked=True)
    ids = list(session.scalars(query))
    if not ids:
        return []
    session.execute(
        update(JobRow)
        .where(JobRow.id.in_(ids), _claimable(now))
        .values(status=RUNNING, lease_owner=owner, lease_until=now + lease, attempts=JobRow.attempts + 1)
    )  # fmt: skip
    rows = session.scalars(
        select(JobRow).where(JobRow.id.in_(ids), JobRow.lease_owner == owner).order_by(JobRow.id)
    )
    return [_job(row) for row in rows]


def _mine(job_id: int, owner: str) -> Any:
    return and_(JobRow.id == job_id, JobRow.status == RUNNING, JobRow.lease_owner == owner)


def _change(session: Session, job_id: int, owner: str, **values: Any) -> bool:
    changed = session.execute(update(JobRow).where(_mine(job_id, owner)).values(**values))
    return bool(changed.rowcount)  # type: ignore[attr-defined]


def mark_stage(session: Session, *, job_id: int, owner: str, stage: str,
               result: dict[str, Any] | None = None) -> bool:  # fmt: skip
    """Note how far the current attempt got; False when the lease was lost."""
    return _change(session, job_id, owner, stage=stage, result=result)


def finish(session: Session, *, job_id: int, owner: str, now: datetime,
           result: dict[str, Any] | None = None) -> bool:  # fmt: skip
    values: dict[str, Any] = {"status": DONE, "finished_at": now, "lease_owner": None, "lease_until": None}
    if result is not None:
        values["result"] = result
    return _change(session, job_id, owner, **values)


def postpone(session: Session, *, job_id: int, owner: str, run_after: datetime, error: str,
             count_attempt: bool = True) -> bool:  # fmt: skip
    """Back to pending until ``run_after`` (a transient failure, or a rate limit that
    does not count as an attempt)."""
    values: dict[str, Any] = {"status": PENDING, "run_after": run_after, "lease_owner": None,
                              "lease_until": None, "last_error": error[:ERROR_CHARS]}  # fmt: skip
    if not count_attempt:
        values["attempts"] = JobRow.attempts - 1
    return _change(session, job_id, owner, **values)


def fail(session: Session, *, job_id: int, owner: str, now: datetime, error: str) -> bool:
    return _change(session, job_id, owner, status=FAILED, finished_at=now, lease_owner=None,
                   lease_until=None, last_error=error[:ERROR_CHARS])  # fmt: skip


def expire(session: Session, *, job_id: int, owner: str, now: datetime, error: str) -> bool:
    return _change(session, job_id, owner, status=EXPIRED, finished_at=now, lease_owner=None,
                   lease_until=None, last_error=error[:ERROR_CHARS])  # fmt: skip


def hurry(session: Session, *, now: datetime, prefix: str) -> int:
    """Make due now the pending jobs waiting out a backoff after an error starting with ``prefix``."""
    changed = session.execute(
        update(JobRow)
        .where(JobRow.status == PENDING, JobRow.run_after > now, JobRow.last_error.startswith(prefix))
        .values(run_after=now)
    )
    return int(changed.rowcount)  # type: ignore[attr-defined]


def waiting(session: Session) -> int:
    """Jobs not finished: what the bounded queue counts."""
    found = session.scalar(select(func.count()).where(JobRow.status.in_((PENDING, RUNNING))))
    return int(found or 0)


def stats(session: Session, *, now: datetime) -> QueueStats:
    rows = session.execute(
        select(JobRow.status, func.count(), func.min(JobRow.created_at))
        .where(JobRow.status.in_((PENDING, RUNNING))).group_by(JobRow.status)
    ).all()  # fmt: skip
    counts = {status: int(n) for status, n, _ in rows}
    oldest = min((_aware(first) for _, _, first in rows if first is not None), default=None)
    age = max(0.0, (now - oldest).total_seconds()) if oldest else 0.0
    return QueueStats(counts.get(PENDING, 0), counts.get(RUNNING, 0), age)


def get(session: Session, *, key: str) -> JobRow | None:
    return session.scalar(select(JobRow).where(JobRow.key == key))


def prune(session: Session, *, before: datetime) -> int:
    """Forget finished jobs older than ``before`` (their keys no longer guard anything:
    Slack stops redelivering an event after minutes)."""
    gone = session.execute(
        delete(JobRow).where(JobRow.status.in_((DONE, FAILED, EXPIRED)), JobRow.created_at < before)
    )
    return int(gone.rowcount)  # type: ignore[attr-defined]
