"""Repository functions for the staleness digest. Keyword-only; they never commit.

Record state (deprecated, snoozed, last digested), usage (matches in Slack),
maintainer actions with their audit rows, and the digests posted (one keyed job
per period and audience in ``slack_jobs``, which makes a digest happen once however
many processes run).

Confirming and snoozing are evidence; deprecating (and restoring) a record
changes what matching offers, so only those move the knowledge version
(:mod:`bot.store.changes`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from sqlalchemy import func, select, update
from sqlalchemy.orm import Session

from bot.digest.select import Candidate
from bot.errors import RecordNotFound
from bot.store import changes, dialect, jobs_repo, repository
from bot.store.loading import chunks
from bot.store.models import (
    MatchEventRow,
    RecordRow,
    RecordStateRow,
    TranslationRow,
    table_of,
)

if TYPE_CHECKING:
    from bot.store.loading import Rows


def load_candidates(session: Session) -> list[Candidate]:
    """Every record as a digest candidate, with its deprecation and snooze state."""
    stmt = (
        select(
            RecordRow.id,
            RecordRow.domain,
            RecordRow.verification_tier,
            RecordRow.signature,
            RecordRow.last_confirmed,
            RecordStateRow.deprecated_at,
            RecordStateRow.snoozed_until,
        )
        .outerjoin(RecordStateRow, RecordStateRow.record_id == RecordRow.id)
        .order_by(RecordRow.id)
    )
    translated: dict[str, dict[str, str]] = {}
    for rid, locale, value in session.execute(
        select(TranslationRow.record_id, TranslationRow.locale, TranslationRow.value).where(
            TranslationRow.field == "signature"
        )
    ):
        if isinstance(value, str):
            translated.setdefault(rid, {})[locale] = value
    return [
        Candidate(
            record_id=rid,
            domain=domain,
            verification_tier=tier,
            signature=signature,
            last_confirmed=confirmed,
            deprecated=deprecated is not None,
            snoozed_until=snoozed,
            signatures=translated.get(rid, {}),
        )
        for rid, domain, tier, signature, confirmed, deprecated, snoozed in session.execute(stmt)
    ]


def note_matches(session: Rows, *, record_ids: Iterable[str], at: datetime) -> None:
    """Remember that these records answered a paste (usage for the digest ranking)."""
    rows = [{"record_id": rid, "at": at} for rid in dict.fromkeys(record_ids)]
    if rows:
        session.execute(table_of(MatchEventRow).insert(), rows)  # Core: no ORM bulk setup


def match_counts(session: Session, *, since: datetime) -> dict[str, int]:
    stmt = (
        select(MatchEventRow.record_id, func.count())
        .where(MatchEventRow.at >= since)
        .group_by(MatchEventRow.record_id)
    )
    return {rid: int(count) for rid, count in session.execute(stmt)}


def _require(session: Session, record_id: str) -> None:
    if session.scalar(select(RecordRow.id).where(RecordRow.id == record_id)) is None:
        raise RecordNotFound(record_id)


def _set_state(session: Session, record_id: str, **values: Any) -> dict[str, Any]:
    """Upsert the record's state row with ``values``; returns the state before, for the audit."""
    table = table_of(RecordStateRow)
    before = session.execute(
        select(table.c.deprecated_at, table.c.deprecated_reason, table.c.snoozed_until)
        .where(table.c.record_id == record_id)
        .with_for_update()
    ).first()
    statement = dialect.insert(session, table).values(record_id=record_id, **values)
    session.execute(
        statement.on_conflict_do_update(index_elements=[table.c.record_id], set_=values)
    )
    if before is None:
        return _state_dict(None, None, None)
    return _state_dict(before.deprecated_at, before.deprecated_reason, before.snoozed_until)


def _state_dict(
    deprecated_at: Any, reason: str | None, snoozed_until: date | None
) -> dict[str, Any]:
    return {
        "deprecated_reason": reason,
        "deprecated": deprecated_at is not None,
        "snoozed_until": snoozed_until.isoformat() if snoozed_until else None,
    }


def confirm_record(
    session: Session, *, record_id: str, actor: str, today: date, now: datetime
) -> None:
    """ "Still valid": ``last_confirmed`` becomes today (audited); any snooze ends.

    Evidence, not knowledge: nothing matching reads changes, so the knowledge
    version stays and no process rebuilds anything.
    """
    noted = repository.note_evidence(session, record_id=record_id, now=now, confirmed=today)
    if noted is None:
        raise RecordNotFound(record_id)
    old, new = noted
    if old.last_confirmed != new.last_confirmed:
        before = old.last_confirmed.isoformat() if old.last_confirmed else None
        repository.add_audit(
            session,
            actor=actor,
            record_id=record_id,
            action="confirm",
            at=now,
            before={"last_confirmed": before},
            after={"last_confirmed": today.isoformat()},
        )
    session.execute(
        update(RecordStateRow)
        .where(RecordStateRow.record_id == record_id, RecordStateRow.snoozed_until.is_not(None))
        .values(snoozed_until=None)
    )


def snooze_record(
    session: Session, *, record_id: str, days: int, actor: str, today: date, now: datetime
) -> date:
    _require(session, record_id)
    until = today + timedelta(days=days)
    before = _set_state(session, record_id, snoozed_until=until)
    after = {**before, "snoozed_until": until.isoformat()}
    repository.add_audit(
        session,
        actor=actor,
        record_id=record_id,
        action="snooze",
        at=now,
        before=before,
        after=after,
    )
    return until


def deprecate_record(
    session: Session, *, record_id: str, reason: str, actor: str, now: datetime
) -> None:
    """No longer offered as an answer: removed from what matching reads (a knowledge change)."""
    changes.lock_knowledge(session)
    _require(session, record_id)
    before = _set_state(
        session, record_id, deprecated_at=now, deprecated_by=actor, deprecated_reason=reason
    )
    after = {**before, "deprecated": True, "deprecated_reason": reason}
    repository.add_audit(
        session,
        actor=actor,
        record_id=record_id,
        action="deprecate",
        at=now,
        before=before,
        after=after,
    )
    changes.note_changes(session, removed=[record_id], at=now)


def restore_record(session: Session, *, record_id: str, actor: str, now: datetime) -> bool:
    """Undo a deprecation: offered as an answer again (a knowledge change); False when
    the record was not deprecated."""
    changes.lock_knowledge(session)
    _require(session, record_id)
    table = table_of(RecordStateRow)
    restored = session.execute(
        update(table)
        .where(table.c.record_id == record_id, table.c.deprecated_at.is_not(None))
        .values(deprecated_at=None, deprecated_by=None, deprecated_reason=None)
        .returning(table.c.record_id)
    ).first()
    if restored is None:
        return False
    repository.add_audit(
        session,
        actor=actor,
        record_id=record_id,
        action="restore",
        at=now,
        before={"deprecated": True},
        after={"deprecated": False},
    )
    changes.note_changes(session, upserted=[record_id], at=now)
    return True


def mark_digested(session: Session, *, record_ids: Iterable[str], at: datetime) -> None:
    """Remember when these records were last put in a digest (the reminder throttle)."""
    ids = list(dict.fromkeys(record_ids))
    if not ids:
        return
    known = [
        rid
        for part in chunks(ids)
        for rid in session.scalars(select(RecordRow.id).where(RecordRow.id.in_(part)))
    ]
    if not known:
        return
    table = table_of(RecordStateRow)
    statement = dialect.insert(session, table)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[table.c.record_id],
            set_={"last_digested_at": statement.excluded.last_digested_at},
        ),
        [{"record_id": rid, "last_digested_at": at} for rid in known],
    )


# -- runs ------------------------------------------------------------------------


@dataclass(frozen=True)
class DigestRun:
    """One digest for one period and audience, as its keyed job holds it
    (:func:`bot.store.jobs_repo.claim_keyed_job`)."""

    period: str
    audience: str
    status: str  # claimed (a replica is posting it), done, failed (tried again on the next tick)
    attempts: int
    by: str | None  # who posted it
    channel: str | None
    message_ts: str | None
    last_error: str | None


def run_key(period: str, audience: str) -> str:
    return f"{jobs_repo.DIGEST}:{period}:{audience}"


def runs(session: Session, *, period: str | None = None) -> list[DigestRun]:
    table = jobs_repo.TABLE
    rows = session.execute(
        select(
            table.c.payload, table.c.status, table.c.attempts, table.c.result, table.c.last_error
        ).where(table.c.kind == jobs_repo.DIGEST)
    ).all()
    found = []
    for payload, status, attempts, result, last_error in rows:
        posted = dict(result or {})
        found.append(
            DigestRun(
                period=payload["period"],
                audience=payload["audience"],
                status="claimed" if status == jobs_repo.RUNNING else status,
                attempts=attempts,
                by=posted.get("by"),
                channel=posted.get("channel"),
                message_ts=posted.get("ts"),
                last_error=last_error,
            )
        )
    wanted = [r for r in found if period is None or r.period == period]
    return sorted(wanted, key=lambda r: (r.period, r.audience))


def deprecated_ids(session: Session) -> set[str]:
    """Records maintainers deprecated: kept in the store, no longer offered as answers."""
    return set(
        session.scalars(
            select(RecordStateRow.record_id).where(RecordStateRow.deprecated_at.is_not(None))
        )
    )


def record_domain(session: Session, *, record_id: str) -> str | None:
    """The domain a record has as stored (what rights are checked against); None if no such
    record."""
    return session.scalar(select(RecordRow.domain).where(RecordRow.id == record_id))


def domains(session: Session) -> set[str]:
    """Every domain the knowledge base has records of."""
    return set(session.scalars(select(RecordRow.domain).distinct()))
