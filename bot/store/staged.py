"""Big imports beside a live bot on SQLite: prepared and staged without the write lock, applied
in one short transaction.

SQLite has one write lock for the whole database, and a Slack acknowledgement
waits for it (an event is written before Slack is answered). An import of tens of
thousands of records as one transaction held it for as long as the whole
import took, mostly Python turning records into rows, so acknowledgements
timed out meanwhile. Committing in batches would release the lock but break
the promise that an import is all or nothing. So an import runs in three steps,
and only the last one holds the lock:

1. *Plan*, in a read snapshot: which records are new, changed (knowledge or
   evidence only), unchanged, skipped or in conflict, and every row to write,
   audit entries with their differences included (:func:`plan_import`).
2. *Stage* the rows into temporary tables of the importing connection, in
   batches of :data:`BATCH` rows, each its own transaction. SQLite keeps
   temporary tables in a database of their own, so staging takes no lock the
   bot waits for, and a killed import leaves nothing behind.
3. *Apply*, in one ``BEGIN IMMEDIATE`` transaction: check that every record the
   plan read is as it was (same content hash, still absent); copy the staged rows
   into the real tables with ``INSERT … SELECT`` (the vote counters of
   workarounds carried over in the same statements); move the knowledge
   version once. A record changed by someone else since the plan sends the import
   back to step 1 (at most :data:`ATTEMPTS` times, then it runs as one
   transaction as before), so the result is what one transaction would have
   written.

PostgreSQL's writers do not wait for each other unless they touch the same
rows, so there an import stays one transaction (:func:`bot.store.repository.import_records`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import (
    Column,
    Connection,
    MetaData,
    Table,
    delete,
    func,
    insert,
    literal,
    select,
    true,
    update,
)
from sqlalchemy.orm import Session

from bot.records import Record
from bot.store import dialect, tables
from bot.store.changes import (
    _FEED,
    _STATE,
    KB_VERSION,
    KEEP_REMOVED,
    UPSERTED,
    _prune,
    lock_knowledge,
)
from bot.store.db import UNIT, Store
from bot.store.loading import CHILDREN
from bot.store.repository import (
    ImportSummary,
    OnConflict,
    Plan,
    _write_evidence,
    import_records,
    plan_import,
)

#: Rows staged per transaction.
BATCH = 2_000
#: SQLite page cache of the importing connection, KiB (SQLite's default is 2 MiB).
CACHE_KIB = 256 << 10
#: Plans made before an import that keeps meeting changed records runs as one transaction.
ATTEMPTS = 3


# -- the staging tables ------------------------------------------------------------------------


def _staging(table: Table, metadata: MetaData) -> Table:
    """A temporary table with ``table``'s columns (not its serial id, nor its constraints)."""
    serial = table is not tables.records
    columns = [Column(c.name, c.type) for c in table.columns if not (serial and c.name == "id")]
    return Table(f"staged_{table.name}", metadata, *columns, prefixes=["TEMPORARY"])


@dataclass
class _Stage:
    metadata: MetaData = field(default_factory=MetaData)
    tables: dict[str, Table] = field(default_factory=dict)
    expected: Table | None = None
    rewritten: Table | None = None

    def __post_init__(self) -> None:
        for table in (tables.records, tables.audit_log, *(t for t, _, _ in CHILDREN)):
            self.tables[table.name] = _staging(table, self.metadata)
        self.expected = Table(
            "staged_expected",
            self.metadata,
            Column("id", tables.records.c.id.type),
            Column("content_hash", tables.records.c.content_hash.type),
            prefixes=["TEMPORARY"],
        )
        self.rewritten = Table(
            "staged_rewritten",
            self.metadata,
            Column("id", tables.records.c.id.type),
            prefixes=["TEMPORARY"],
        )


def _batches(rows: Sequence[dict[str, Any]]) -> Iterator[Sequence[dict[str, Any]]]:
    for start in range(0, len(rows), BATCH):
        yield rows[start : start + BATCH]


def _stage(
    connection: Connection, stage: _Stage, plan: Plan, progress: Callable[[int, int], None] | None
) -> None:
    """Write ``plan``'s rows into the staging tables, a batch per transaction."""
    assert stage.expected is not None and stage.rewritten is not None
    with connection.begin():
        stage.metadata.drop_all(connection)
        stage.metadata.create_all(connection)
    work: list[tuple[Table, Sequence[dict[str, Any]]]] = [
        (stage.expected, [{"id": k, "content_hash": v} for k, v in plan.expected.items()]),
        (stage.rewritten, [{"id": rid} for rid in plan.rewritten]),
        (stage.tables["records"], plan.records),
        (stage.tables["audit_log"], plan.audit),
        *((stage.tables[t.name], plan.children[t.name]) for t, _, _ in CHILDREN),
    ]
    total = sum(len(rows) for _, rows in work)
    done = 0
    for table, rows in work:
        for batch in _batches(rows):
            with connection.begin():
                connection.execute(insert(table), list(batch))
            done += len(batch)
            if progress is not None:
                progress(done, total)


def _apply(session: Session, stage: _Stage, plan: Plan, now: datetime) -> bool:
    """Copy the staged rows in; False (nothing written) when a record the plan read has changed."""
    assert stage.expected is not None and stage.rewritten is not None
    records = tables.records
    expected = stage.expected
    rewritten = stage.rewritten
    lock_knowledge(session)
    moved = session.scalar(
        select(func.count())
        .select_from(expected.outerjoin(records, records.c.id == expected.c.id))
        .where(
            func.coalesce(records.c.content_hash, "") != func.coalesce(expected.c.content_hash, "")
        )
    )
    if moved:
        return False
    staged_w = stage.tables["workarounds"]
    stored_w = tables.workarounds

    def kept(column: str) -> Any:
        return func.coalesce(
            select(func.max(stored_w.c[column]))
            .where(
                stored_w.c.record_id == staged_w.c.record_id, stored_w.c.action == staged_w.c.action
            )
            .scalar_subquery(),
            0,
        )

    session.execute(
        update(staged_w).values(fixed_count=kept("fixed_count"), failed_count=kept("failed_count"))
    )
    for table, key, _ in CHILDREN:
        session.execute(delete(table).where(table.c[key].in_(select(rewritten.c.id))))
    staged_r = stage.tables["records"]
    names = [c.name for c in staged_r.c]
    ordered = select(*staged_r.c).where(true()).order_by(staged_r.c.id)  # B-trees filled in order
    upsert = dialect.insert(session, records).from_select(names, ordered)
    session.execute(
        upsert.on_conflict_do_update(
            index_elements=[records.c.id],
            set_={n: upsert.excluded[n] for n in names if n not in ("id", "created_at")},
        )
    )
    session.execute(
        insert(tables.audit_log).from_select(
            [c.name for c in stage.tables["audit_log"].c], select(*stage.tables["audit_log"].c)
        )
    )
    for table, key, order in CHILDREN:
        staged = stage.tables[table.name]
        rows = select(*staged.c).order_by(staged.c[key], *(staged.c[c] for c in order))
        session.execute(insert(table).from_select([c.name for c in staged.c], rows))
    for record in plan.evidence:
        _write_evidence(session, record, now)
    if plan.records:
        _note_staged(session, staged_r, now)
    return True


def _note_staged(session: Session, staged: Table, now: datetime) -> None:
    """:func:`~bot.store.changes.note_changes` for every staged record, as one statement."""
    version = int(
        session.execute(
            update(_STATE)
            .where(_STATE.c.key == KB_VERSION)
            .values(value=_STATE.c.value + 1)
            .returning(_STATE.c.value)
        ).scalar_one()
    )
    rows = select(
        staged.c.id,
        literal(version, _FEED.c.seq.type),
        literal(UPSERTED, _FEED.c.kind.type),
        literal(now, _FEED.c.at.type),
    ).where(true())
    statement = dialect.insert(session, _FEED).from_select(["record_id", "seq", "kind", "at"], rows)
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[_FEED.c.record_id],
            set_={
                "seq": statement.excluded.seq,
                "kind": statement.excluded.kind,
                "at": statement.excluded.at,
            },
        )
    )
    _prune(session, before=now - KEEP_REMOVED)


@contextmanager
def _connection(store: Store) -> Iterator[Connection]:
    """One connection for staging and applying (temporary tables live on it), dropped after."""
    connection = store.engine.connect().execution_options(**{UNIT: "stage"})
    sqlite = connection.dialect.name == "sqlite"
    if sqlite:  # the apply's B-trees and the staged rows in memory, not paged in and out
        _pragmas(connection, f"cache_size=-{CACHE_KIB}", "temp_store=MEMORY")
    try:
        yield connection
    finally:
        connection.rollback()
        if sqlite:  # back to the pool as it came
            _pragmas(connection, "cache_size=-2000", "temp_store=DEFAULT")
        connection.close()


def _pragmas(connection: Connection, *pragmas: str) -> None:
    """Set SQLite pragmas outside any transaction (``temp_store`` refuses to change inside one)."""
    raw = connection.connection.driver_connection
    assert raw is not None
    for pragma in pragmas:
        raw.execute(f"PRAGMA {pragma}")


def import_staged(
    store: Store,
    *,
    records: list[Record],
    on_conflict: OnConflict,
    actor: str,
    now: datetime,
    progress: Callable[[int, int], None] | None = None,
) -> ImportSummary:
    """Import ``records`` as :func:`~bot.store.repository.import_records` does, all or nothing,
    holding SQLite's write lock only to apply (see the module docstring); commits itself."""
    stage = _Stage()
    with _connection(store) as connection:
        try:
            for _ in range(ATTEMPTS):
                with store.read() as session:
                    plan = plan_import(
                        session, records=records, on_conflict=on_conflict, actor=actor, now=now
                    )
                if not plan.writes:
                    return plan.summary
                _stage(connection, stage, plan, progress)
                connection.execution_options(**{UNIT: "write"})
                with Session(bind=connection) as session, session.begin():
                    applied = _apply(session, stage, plan, now)
                    if not applied:
                        session.rollback()
                connection.execution_options(**{UNIT: "stage"})
                if applied:
                    return plan.summary
        finally:
            with connection.begin():
                stage.metadata.drop_all(connection)
    with store.transaction() as session:  # the knowledge kept changing under the plans
        return import_records(
            session,
            records=records,
            on_conflict=on_conflict,
            actor=actor,
            now=now,
            progress=progress,
        )


__all__ = ["ATTEMPTS", "BATCH", "import_staged"]
