"""Repository functions over records. Keyword-only arguments; they never commit.

The caller owns the transaction (``Store.transaction()``), so an import of
thousands of records is one all-or-nothing unit. Reading whole records is
:mod:`bot.store.loading`; the knowledge version and its change feed are
:mod:`bot.store.changes` (both re-exported here).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any, Literal

from sqlalchemy import delete, func, insert, select, update
from sqlalchemy.orm import Session

from bot.records import TRANSLATABLE, Record, normalise_locale
from bot.store import dialect, tables
from bot.store.changes import (
    KnowledgeChanges,
    knowledge_changes,
    knowledge_version,
    lock_knowledge,
    note_changes,
)
from bot.store.convert import child_values, content_hash, record_values
from bot.store.loading import CHILDREN, chunks, get_record, load_records
from bot.store.models import (
    AuditRow,
    DeadEndRow,
    LinkRow,
    RecordRow,
    TranslationRow,
    WorkaroundRow,
)

OnConflict = Literal["upsert", "skip", "fail"]
#: Record fields that are evidence, not knowledge: changing them alone reindexes nothing.
EVIDENCE = ("last_confirmed", "evidence_count")


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


def record_ids(session: Session) -> set[str]:
    return set(session.scalars(select(RecordRow.id)))


def records_confirmed_before(
    session: Session, *, before: date, domain: str | None = None
) -> list[tuple[str, date | None]]:
    """``(id, last_confirmed)`` of records not confirmed since ``before`` (never confirmed
    first)."""
    stmt = select(RecordRow.id, RecordRow.last_confirmed).where(
        (RecordRow.last_confirmed < before) | RecordRow.last_confirmed.is_(None)
    )
    if domain is not None:
        stmt = stmt.where(RecordRow.domain == domain)
    stmt = stmt.order_by(RecordRow.last_confirmed.asc().nulls_first(), RecordRow.id)
    return [(rid, day) for rid, day in session.execute(stmt)]


def record_text(session: Session, *, record_id: str, locale: str) -> dict[str, tuple[Any, str]]:
    """Each translatable field in ``locale`` as ``(value, locale_used)``, English (its own
    text) the fallback."""
    record = get_record(session, record_id=record_id)
    if record is None:
        return {}
    return {name: record.text(name, normalise_locale(locale)) for name in TRANSLATABLE}


def stats(session: Session) -> dict[str, Any]:
    by_domain: dict[str, int] = dict(
        session.execute(
            select(RecordRow.domain, func.count())
            .group_by(RecordRow.domain)
            .order_by(RecordRow.domain)
        ).all()
    )
    locales: dict[str, int] = dict(
        session.execute(
            select(TranslationRow.locale, func.count(func.distinct(TranslationRow.record_id)))
            .group_by(TranslationRow.locale)
            .order_by(TranslationRow.locale)
        ).all()
    )
    links: dict[str, int] = dict(
        session.execute(select(LinkRow.kind, func.count()).group_by(LinkRow.kind)).all()
    )
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


# -- knowledge version ---------------------------------------------------------


def kb_version(session: Session) -> int:
    """The knowledge version (:func:`bot.store.changes.knowledge_version`); evidence never
    moves it."""
    return knowledge_version(session)


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


@dataclass
class Plan:
    """What an import writes, decided from one snapshot.

    ``expected`` is each record's content hash as read (None: absent); ``records``
    the ``records`` rows to upsert; ``children`` the child rows by table name;
    ``rewritten`` the ids whose child rows are replaced; ``evidence`` the records
    changed in evidence alone; ``audit`` the audit entries.
    """

    summary: ImportSummary
    expected: dict[str, str | None] = field(default_factory=dict)
    records: list[dict[str, Any]] = field(default_factory=list)
    children: dict[str, list[dict[str, Any]]] = field(default_factory=lambda: defaultdict(list))
    rewritten: list[str] = field(default_factory=list)
    evidence: list[Record] = field(default_factory=list)
    audit: list[dict[str, Any]] = field(default_factory=list)

    @property
    def writes(self) -> bool:
        return bool(self.records or self.evidence) and not self.summary.conflicts


def plan_import(
    session: Session,
    *,
    records: list[Record],
    on_conflict: OnConflict,
    actor: str,
    now: datetime,
    progress: Callable[[int, int], None] | None = None,
) -> Plan:
    """What importing ``records`` writes, decided from what ``session`` reads (it may only
    read; nothing is written): :func:`import_records` writes it in the same transaction, a
    staged import (:mod:`bot.store.staged`) in a later one. ``progress`` hears each record
    turned into rows."""
    summary = ImportSummary()
    existing = _content_hashes(session, [r.id for r in records])
    plan = Plan(summary, expected={r.id: existing.get(r.id) for r in records})
    fresh = []
    changed = []
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
    if summary.conflicts or not (fresh or changed):
        return plan
    before = {r.id: r.to_native() for r in load_records(session, ids=[r.id for r, _ in changed])}
    diffs = {r.id: _diff(before.get(r.id, {}), r.to_native()) for r, _ in changed}
    plan.evidence = [r for r, _ in changed if set(diffs[r.id][1]) <= set(EVIDENCE)]
    evidence_ids = {r.id for r in plan.evidence}
    rewritten = [(r, v) for r, v in changed if r.id not in evidence_ids]
    plan.rewritten = [r.id for r, _ in rewritten]
    plan.records = [{**v, "created_at": now, "updated_at": now} for _, v in fresh + rewritten]
    for number, (record, _) in enumerate(fresh + rewritten, start=1):
        for name, rows in child_values(record).items():
            plan.children[name].extend(rows)
        if progress is not None:
            progress(number, len(fresh) + len(rewritten))
    for row in plan.children["workarounds"]:  # the stored counters are carried over on writing
        row["fixed_count"] = 0
        row["failed_count"] = 0
    plan.audit = [
        {
            "actor": actor,
            "record_id": r.id,
            "action": "add",
            "at": now,
            "before": None,
            "after": {"content_hash": v["content_hash"]},
        }
        for r, v in fresh
    ]
    plan.audit += [
        {
            "actor": actor,
            "record_id": r.id,
            "action": "update",
            "at": now,
            "before": diffs[r.id][0],
            "after": diffs[r.id][1],
        }
        for r, _ in changed
    ]
    summary.added.extend(r.id for r, _ in fresh)
    summary.updated.extend(r.id for r, _ in changed)
    return plan


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

    Knowledge writers are serialised first (:func:`lock_knowledge`), so two
    imports of the same ids at once run one after the other, and the rows go
    in as ``INSERT … ON CONFLICT DO UPDATE``. ``on_conflict="fail"`` leaves the
    session untouched and lists the conflicts when any record id already
    exists with different content.
    """
    lock_knowledge(session)
    plan = plan_import(
        session, records=records, on_conflict=on_conflict, actor=actor, now=now, progress=progress
    )
    if not plan.writes:
        return plan.summary
    for record in plan.evidence:
        _write_evidence(session, record, now)
    counters = _delete_children(session, plan.rewritten)
    _upsert_rows(session, plan.records)
    session.execute(insert(AuditRow), plan.audit)
    for row in plan.children["workarounds"]:
        row["fixed_count"], row["failed_count"] = counters.get(
            (row["record_id"], row["action"]), (0, 0)
        )
    for table, _, _ in CHILDREN:
        rows = plan.children[table.name]
        if rows:
            session.execute(insert(table), rows)
    note_changes(session, upserted=[row["id"] for row in plan.records], at=now)
    return plan.summary


def _write_evidence(session: Session, record: Record, now: datetime) -> None:
    """Store ``record``'s evidence (its knowledge unchanged); the content hash follows."""
    session.execute(
        update(RecordRow)
        .where(RecordRow.id == record.id)
        .values(
            last_confirmed=record.last_confirmed,
            evidence_count=record.evidence_count,
            content_hash=content_hash(record.to_native()),
            updated_at=now,
        )
    )


def note_evidence(
    session: Session,
    *,
    record_id: str,
    now: datetime,
    confirmed: date | None = None,
    more: int = 0,
) -> tuple[Record, Record] | None:
    """Fresh evidence for a record: ``last_confirmed`` becomes ``confirmed`` (when given),
    ``evidence_count`` grows by ``more``. Evidence only: the knowledge version stays.

    Returns the record before and after (equal when nothing changed); None when
    there is no such record. The record's row is locked first, so concurrent
    evidence for one record is counted one after the other.
    """
    # FOR NO KEY UPDATE on PostgreSQL: rows that only refer to the record (votes, state) still go in
    row = select(RecordRow.id).where(RecordRow.id == record_id)
    locked = session.scalar(row.with_for_update(key_share=True))
    before = None if locked is None else get_record(session, record_id=record_id)
    if before is None:
        return None
    changes: dict[str, Any] = {}
    if confirmed is not None:
        changes["last_confirmed"] = confirmed
    if more:
        changes["evidence_count"] = before.evidence_count + more
    after = before.model_copy(update=changes)
    if after != before:
        _write_evidence(session, after, now)
    return before, after


def _content_hashes(session: Session, ids: list[str]) -> dict[str, str]:
    wanted = sorted(set(ids))
    stmt = select(RecordRow.id, RecordRow.content_hash)
    return {
        rid: digest
        for part in chunks(wanted)
        for rid, digest in session.execute(stmt.where(RecordRow.id.in_(part)))
    }


def _upsert_rows(session: Session, rows: list[dict[str, Any]]) -> None:
    """``records`` rows in, or over the ones with their ids (``created_at`` kept)."""
    if not rows:
        return
    statement = dialect.insert(session, tables.records)
    kept = {"id", "created_at"}
    columns = [c.name for c in tables.records.c if c.name not in kept]
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[tables.records.c.id],
            set_={name: statement.excluded[name] for name in columns},
        ),
        rows,
    )


def _delete_children(session: Session, ids: list[str]) -> dict[tuple[str, str], tuple[int, int]]:
    """Delete the child rows of ``ids``; returns the vote counters by (record id, workaround
    action), to carry over to the workarounds that come back."""
    counters: dict[tuple[str, str], tuple[int, int]] = {}
    for table, key, _ in CHILDREN:
        column = table.c[key]
        for part in chunks(ids):
            if table is not tables.workarounds:
                session.execute(delete(table).where(column.in_(part)))
                continue
            gone = session.execute(
                delete(table)
                .where(column.in_(part))
                .returning(
                    table.c.record_id, table.c.action, table.c.fixed_count, table.c.failed_count
                )
            )
            for rid, action, fixed, failed in gone:
                if fixed or failed:
                    counters[(rid, action)] = (fixed, failed)
    return counters


def delete_record(session: Session, *, record_id: str, actor: str, now: datetime) -> bool:
    lock_knowledge(session)
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
    note_changes(session, removed=[record_id], at=now)
    return True


def audit_log(
    session: Session, *, record_id: str | None = None, limit: int = 100
) -> list[AuditRow]:
    stmt = select(AuditRow).order_by(AuditRow.id.desc()).limit(limit)
    if record_id is not None:
        stmt = stmt.where(AuditRow.record_id == record_id)
    return list(session.scalars(stmt))


__all__ = [
    "ImportSummary",
    "KnowledgeChanges",
    "OnConflict",
    "Plan",
    "add_audit",
    "audit_log",
    "delete_record",
    "get_record",
    "import_records",
    "kb_version",
    "knowledge_changes",
    "knowledge_version",
    "load_records",
    "note_evidence",
    "plan_import",
    "record_ids",
    "record_text",
    "records_confirmed_before",
    "stats",
]
