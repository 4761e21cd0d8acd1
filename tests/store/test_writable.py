"""A database that answers reads but takes no writes is seen, reported and, once it takes
them again, cleared: SQLite out of room (its own "database or disk is full", made real
with ``max_page_count``), and the refusals PostgreSQL gives for a full disk or a
read-only server."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text

from benchmarks.synthetic_kb import synthetic_records
from bot.errors import StorageUnavailable
from bot.slack.web.server import health
from bot.store import repository
from bot.store.db import open_store
from bot.store.writable import unwritable_reason


def test_a_full_sqlite_database_is_broken_until_it_has_room_again(tmp_path: Path) -> None:
    store = open_store(f"sqlite:///{tmp_path / 'full.sqlite3'}", migrate=True)
    room: dict[str, int | None] = {"pages": None}

    @event.listens_for(store.engine, "connect")
    def _limit(dbapi_connection: Any, _record: Any) -> None:
        if room["pages"] is not None:
            dbapi_connection.execute(f"PRAGMA max_page_count={room['pages']}")

    try:
        assert health(store, lambda: 1)[1]["status"] == "ok"
        raw = store.engine.raw_connection()  # outside SQLAlchemy's BEGIN: VACUUM needs that
        try:
            raw.driver_connection.execute("VACUUM")  # no free pages left inside the file either
            room["pages"] = int(raw.driver_connection.execute("PRAGMA page_count").fetchone()[0])
        finally:
            raw.close()
        store.engine.dispose()  # new connections: the disk is now full
        with pytest.raises(StorageUnavailable, match="full"):
            with store.transaction() as session:
                repository.import_records(
                    session,
                    records=synthetic_records(300),
                    on_conflict="fail",
                    actor="test",
                    now=datetime.now(UTC),
                )
        ok, body = health(store, lambda: 1)
        assert not ok and body["status"] == "broken" and body["writable"] is False
        assert body["reason"].startswith(
            "database takes no writes (disk full): database or disk is full"
        )
        assert health(store, lambda: 1)[1]["status"] == "broken", "still, while it has no room"

        room["pages"] = None
        store.engine.dispose()  # room again
        assert health(store, lambda: 1)[1]["status"] == "ok", "the next check writes, and clears it"
    finally:
        store.dispose()


@pytest.mark.parametrize(
    "message,what",
    [
        (
            (
                "(psycopg.errors.DiskFull) "
                'could not extend file "base/16384/2619": No space left on device'
            ),
            "disk full",
        ),
        (
            (
                "(psycopg.errors.ReadOnlySqlTransaction) "
                "cannot execute INSERT in a read-only transaction"
            ),
            "read-only",
        ),
        ("(psycopg.errors.ReadOnlySqlTransaction) cannot execute UPDATE during recovery", None),
        ("(sqlite3.OperationalError) attempt to write a readonly database", "read-only"),
        ("(sqlite3.OperationalError) database is locked", None),
        ("connection refused", None),
    ],
)
def test_refusals_that_mean_no_writes_at_all(message: str, what: str | None) -> None:
    reason = unwritable_reason(RuntimeError(message))
    assert (reason.split("(")[1].split(")")[0] if reason else None) == what


def test_a_read_only_postgresql_is_broken_until_it_takes_writes_again(
    blank_database_url: str,
) -> None:
    if not blank_database_url.startswith("postgresql"):
        pytest.skip("a read-only server is a PostgreSQL setting: the PostgreSQL pass")
    store = open_store(blank_database_url, migrate=True)
    name = store.engine.url.database

    def read_only(on: bool) -> None:
        with store.engine.connect() as conn:
            conn.exec_driver_sql("SET TRANSACTION READ WRITE")  # this one may write
            conn.exec_driver_sql(
                f'ALTER DATABASE "{name}" '
                + (
                    "SET default_transaction_read_only = on"
                    if on
                    else "RESET default_transaction_read_only"
                )
            )
            conn.commit()
        store.engine.dispose()  # new sessions get the setting

    try:
        read_only(True)
        with pytest.raises(StorageUnavailable, match="read-only transaction"):
            with store.transaction() as session:
                session.execute(text("UPDATE kb_state SET value = value"))
        ok, body = health(store, lambda: 1)
        assert not ok and body["status"] == "broken"
        assert body["reason"].startswith("database takes no writes (read-only)")
        read_only(False)
        assert health(store, lambda: 1)[1]["status"] == "ok"
    finally:
        read_only(False)
        store.dispose()
