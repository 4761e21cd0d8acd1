"""Repository functions for the staleness digest. Keyword-only; they never commit.

Record state (deprecated, snoozed, last digested), usage (matches in Slack),
maintainer actions with their audit rows, and the per-period claims that make a
digest happen once however many processes run.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import Any

from sqlalchemy import func, insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from bot.digest.select import Candidate
from bot.errors import RecordNotFound
from bot.store import repository
from bot.store.models import DigestRunRow, MatchEventRow, RecordRow, RecordStateRow


def load_candidates(session: Session) -> list[Candidate]:
    """Every record as a digest candidate, with its deprecation and snooze state."""
    stmt = (
        select(
            RecordRow.id, RecordRow.domain, RecordRow.verification_tier, RecordRow.signature,
            RecordRow.last_confirmed, RecordStateRow.deprecated_at, RecordStateRow.snoozed_until,
        )
        .outerjoin(RecordStateRow, RecordStateRow.record_id == RecordRow.id)
        .order_by(RecordRow.id)
    )  # fmt: skip
    return [
        Candidate(
            record_id=rid,
            domain=domain,
            verification_tier=tier,
            signature=signature,
            last_confirmed=confirmed,
            deprecated=deprecated is not None,
            snoozed_until=snoozed,
        )
        for rid, domain, tier, signature, confirmed, deprecated, snoozed in session.execute(stmt)
    ]


def note_matches(session: Session, *, record_ids: Iterable[str], at: datetime) -> None:
    """Remember that these records answered a paste (usage for the digest ranking)."""
    rows = [{"record_id": rid, "at": at} for rid in dict.fromkeys(record_ids)]
    if rows:
        session.execute(insert(MatchEventRow), rows)


def match_counts(session: Session, *, since: datetime) -> dict[str, int]:
    stmt = (
        select(MatchEventRow.record_id, func.count())
        .where(MatchEventRow.at >= since)
        .group_by(MatchEventRow.record_id)
    )
    return {rid: int(count) for rid, count in session.execute(stmt)}


def _state(session: Session, record_id: str) -> RecordStateRow:
    if session.get(RecordRow, record_id) is None:
        raise RecordNotFound(record_id)
    state = session.get(RecordStateRow, record_id)
    if state is None:
        state = RecordStateRow(record_id=record_id)
        session.add(state)
    return state


def _state_dict(state: RecordStateRow) -> dict[str, Any]:
    return {
        "deprecated_reason": state.deprecated_reason,
        "deprecated": state.deprecated_at is not None,
        "snoozed_until": state.snoozed_until.isoformat() if state.snoozed_until else None,
    }


def confirm_record(
    session: Session, *, record_id: str, actor: str, today: date, now: datetime
) -> None:
    """ "Still valid": ``last_confirmed`` becomes today (audited); any snooze ends."""
    record = repository.get_record(session, record_id=record_id)
    if record is None:
        raise RecordNotFound(record_id)
    if record.last_confirmed != today:
        updated = record.model_copy(update={"last_confirmed": today})
        repository.import_records(
            session, records=[updated], on_conflict="upsert", actor=actor, now=now
        )
    state = session.get(RecordStateRow, record_id)
    if state is not None and state.snoozed_until is not None:
        state.snoozed_until = None


def snooze_record(
    session: Session, *, record_id: str, days: int, actor: str, today: date, now: datetime
) -> date:
    state = _state(session, record_id)
    before = _state_dict(state)
    state.snoozed_until = today + timedelta(days=days)
    repository.add_audit(session, actor=actor, record_id=record_id, action="snooze", at=now,
                         before=before, after=_state_dict(state))  # fmt: skip
    return state.snoozed_until


def deprecate_record(
    session: Session, *, record_id: str, reason: str, actor: str, now: datetime
) -> None:
    state = _state(session, record_id)
    before = _state_dict(state)
    state.deprecated_at, state.deprecated_by, state.deprecated_reason = now, actor, reason
    repository.add_audit(session, actor=actor, record_id=record_id, action="deprecate", at=now,
                         before=before, after=_state_dict(state))  # fmt: skip
    repository.bump_kb_version(session)


def mark_digested(session: Session, *, record_ids: Iterable[str], at: datetime) -> None:
    for record_id in dict.fromkeys(record_ids):
        if session.get(RecordRow, record_id) is not None:
            _state(session, record_id).last_digested_at = at


# -- claims ----------------------------------------------------------------------


def claim_run(
    session: Session, *, period: str, audience: str, owner: str, now: datetime, lease: timedelta
) -> bool:
    """Claim the digest for (period, audience); True for exactly one claimant.

    A claim that failed, or whose lease ran out because its process died, can be
    taken over; a finished one never is.
    """
    values = {
        "period": period, "audience": audience, "status": "claimed", "claimed_by": owner,
        "claimed_at": now, "lease_until": now + lease, "attempts": 1,
    }  # fmt: skip
    try:
        with session.begin_nested():
            session.execute(insert(DigestRunRow).values(values))
        return True
    except IntegrityError:
        pass
    taken = session.execute(
        update(DigestRunRow)
        .where(
            DigestRunRow.period == period,
            DigestRunRow.audience == audience,
            DigestRunRow.status != "done",
            (DigestRunRow.status == "failed") | (DigestRunRow.lease_until < now),
        )
        .values(
            status="claimed",
            claimed_by=owner,
            claimed_at=now,
            lease_until=now + lease,
            attempts=DigestRunRow.attempts + 1,
        )
    )
    return bool(taken.rowcount)  # type: ignore[attr-defined]


def _claimed(period: str, audience: str, owner: str) -> Any:
    """An update of the run ``owner`` claimed for this period and audience."""
    return update(DigestRunRow).where(
        DigestRunRow.period == period,
        DigestRunRow.audience == audience,
        DigestRunRow.claimed_by == owner,
    )


def finish_run(
    session: Session,
    *,
    period: str,
    audience: str,
    owner: str,
    now: datetime,
    channel: str,
    ts: str | None,
) -> None:
    session.execute(
        _claimed(period, audience, owner).values(
            status="done", done_at=now, channel=channel, message_ts=ts, last_error=None
        )
    )


def fail_run(session: Session, *, period: str, audience: str, owner: str, error: str) -> None:
    session.execute(
        _claimed(period, audience, owner).values(status="failed", last_error=error[:2000])
    )


def runs(session: Session, *, period: str | None = None) -> list[DigestRunRow]:
    stmt = select(DigestRunRow).order_by(DigestRunRow.period, DigestRunRow.audience)
    if period is not None:
        stmt = stmt.where(DigestRunRow.period == period)
    return list(session.scalars(stmt))


def deprecated_ids(session: Session) -> set[str]:
    """Records maintainers deprecated: kept in the store, no longer offered as answers."""
    return set(
        session.scalars(
            select(RecordStateRow.record_id).where(RecordStateRow.deprecated_at.is_not(None))
        )
    )


def record_domain(session: Session, *, record_id: str) -> str | None:
    """The domain a record has as stored (what rights are checked against); None if no such record."""
    return session.scalar(select(RecordRow.domain).where(RecordRow.id == record_id))
