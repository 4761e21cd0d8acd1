"""Repository functions over records. Keyword-only arguments; they never commit.

The caller owns the transaction (``Store.transaction()``), so an import of
thousands of records is one all-or-nothing unit.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal

from sqlalchemy import Select, delete, func, insert, select, update
from sqlalchemy.orm import Session

from bot.records import TRANSLATABLE, Record, normalise_locale
from bot.store.convert import child_values, record_from_rows, record_values
from bot.store.models import (
    AuditRow,
    DeadEndRow,
    LinkRow,
    RecordRow,
    StateRow,
    TranslationRow,
    WorkaroundRow,
)

OnConflict = Literal["upsert", "skip", "fail"]
KB_VERSION = "kb_version"
_CHILDREN = (TranslationRow, WorkaroundRow, DeadEndRow, LinkRow)


@dataclass
class ImportSummary:
    added: list[str] = field(default_factory=list)
    updated: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    def counts(self) -> dict[str, int]:
        return {
            "added": len(self.added),
            "updated": len(self.updated),
            "unchanged": len(self.unchanged),
            "skipped": len(self.skipped),
        }


# -- reading -----------------------------------------------------------------


def _rows(session: Session, stmt: Select[Any]) -> list[dict[str, Any]]:
    return [dict(row) for row in session.execute(stmt).mappings()]


def _chunks(ids: list[str], size: int = 900) -> Iterable[list[str]]:
    for start in range(0, len(ids), size):
        yield ids[start : start + size]


def load_records(
    session: Session, *, domain: str | None = None, ids: Iterable[str] | None = None
) -> list[Record]:
    """Records (all, one domain, or the given ids) with everything they carry, ordered by id."""
    stmt = select(*RecordRow.__table__.c).order_by(RecordRow.id)
    if domain is not None:
        stmt = stmt.where(RecordRow.domain == domain)
    if ids is not None:
        wanted = sorted(set(ids))
        rows = [
            r
            for chunk in _chunks(wanted)
            for r in _rows(session, stmt.where(RecordRow.id.in_(chunk)))
        ]
        rows.sort(key=lambda r: r["id"])
    else:
        rows = _rows(session, stmt)
    if not rows:
        return []
    children = _children(session, [r["id"] for r in rows], whole=ids is None and domain is None)
    return [
        record_from_rows(
            row,
            children[TranslationRow].get(row["id"], []),
            children[WorkaroundRow].get(row["id"], []),
            children[DeadEndRow].get(row["id"], []),
            children[LinkRow].get(row["id"], []),
        )
        for row in rows
    ]


def _children(
    session: Session, record_ids: list[str], *, whole: bool
) -> dict[type, dict[str, list[dict[str, Any]]]]:
    out: dict[type, dict[str, list[dict[str, Any]]]] = {}
    for model in _CHILDREN:
        table = model.__table__
        key = table.c.source_id if model is LinkRow else table.c.record_id
        order = [key, table.c.kind, table.c.position] if model is LinkRow else [key]
        if hasattr(model, "position") and model is not LinkRow:
            order.append(table.c.position)
        stmt = select(*table.c).order_by(*order)
        grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
        chunks = [None] if whole else list(_chunks(record_ids))
        for chunk in chunks:
            part = stmt if chunk is None else stmt.where(key.in_(chunk))
            for row in _rows(session, part):
                grouped[row["source_id" if model is LinkRow else "record_id"]].append(row)
        out[model] = grouped
    return out


def get_record(session: Session, *, record_id: str) -> Record | None:
    found = load_records(session, ids=[record_id])
    return found[0] if found else None


def record_ids(session: Session) -> set[str]:
    return set(session.scalars(select(RecordRow.id)))


def records_confirmed_before(
    session: Session, *, before: date, domain: str | None = None
) -> list[tuple[str, date | None]]:
    """``(id, last_confirmed)`` of records not confirmed since ``before`` (never confirmed first)."""
    stmt = select(RecordRow.id, RecordRow.last_confirmed).where(
        (RecordRow.last_confirmed < before) | RecordRow.last_confirmed.is_(None)
    )
    if domain is not None:
        stmt = stmt.where(RecordRow.domain == domain)
    stmt = stmt.order_by(RecordRow.last_confirmed.asc().nulls_first(), RecordRow.id)
    return [(rid, day) for rid, day in session.execute(stmt)]


def record_text(session: Session, *, record_id: str, locale: str) -> dict[str, tuple[Any, str]]:
    """Each translatable field in ``locale`` as ``(value, locale_used)``, English (own text) fallback."""
    record = get_record(session, record_id=record_id)
    if record is None:
        return {}
    return {name: record.text(name, normalise_locale(locale)) for name in TRANSLATABLE}


def stats(session: Session) -> dict[str, Any]:
    by_domain = dict(
        session.execute(
            select(RecordRow.domain, func.count())
            .group_by(RecordRow.domain)
            .order_by(RecordRow.domain)
        ).all()
    )
    locales = dict(
        session.execute(
            select(TranslationRow.locale, func.count(func.distinct(TranslationRow.record_id)))
            .group_by(TranslationRow.locale)
            .order_by(TranslationRow.locale)
        ).all()
    )
    links = dict(session.execute(select(LinkRow.kind, func.count()).group_by(LinkRow.kind)).all())
    dangling = session.scalar(
        select(func.count())
        .select_from(LinkRow)
        .where(LinkRow.target_id.not_in(select(RecordRow.id)))
    )
    return {
        "records": sum(by_domain.values()),
        "domains": by_domain,
        "translated": locales,
        "workarounds": session.scalar(select(func.count()).select_from(WorkaroundRow)),
        "dead_ends": session.scalar(select(func.count()).select_from(DeadEndRow)),
        "links": links,
        "dangling_links": dangling,
        "oldest_confirmed": session.scalar(select(func.min(RecordRow.last_confirmed))),
        "kb_version": kb_version(session),
    }


# -- change counter ------------------------------------------------------------


def kb_version(session: Session) -> int:
    value = session.scalar(select(StateRow.value).where(StateRow.key == KB_VERSION))
    return int(value or 0)


def bump_kb_version(session: Session) -> int:
    changed = session.execute(
        update(StateRow).where(StateRow.key == KB_VERSION).values(value=StateRow.value + 1)
    )
    if not changed.rowcount:  # type: ignore[attr-defined]
        session.execute(insert(StateRow).values(key=KB_VERSION, value=1))
    return kb_version(session)


# -- writing -------------------------------------------------------------------


def add_audit(
    session: Session,
    *,
    actor: str,
    record_id: str,
    action: str,
    at: datetime,
    before: dict[str, Any] | None = None,
    after: dict[str, Any] | None = None,
) -> None:
    session.add(
        AuditRow(actor=actor, record_id=record_id, action=action, at=at, before=before, after=after)
    )


def _diff(old: dict[str, Any], new: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    keys = sorted(set(old) | set(new))
    changed = [k for k in keys if old.get(k) != new.get(k)]
    return {k: old.get(k) for k in changed}, {k: new.get(k) for k in changed}


def import_records(
    session: Session,
    *,
    records: list[Record],
    on_conflict: OnConflict,
    actor: str,
    now: datetime,
    progress: Callable[[int, int], None] | None = None,
) -> ImportSummary:
    """Add or update ``records`` in one unit of work; the caller commits or rolls back.

    ``on_conflict="fail"`` leaves the session untouched and lists the conflicts
    when any record id already exists with different content.
    """
    summary = ImportSummary()
    existing = dict(session.execute(select(RecordRow.id, RecordRow.content_hash)).all())
    fresh, changed = [], []
    for record in records:
        values = record_values(record)
        old_hash = existing.get(record.id)
        if old_hash is None:
            fresh.append((record, values))
        elif old_hash == values["content_hash"]:
            summary.unchanged.append(record.id)
        elif on_conflict == "skip":
            summary.skipped.append(record.id)
        elif on_conflict == "fail":
            summary.conflicts.append(record.id)
        else:
            changed.append((record, values))
    if summary.conflicts:
        return summary
    before = {r.id: r.to_native() for r in load_records(session, ids=[r.id for r, _ in changed])}
    counters = _outcome_counters(session, [r.id for r, _ in changed])
    if changed:
        ids = [r.id for r, _ in changed]
        for model in _CHILDREN:
            key = model.__table__.c.source_id if model is LinkRow else model.__table__.c.record_id
            for chunk in _chunks(ids):
                session.execute(delete(model).where(key.in_(chunk)))
        for record, values in changed:
            session.execute(
                update(RecordRow)
                .where(RecordRow.id == record.id)
                .values({**values, "updated_at": now})
            )
            old, new = _diff(before.get(record.id, {}), record.to_native())
            add_audit(
                session,
                actor=actor,
                record_id=record.id,
                action="update",
                at=now,
                before=old,
                after=new,
            )
            summary.updated.append(record.id)
    if fresh:
        session.execute(
            insert(RecordRow),
            [{**values, "created_at": now, "updated_at": now} for _, values in fresh],
        )
        session.execute(
            insert(AuditRow),
            [{"actor": actor, "record_id": r.id, "action": "add", "at": now, "before": None,
              "after": {"content_hash": v["content_hash"]}} for r, v in fresh],
        )  # fmt: skip
        summary.added.extend(r.id for r, _ in fresh)
    _insert_children(session, [r for r, _ in fresh + changed], counters, progress)
    if fresh or changed:
        bump_kb_version(session)
    return summary


def _outcome_counters(session: Session, ids: list[str]) -> dict[tuple[str, str], tuple[int, int]]:
    """Vote counters by (record id, workaround action), carried over when a record is updated."""
    out: dict[tuple[str, str], tuple[int, int]] = {}
    for chunk in _chunks(ids):
        stmt = select(
            WorkaroundRow.record_id,
            WorkaroundRow.action,
            WorkaroundRow.fixed_count,
            WorkaroundRow.failed_count,
        ).where(WorkaroundRow.record_id.in_(chunk))
        for rid, action, fixed, failed in session.execute(stmt):
            if fixed or failed:
                out[(rid, action)] = (fixed, failed)
    return out


def _insert_children(
    session: Session,
    records: list[Record],
    counters: dict[tuple[str, str], tuple[int, int]],
    progress: Callable[[int, int], None] | None,
) -> None:
    batches: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for number, record in enumerate(records, start=1):
        for table, rows in child_values(record).items():
            batches[table].extend(rows)
        if progress is not None:
            progress(number, len(records))
    for row in batches["workarounds"]:
        row["fixed_count"], row["failed_count"] = counters.get(
            (row["record_id"], row["action"]), (0, 0)
        )
    for model in _CHILDREN:
        rows = batches[model.__tablename__]
        if rows:
            session.execute(insert(model), rows)


def delete_record(session: Session, *, record_id: str, actor: str, now: datetime) -> bool:
    record = get_record(session, record_id=record_id)
    if record is None:
        return False
    session.execute(delete(RecordRow).where(RecordRow.id == record_id))
    add_audit(
        session,
        actor=actor,
        record_id=record_id,
        action="delete",
        at=now,
        before=record.to_native(),
    )
    bump_kb_version(session)
    return True


def audit_log(
    session: Session, *, record_id: str | None = None, limit: int = 100
) -> list[AuditRow]:
    stmt = select(AuditRow).order_by(AuditRow.id.desc()).limit(limit)
    if record_id is not None:
        stmt = stmt.where(AuditRow.record_id == record_id)
    return list(session.scalars(stmt))
