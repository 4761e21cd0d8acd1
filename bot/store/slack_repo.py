"""Repository functions for the Slack bot's tables. Keyword-only arguments; nothing commits.

- :func:`cast_vote`: one verdict per (user, record, workaround, thread),
  changeable; keeps ``workarounds.fixed_count``/``failed_count`` in step, and
  a new "fixed it" is fresh evidence (:func:`record_evidence`, audited).
- unknown errors by normalised template; user language choices; replies.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import delete, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session

from bot.store.models import (
    RecordRow,
    SlackReplyRow,
    SlackUserRow,
    UnknownErrorRow,
    VoteRow,
    WorkaroundRow,
)
from bot.store.repository import add_audit, bump_kb_version

VERDICTS = ("fixed", "failed")
KEEP_PERMALINKS = 5
SAMPLE_CHARS = 2_000


def _aware(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _insert_ignoring_conflicts(session: Session, table: Any, values: dict[str, Any]) -> bool:
    """``INSERT … ON CONFLICT DO NOTHING``; True when the row went in."""
    dialect = session.get_bind().dialect.name
    build = {"postgresql": postgresql.insert, "sqlite": sqlite.insert}[dialect]
    key = next(iter(table.primary_key.columns))
    statement = build(table).values(**values).on_conflict_do_nothing().returning(key)  # type: ignore[attr-defined]
    return session.execute(statement).first() is not None


# -- users -----------------------------------------------------------------------


def chosen_locale(session: Session, *, user_id: str) -> str | None:
    return session.scalar(select(SlackUserRow.locale).where(SlackUserRow.user_id == user_id))


def choose_locale(session: Session, *, user_id: str, locale: str | None, at: datetime) -> None:
    """Store the user's language; ``None`` goes back to automatic."""
    session.execute(delete(SlackUserRow).where(SlackUserRow.user_id == user_id))
    if locale is not None:
        session.add(SlackUserRow(user_id=user_id, locale=locale, updated_at=at))
    session.flush()


# -- replies ---------------------------------------------------------------------


@dataclass(frozen=True)
class Reply:
    id: int
    kind: str
    locale: str
    user_id: str
    channel: str
    thread_ts: str | None
    args: dict[str, Any]

    @property
    def thread(self) -> str:
        """The conversation a vote belongs to (a private reply is its own)."""
        return f"{self.channel}:{self.thread_ts or f'reply-{self.id}'}"


def add_reply(
    session: Session,
    *,
    kind: str,
    locale: str,
    user_id: str,
    channel: str,
    thread_ts: str | None,
    args: dict[str, Any],
    at: datetime,
) -> int:
    row = SlackReplyRow(
        kind=kind, locale=locale, user_id=user_id, channel=channel, thread_ts=thread_ts,
        args=args, created_at=at,
    )  # fmt: skip
    session.add(row)
    session.flush()
    return row.id


def get_reply(session: Session, *, reply_id: int) -> Reply | None:
    row = session.get(SlackReplyRow, reply_id)
    if row is None:
        return None
    return Reply(
        row.id, row.kind, row.locale, row.user_id, row.channel, row.thread_ts, dict(row.args)
    )


# -- votes -----------------------------------------------------------------------


def workaround_counts(
    session: Session, *, record_ids: Iterable[str]
) -> dict[tuple[str, int], tuple[int, int]]:
    """``(record id, position) → (fixed, failed)`` for workarounds anyone voted on."""
    ids = sorted(set(record_ids))
    if not ids:
        return {}
    stmt = select(
        WorkaroundRow.record_id,
        WorkaroundRow.position,
        WorkaroundRow.fixed_count,
        WorkaroundRow.failed_count,
    ).where(WorkaroundRow.record_id.in_(ids))
    return {
        (rid, pos): (fixed, failed)
        for rid, pos, fixed, failed in session.execute(stmt)
        if fixed or failed
    }


@dataclass(frozen=True)
class VoteOutcome:
    previous: str | None  # the user's earlier verdict here, if any
    changed: bool


def _count(session: Session, *, record_id: str, position: int, verdict: str, delta: int) -> None:
    column = WorkaroundRow.fixed_count if verdict == "fixed" else WorkaroundRow.failed_count
    session.execute(
        update(WorkaroundRow)
        .where(WorkaroundRow.record_id == record_id, WorkaroundRow.position == position)
        .values({column.key: column + delta})
    )


def cast_vote(
    session: Session,
    *,
    user_id: str,
    record_id: str,
    position: int,
    thread: str,
    verdict: str,
    at: datetime,
) -> VoteOutcome:
    """Record or change a verdict and move the workaround's counters with it."""
    if verdict not in VERDICTS:
        raise ValueError(f"verdict must be one of {VERDICTS}, got {verdict!r}")
    key = (VoteRow.user_id == user_id, VoteRow.record_id == record_id,
           VoteRow.position == position, VoteRow.thread == thread)  # fmt: skip
    inserted = _insert_ignoring_conflicts(
        session,
        VoteRow.__table__,
        {"user_id": user_id, "record_id": record_id, "position": position, "thread": thread,
         "verdict": verdict, "created_at": at, "updated_at": at},
    )  # fmt: skip
    if inserted:
        _count(session, record_id=record_id, position=position, verdict=verdict, delta=1)
        return VoteOutcome(previous=None, changed=True)
    previous = session.scalar(select(VoteRow.verdict).where(*key).with_for_update())
    if previous == verdict:
        return VoteOutcome(previous=previous, changed=False)
    session.execute(update(VoteRow).where(*key).values(verdict=verdict, updated_at=at))
    if previous is not None:
        _count(session, record_id=record_id, position=position, verdict=previous, delta=-1)
    _count(session, record_id=record_id, position=position, verdict=verdict, delta=1)
    return VoteOutcome(previous=previous, changed=True)


def record_evidence(
    session: Session, *, record_id: str, actor: str, today: date, at: datetime
) -> bool:
    """Fresh evidence: one more ``evidence_count`` and ``last_confirmed = today``, audited."""
    row = session.execute(
        select(RecordRow.evidence_count, RecordRow.last_confirmed).where(RecordRow.id == record_id)
    ).first()
    if row is None:
        return False
    before = {"evidence_count": row.evidence_count,
              "last_confirmed": row.last_confirmed.isoformat() if row.last_confirmed else None}  # fmt: skip
    after = {"evidence_count": row.evidence_count + 1, "last_confirmed": today.isoformat()}
    session.execute(
        update(RecordRow)
        .where(RecordRow.id == record_id)
        .values(evidence_count=RecordRow.evidence_count + 1, last_confirmed=today, updated_at=at)
    )
    add_audit(
        session,
        actor=actor,
        record_id=record_id,
        action="confirm",
        at=at,
        before=before,
        after=after,
    )
    bump_kb_version(session)
    return True


# -- unknown errors --------------------------------------------------------------


@dataclass(frozen=True)
class UnknownError:
    id: int
    template: str
    sample: str
    count: int
    first_seen: datetime
    last_seen: datetime
    permalinks: tuple[str, ...]


def _unknown(row: UnknownErrorRow) -> UnknownError:
    return UnknownError(row.id, row.template, row.sample, row.count, _aware(row.first_seen),
                        _aware(row.last_seen), tuple(row.permalinks))  # fmt: skip


def note_unknown(
    session: Session, *, template: str, sample: str, permalink: str | None, at: datetime
) -> int:
    """Count one more sighting of an unknown error; keeps a few example permalinks."""
    digest = hashlib.sha256(template.encode()).hexdigest()
    _insert_ignoring_conflicts(
        session,
        UnknownErrorRow.__table__,
        {"template_hash": digest, "template": template, "sample": sample[:SAMPLE_CHARS], "count": 0,
         "first_seen": at, "last_seen": at, "permalinks": []},
    )  # fmt: skip
    row = session.scalars(
        select(UnknownErrorRow).where(UnknownErrorRow.template_hash == digest).with_for_update()
    ).one()
    row.count += 1
    row.last_seen = max(_aware(row.last_seen), at)
    if permalink and permalink not in row.permalinks and len(row.permalinks) < KEEP_PERMALINKS:
        row.permalinks = [*row.permalinks, permalink]
    session.flush()
    return row.id


def unknown_errors(session: Session, *, limit: int = 10) -> list[UnknownError]:
    """The most common unknown errors, most seen (then most recent) first."""
    stmt = (
        select(UnknownErrorRow)
        .order_by(
            UnknownErrorRow.count.desc(), UnknownErrorRow.last_seen.desc(), UnknownErrorRow.id
        )
        .limit(limit)
    )
    return [_unknown(row) for row in session.scalars(stmt)]


def get_unknown(session: Session, *, unknown_id: int) -> UnknownError | None:
    row = session.get(UnknownErrorRow, unknown_id)
    return None if row is None else _unknown(row)


def record_exists(session: Session, *, record_id: str) -> bool:
    return session.scalar(select(RecordRow.id).where(RecordRow.id == record_id)) is not None


__all__ = [
    "Reply", "UnknownError", "VoteOutcome", "add_reply", "cast_vote", "choose_locale", "chosen_locale",
    "get_reply", "get_unknown", "note_unknown", "record_evidence", "record_exists",
    "unknown_errors", "workaround_counts",
]  # fmt: skip
