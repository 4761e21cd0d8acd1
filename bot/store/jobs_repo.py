"""Durable Slack work: the ``slack_jobs`` table. Keyword-only arguments; nothing commits.

A job's life::

    enqueue_job ──▶ pending ──claim_due_jobs──▶ running ──finish_jobs──▶ done
       │           ▲                  │
       │           └──── postpone ────┤──fail──▶ failed   (a permanent error)
       └── (claimed at once) ─────────┘──expire─▶ expired (past its deadline)

A running job whose lease ran out (its process died) is claimable again,
exactly like a pending one. Every change of a claimed job names the owner
that claimed it, so a worker that lost its lease to another changes nothing.

The scheduled digest is one more job with the same lease: one row per period
and audience, keyed ``digest:{period}:{audience}`` and claimed by that key
(:func:`claim_keyed_job`) by whichever replica's schedule gets there first,
never by the runners' :func:`claim_due_jobs`. Its finished rows are kept: they are the
record of which digests were posted.

Every step a paste takes is one statement, built once (Core, not the ORM:
these run several times for every paste): :func:`enqueue_job` checks the queue
bound, de-duplicates and inserts in one ``INSERT … SELECT … ON CONFLICT``;
:func:`claim_due_jobs` is one ``UPDATE … RETURNING``; :func:`finish_jobs` ends a batch of
jobs at once.
"""

from __future__ import annotations

import functools
from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Connection,
    Executable,
    Row,
    and_,
    bindparam,
    delete,
    func,
    literal_column,
    or_,
    select,
    update,
)
from sqlalchemy.orm import Session

from bot.store import utc
from bot.store.dialect import dialect_name, insert
from bot.store.models import JobRow, table_of

if TYPE_CHECKING:
    from bot.store.loading import Rows

PENDING = "pending"
RUNNING = "running"
DONE = "done"
FAILED = "failed"
EXPIRED = "expired"
#: The kind of the digest's jobs: claimed by key by the digest's schedule, not by a runner.
DIGEST = "digest"
ERROR_CHARS = 500
TABLE = table_of(JobRow)
_C = TABLE.c


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


@dataclass(frozen=True)
class Enqueued:
    """What :func:`enqueue_job` did: the new job (claimed for its ``owner`` when one was given),
    or why none was added."""

    job: Job | None
    full: bool = False  # refused: ``limit`` jobs were waiting (else: the key was taken)


JOB_COLUMNS = (
    _C.id,
    _C.key,
    _C.kind,
    _C.team_id,
    _C.channel,
    _C.payload,
    _C.attempts,
    _C.deadline,
    _C.created_at,
    _C.stage,
    _C.result,
    _C.lease_owner,
)


def _job(row: Row[Any]) -> Job:
    return Job(
        id=row.id,
        key=row.key,
        kind=row.kind,
        team_id=row.team_id,
        channel=row.channel,
        payload=dict(row.payload),
        attempts=row.attempts,
        deadline=utc(row.deadline),
        created_at=utc(row.created_at),
        stage=row.stage,
        result=dict(row.result) if row.result else None,
        owner=row.lease_owner or "",
    )


def _p(name: str, column: str) -> Any:
    """A named parameter typed like ``column`` (its name must not be a column's: SQLAlchemy
    reserves those for ``values()``)."""
    return bindparam(name, type_=_C[column].type)


# -- statements, built once per dialect ------------------------------------------------

INSERTED = (
    "key",
    "kind",
    "team_id",
    "channel",
    "payload",
    "status",
    "attempts",
    "run_after",
    "deadline",
    "created_at",
    "lease_owner",
    "lease_until",
)
_UNFINISHED = _C.status.in_((PENDING, RUNNING))


@functools.cache
def _enqueue_statement(dialect: str) -> Executable:
    """Insert the job unless ``p_limit`` jobs are waiting or its key is taken: its id, or
    nothing."""
    waiting = select(func.count()).select_from(TABLE).where(_UNFINISHED).scalar_subquery()
    values = select(*[_p(f"p_{name}", name) for name in INSERTED]).where(
        waiting < bindparam("p_limit")
    )
    statement = insert(dialect, TABLE).from_select(list(INSERTED), values)
    return statement.on_conflict_do_nothing(index_elements=[_C.key]).returning(_C.id)


def _claimable(now: Any) -> Any:
    return or_(
        and_(_C.status == PENDING, _C.run_after <= now),
        and_(_C.status == RUNNING, _C.lease_until < now),
    )


@functools.cache
def _claim_statement(dialect: str, skipping: bool) -> Executable:
    """Claim up to ``p_limit`` due jobs, oldest first, for ``p_owner`` until ``p_until``."""
    now = _p("p_now", "run_after")
    due = (
        select(_C.id)
        .where(_claimable(now), _C.kind != DIGEST)
        .order_by(_C.id)
        .limit(bindparam("p_limit"))
    )
    if skipping:
        due = due.where(
            or_(_C.channel.is_(None), _C.channel.not_in(bindparam("p_skip", expanding=True)))
        )
    if dialect == "postgresql":  # rows another replica is claiming are skipped, not waited for
        due = due.with_for_update(skip_locked=True)
    return (
        update(TABLE)
        .where(_C.id.in_(due.scalar_subquery()), _claimable(now))
        .values(
            status=RUNNING,
            lease_owner=_p("p_owner", "lease_owner"),
            lease_until=_p("p_until", "lease_until"),
            attempts=_C.attempts + 1,
        )
        .returning(*JOB_COLUMNS)
    )


def _mine(which: Any, owner: Any) -> Any:
    return and_(which, _C.status == RUNNING, _C.lease_owner == owner)


_FINISH = (
    update(TABLE)
    .where(
        _mine(
            and_(
                _C.id.in_(bindparam("p_ids", expanding=True)),
                _C.key.in_(bindparam("p_keys", expanding=True)),
            ),
            _p("p_owner", "lease_owner"),
        )
    )
    .values(status=DONE, finished_at=_p("p_now", "finished_at"), lease_owner=None, lease_until=None)
)
_MARK_STAGE = (
    update(TABLE)
    .where(_mine(_C.id == bindparam("p_id"), _p("p_owner", "lease_owner")))
    .values(stage=_p("p_stage", "stage"), result=_p("p_result", "result"))
)


def _core(session: Session | Connection) -> Connection:
    """The unit's connection, in its transaction: a Core statement run on it skips the
    ORM's execution path (its autoflush and ORM result handling), which these statements,
    touching no mapped object, never need."""
    return session if isinstance(session, Connection) else session.connection()


# -- the steps ---------------------------------------------------------------------------


def enqueue_job(
    session: Session | Connection,
    *,
    key: str,
    kind: str,
    payload: dict[str, Any],
    team_id: str | None,
    channel: str | None,
    now: datetime,
    deadline: datetime,
    limit: int | None = None,
    owner: str | None = None,
    lease: timedelta | None = None,
) -> Enqueued:
    """Add a job, unless its key is already taken (a redelivery: nothing changes then) or
    ``limit`` jobs are waiting. With an ``owner`` it is added claimed by that owner for
    ``lease`` (its first attempt starts now), else pending."""
    claimed = owner is not None
    values: dict[str, Any] = {
        "key": key,
        "kind": kind,
        "team_id": team_id,
        "channel": channel,
        "payload": payload,
        "status": RUNNING if claimed else PENDING,
        "attempts": 1 if claimed else 0,
        "run_after": now,
        "deadline": deadline,
        "created_at": now,
        "lease_owner": owner,
        "lease_until": now + (lease or timedelta()) if claimed else None,
    }
    params = {f"p_{name}": value for name, value in values.items()}
    params["p_limit"] = limit if limit is not None else 2**31 - 1
    found = _core(session).execute(_enqueue_statement(dialect_name(session)), params).scalar()
    if found is not None:
        job = Job(
            id=found,
            key=key,
            kind=kind,
            team_id=team_id,
            channel=channel,
            payload=payload,
            attempts=values["attempts"],
            deadline=deadline,
            created_at=now,
            stage=None,
            result=None,
            owner=owner or "",
        )
        return Enqueued(job)
    taken = session.scalar(select(literal_column("1")).select_from(TABLE).where(_C.key == key))
    return Enqueued(None, full=taken is None)


def claim_keyed_job(
    session: Session,
    *,
    key: str,
    kind: str,
    payload: dict[str, Any],
    owner: str,
    now: datetime,
    lease: timedelta,
    deadline: datetime,
) -> Job | None:
    """Claim the one job known by ``key`` for ``owner`` until ``now + lease``, adding it when
    there is none yet: the job for exactly one claimant, None for every other (the job is
    done, or another holds its lease). A failed one is claimed again: its next try."""
    added = enqueue_job(
        session,
        key=key,
        kind=kind,
        payload=payload,
        team_id=None,
        channel=None,
        now=now,
        deadline=deadline,
        owner=owner,
        lease=lease,
    )
    if added.job is not None:
        return added.job
    row = session.execute(
        update(TABLE)
        .where(_C.key == key, or_(_claimable(now), _C.status == FAILED))
        .values(
            status=RUNNING, lease_owner=owner, lease_until=now + lease, attempts=_C.attempts + 1
        )
        .returning(*JOB_COLUMNS)
    ).first()
    return _job(row) if row is not None else None


def claim_due_jobs(
    session: Session,
    *,
    owner: str,
    now: datetime,
    lease: timedelta,
    limit: int,
    skip_channels: Collection[str] = (),
) -> list[Job]:
    """Take up to ``limit`` due jobs, oldest first, for ``owner`` until ``now + lease``.

    Jobs of ``skip_channels`` (rate limited right now) are left for later. On
    PostgreSQL rows another replica is claiming are skipped, not waited for.
    """
    if limit <= 0:
        return []
    params: dict[str, Any] = {
        "p_now": now,
        "p_limit": limit,
        "p_owner": owner,
        "p_until": now + lease,
    }
    if skip_channels:
        params["p_skip"] = list(skip_channels)
    rows = _core(session).execute(
        _claim_statement(dialect_name(session), bool(skip_channels)), params
    )
    return sorted((_job(row) for row in rows), key=lambda job: job.id)


def _change(session: Session, job_id: int, owner: str, **values: Any) -> bool:
    changed = session.execute(update(TABLE).where(_mine(_C.id == job_id, owner)).values(**values))
    return bool(changed.rowcount)  # type: ignore[attr-defined]


def mark_stage(
    session: Rows, *, job_id: int, owner: str, stage: str, result: dict[str, Any] | None = None
) -> bool:
    """Note how far the current attempt got; False when the lease was lost."""
    changed = _core(session).execute(
        _MARK_STAGE, {"p_id": job_id, "p_owner": owner, "p_stage": stage, "p_result": result}
    )
    return bool(changed.rowcount)


def finish_jobs(session: Session, *, jobs: Collection[Job], owner: str, now: datetime) -> int:
    """Mark done the ``jobs`` that ``owner`` still holds; how many it held. A job is
    known by its id and its key: on SQLite an id whose row was deleted can be given to
    a new job, which a late "done" of the old one must not end."""
    if not jobs:
        return 0
    changed = _core(session).execute(
        _FINISH,
        {
            "p_ids": [j.id for j in jobs],
            "p_keys": [j.key for j in jobs],
            "p_owner": owner,
            "p_now": now,
        },
    )
    return int(changed.rowcount)


def postpone(
    session: Session,
    *,
    job_id: int,
    owner: str,
    run_after: datetime,
    error: str,
    count_attempt: bool = True,
) -> bool:
    """Back to pending until ``run_after`` (a transient failure, or a rate limit that
    does not count as an attempt)."""
    values: dict[str, Any] = {
        "status": PENDING,
        "run_after": run_after,
        "lease_owner": None,
        "lease_until": None,
        "last_error": error[:ERROR_CHARS],
    }
    if not count_attempt:
        values["attempts"] = _C.attempts - 1
    return _change(session, job_id, owner, **values)


def fail(session: Session, *, job_id: int, owner: str, now: datetime, error: str) -> bool:
    return _change(
        session,
        job_id,
        owner,
        status=FAILED,
        finished_at=now,
        lease_owner=None,
        lease_until=None,
        last_error=error[:ERROR_CHARS],
    )


def expire(session: Session, *, job_id: int, owner: str, now: datetime, error: str) -> bool:
    return _change(
        session,
        job_id,
        owner,
        status=EXPIRED,
        finished_at=now,
        lease_owner=None,
        lease_until=None,
        last_error=error[:ERROR_CHARS],
    )


def hurry(session: Session, *, now: datetime, prefix: str) -> int:
    """Make due now the pending jobs waiting out a backoff after an error starting with
    ``prefix``."""
    changed = session.execute(
        update(TABLE)
        .where(_C.status == PENDING, _C.run_after > now, _C.last_error.startswith(prefix))
        .values(run_after=now)
    )
    return int(changed.rowcount)  # type: ignore[attr-defined]


def waiting(session: Session) -> int:
    """Jobs not finished: what the bounded queue counts."""
    found = session.scalar(select(func.count()).select_from(TABLE).where(_UNFINISHED))
    return int(found or 0)


def stats(session: Session, *, now: datetime) -> QueueStats:
    rows = session.execute(
        select(_C.status, func.count(), func.min(_C.created_at))
        .where(_UNFINISHED)
        .group_by(_C.status)
    ).all()
    counts = {status: int(n) for status, n, _ in rows}
    oldest = min((utc(first) for _, _, first in rows if first is not None), default=None)
    age = max(0.0, (now - oldest).total_seconds()) if oldest else 0.0
    return QueueStats(counts.get(PENDING, 0), counts.get(RUNNING, 0), age)


def get(session: Session, *, key: str) -> JobRow | None:
    return session.scalar(select(JobRow).where(JobRow.key == key))


def prune(session: Session, *, before: datetime) -> int:
    """Forget finished jobs older than ``before`` (their keys no longer guard anything:
    Slack stops redelivering an event after minutes); the digest's stay, the record of
    what was posted."""
    gone = session.execute(
        delete(TABLE).where(
            _C.status.in_((DONE, FAILED, EXPIRED)), _C.created_at < before, _C.kind != DIGEST
        )
    )
    return int(gone.rowcount)  # type: ignore[attr-defined]
