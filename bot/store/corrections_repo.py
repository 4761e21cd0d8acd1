"""What people taught errkb: "Not this error" choices, by normalised error template.

The matcher takes them as ``learned`` (template → record id, or None for "no
record answers this"): the next paste of the same error, in any channel, is
answered with the chosen record. The latest choice for a template holds; a
maintainer may undo one. Every choice and undo is in the audit log (under
the record people chose, or the one they said was wrong). Keyword-only
arguments; nothing commits.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from sqlalchemy import bindparam, func, select, update
from sqlalchemy.orm import Session

from bot.store.dialect import insert
from bot.store.models import CorrectionRow, table_of
from bot.store.repository import add_audit

if TYPE_CHECKING:
    from bot.store.loading import Rows

SAMPLE_CHARS = 2_000


@dataclass(frozen=True)
class Correction:
    id: int
    template: str
    sample: str
    record_id: str | None
    wrong_id: str | None
    user_id: str
    channel: str | None
    active: bool
    at: datetime


def _hash(template: str) -> str:
    return hashlib.sha256(template.encode()).hexdigest()


def _correction(row: CorrectionRow) -> Correction:
    at = row.at if row.at.tzinfo else row.at.replace(tzinfo=UTC)
    return Correction(
        row.id,
        row.template,
        row.sample,
        row.record_id,
        row.wrong_id,
        row.user_id,
        row.channel,
        row.active,
        at,
    )


_C = table_of(CorrectionRow).c
# Built once: every paste asks it, and building it costs more than running it.
_LEARNED = select(_C.template_hash, _C.record_id).where(
    _C.template_hash.in_(bindparam("p_hashes", expanding=True)), _C.active.is_(True)
)


def learned(session: Rows, *, templates: Iterable[str]) -> dict[str, str | None]:
    """The active choices for these templates: template → record id (None: no record).
    A Core select, so a paste's plain read connection can ask it too."""
    hashes = {_hash(t): t for t in set(templates)}
    if not hashes:
        return {}
    rows = session.execute(_LEARNED, {"p_hashes": list(hashes)})
    return {hashes[h]: record_id for h, record_id in rows}


def teach(
    session: Session,
    *,
    template: str,
    sample: str,
    record_id: str | None,
    wrong_id: str | None,
    user_id: str,
    channel: str | None,
    at: datetime,
) -> int:
    """Remember that ``template`` is ``record_id`` (None: no record), replacing an earlier
    choice."""
    values = {
        "template_hash": _hash(template),
        "template": template,
        "sample": sample[:SAMPLE_CHARS],
        "record_id": record_id,
        "wrong_id": wrong_id,
        "user_id": user_id,
        "channel": channel,
        "active": True,
        "at": at,
    }
    statement = insert(session, CorrectionRow).values(**values)
    changed = {k: statement.excluded[k] for k in values if k != "template_hash"}
    found = session.execute(
        statement.on_conflict_do_update(index_elements=["template_hash"], set_=changed).returning(
            CorrectionRow.id
        )
    ).scalar_one()
    subject = record_id or wrong_id
    if subject:
        add_audit(
            session,
            actor=f"slack:{user_id}",
            record_id=subject,
            action="correction",
            at=at,
            before={"answered": wrong_id},
            after={"chosen": record_id, "template": template[:300]},
        )
    return int(found)


def undo(session: Session, *, correction_id: int, user_id: str, at: datetime) -> Correction | None:
    """Forget a learned choice (a maintainer's call); the correction as it was, or None."""
    row = session.get(CorrectionRow, correction_id)
    if row is None or not row.active:
        return None
    session.execute(
        update(CorrectionRow).where(CorrectionRow.id == correction_id).values(active=False)
    )
    subject = row.record_id or row.wrong_id
    if subject:
        add_audit(
            session,
            actor=f"slack:{user_id}",
            record_id=subject,
            action="correction_undone",
            at=at,
            before={"chosen": row.record_id, "template": row.template[:300]},
            after=None,
        )
    return _correction(row)


def recent(session: Session, *, limit: int = 10, since: datetime | None = None) -> list[Correction]:
    """Active corrections, newest first."""
    query = select(CorrectionRow).where(CorrectionRow.active.is_(True))
    if since is not None:
        query = query.where(CorrectionRow.at >= since)
    return [
        _correction(r)
        for r in session.scalars(query.order_by(CorrectionRow.at.desc()).limit(limit))
    ]


def wrong_counts(session: Session, *, since: datetime) -> list[tuple[str, int]]:
    """Records people said answered the wrong error, most often first."""
    rows = session.execute(
        select(CorrectionRow.wrong_id, func.count())
        .where(CorrectionRow.wrong_id.is_not(None), CorrectionRow.at >= since)
        .group_by(CorrectionRow.wrong_id)
        .order_by(func.count().desc(), CorrectionRow.wrong_id)
    )
    return [(str(rid), int(n)) for rid, n in rows]
