"""The Slack job queue's statements on a real database: the bound, de-duplication, claims and leases."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from bot.store import jobs_repo
from bot.store.jobs_repo import DONE, PENDING, RUNNING

NOW = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)
LEASE = timedelta(seconds=60)


def add(
    session: Session, key: str, *, channel: str | None = "C1", at: datetime = NOW, **kwargs: Any
) -> jobs_repo.Enqueued:
    return jobs_repo.enqueue_job(
        session,
        key=key,
        kind="paste",
        payload={"text": key},
        team_id="T1",
        channel=channel,
        now=at,
        deadline=at + timedelta(minutes=10),
        **kwargs,
    )


def status(session: Session, key: str) -> tuple[str, str | None, int]:
    row = jobs_repo.get(session, key=key)
    assert row is not None
    session.refresh(row)
    return row.status, row.lease_owner, row.attempts


def test_a_redelivery_adds_nothing_and_a_full_queue_refuses(session: Session) -> None:
    first = add(session, "msg:1", limit=2)
    assert (
        first.job is not None and first.job.payload == {"text": "msg:1"} and first.job.attempts == 0
    )
    assert add(session, "msg:1", limit=2) == jobs_repo.Enqueued(
        None, full=False
    )  # the same event again
    assert add(session, "msg:2", limit=2).job is not None
    assert add(session, "msg:3", limit=2) == jobs_repo.Enqueued(None, full=True)  # two wait already
    assert add(session, "msg:2", limit=2) == jobs_repo.Enqueued(
        None, full=False
    )  # a redelivery is no refusal
    assert jobs_repo.waiting(session) == 2


def test_a_job_added_claimed_is_its_owners_until_the_lease_ends(session: Session) -> None:
    added = add(session, "msg:1", owner="A", lease=LEASE).job
    assert added is not None and added.owner == "A" and added.attempts == 1
    assert status(session, "msg:1") == (RUNNING, "A", 1)
    assert (
        jobs_repo.claim_due_jobs(session, owner="B", now=NOW + LEASE / 2, lease=LEASE, limit=5)
        == []
    )
    taken = jobs_repo.claim_due_jobs(session, owner="B", now=NOW + LEASE * 2, lease=LEASE, limit=5)
    assert [(j.key, j.owner, j.attempts) for j in taken] == [("msg:1", "B", 2)]
    assert jobs_repo.finish_jobs(session, jobs=[added], owner="A", now=NOW) == 0  # A lost it to B
    assert jobs_repo.finish_jobs(session, jobs=[added], owner="B", now=NOW) == 1
    assert status(session, "msg:1") == (DONE, None, 2)


def test_a_late_done_does_not_end_a_new_job_given_the_old_ones_id(session: Session) -> None:
    """SQLite gives the id of a deleted last row to the next one: the "done" of a job
    finished before its row went, written late, leaves the new job running."""
    from sqlalchemy import delete

    old = add(session, "msg:old", owner="A", lease=LEASE).job
    assert old is not None
    session.execute(delete(jobs_repo.TABLE))
    new = add(session, "msg:new", owner="A", lease=LEASE).job
    assert new is not None
    if new.id == old.id:  # SQLite; PostgreSQL's sequence never gives an id twice
        assert jobs_repo.finish_jobs(session, jobs=[old], owner="A", now=NOW) == 0
    assert status(session, "msg:new") == (RUNNING, "A", 1)
    assert jobs_repo.finish_jobs(session, jobs=[new], owner="A", now=NOW) == 1


def test_claims_take_due_jobs_oldest_first_skipping_held_channels(session: Session) -> None:
    for n, channel in enumerate(["C1", "C2", None, "C1"]):
        add(session, f"msg:{n}", channel=channel)
    add(session, "later", at=NOW + timedelta(minutes=5))
    first = jobs_repo.claim_due_jobs(
        session, owner="A", now=NOW, lease=LEASE, limit=2, skip_channels=["C1"]
    )
    assert [j.key for j in first] == ["msg:1", "msg:2"]
    rest = jobs_repo.claim_due_jobs(session, owner="A", now=NOW, lease=LEASE, limit=10)
    assert [j.key for j in rest] == ["msg:0", "msg:3"]  # "later" is not due yet
    assert jobs_repo.finish_jobs(session, jobs=first + rest, owner="A", now=NOW) == 4
    assert status(session, "later") == (PENDING, None, 0)


def test_a_stage_is_noted_only_by_the_jobs_owner(session: Session) -> None:
    job = add(session, "msg:1", owner="A", lease=LEASE).job
    assert job is not None
    assert not jobs_repo.mark_stage(session, job_id=job.id, owner="B", stage="posting")
    assert jobs_repo.mark_stage(session, job_id=job.id, owner="A", stage="posting")
    retried = jobs_repo.claim_due_jobs(
        session, owner="B", now=NOW + LEASE * 2, lease=LEASE, limit=1
    )
    assert [(j.stage, j.attempts) for j in retried] == [("posting", 2)]


def keyed(session: Session, owner: str, at: datetime) -> jobs_repo.Job | None:
    return jobs_repo.claim_keyed_job(
        session,
        key="digest:2026-12-01T09:00:00Z:channel:CD",
        kind=jobs_repo.DIGEST,
        payload={"period": "2026-12-01T09:00:00Z", "audience": "channel:CD"},
        owner=owner,
        now=at,
        lease=LEASE,
        deadline=at + timedelta(days=7),
    )


def test_a_keyed_job_has_one_claimant_under_the_lease_every_job_has(session: Session) -> None:
    """The digest's claim: one replica at a time, a dead one's taken over after the lease, a
    failed try claimed again, a done one never; the runners' claim never takes it."""
    first = keyed(session, "A", NOW)
    assert first is not None and first.attempts == 1
    assert keyed(session, "B", NOW + LEASE / 2) is None  # A holds it
    assert (
        jobs_repo.claim_due_jobs(session, owner="R", now=NOW + LEASE * 2, lease=LEASE, limit=5)
        == []
    )
    taken = keyed(session, "B", NOW + LEASE * 2)  # A died: its lease ran out
    assert taken is not None and (taken.owner, taken.attempts) == ("B", 2)
    jobs_repo.fail(session, job_id=taken.id, owner="B", now=NOW + LEASE * 2, error="Slack away")
    again = keyed(session, "C", NOW + LEASE * 2)  # a failed post is tried again on the next tick
    assert again is not None and again.attempts == 3
    assert jobs_repo.finish_jobs(session, jobs=[again], owner="C", now=NOW + LEASE * 2) == 1
    assert keyed(session, "D", NOW + LEASE * 10) is None  # posted: never again
    assert jobs_repo.prune(session, before=NOW + timedelta(days=30)) == 0  # the record stays
