"""Engines, units of work and the schema: the database edge.

``open_store(url)`` returns a :class:`Store` holding the engine and two kinds
of unit of work; repository functions never commit, the unit of work does:

- ``Store.transaction()`` writes. On SQLite it starts with ``BEGIN IMMEDIATE``,
  so a writer takes the database's one write lock before it reads anything and
  waits its turn (the busy timeout) instead of failing half way with
  "database is locked" when another process writes at the same time; writers
  of one process queue on a lock of their own first (:class:`WriteTurn`),
  where a writer someone is waiting on (``wait``: Slack, for an
  acknowledgement) goes before the others.
- ``Store.read()`` only reads: a deferred ``BEGIN`` on SQLite (WAL readers never
  wait for writers), ``REPEATABLE READ`` on PostgreSQL, so everything read in it
  comes from one snapshot. Both databases refuse a write inside it.

The schema is Alembic's. :func:`migrate_schema` brings a database to the newest
revision under a lock (``BEGIN IMMEDIATE`` on SQLite, an advisory lock on
PostgreSQL), so processes that start together do not race; ``errkb init`` and
``errkb migrate`` call it. Every other opening only checks the revision and
refuses, in one line, a database that is missing or at another revision.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import cached_property
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError, OperationalError

from bot.errors import SchemaOutOfDate, StorageUnavailable
from bot.store import SCHEMA_REVISION
from bot.store.writable import WriteHealth, unwritable_reason

if TYPE_CHECKING:
    from sqlalchemy.orm import Session, sessionmaker

log = logging.getLogger(__name__)

#: How long a SQLite writer waits for the write lock before giving up.
BUSY_TIMEOUT_MS = 30_000
#: The PostgreSQL advisory lock key migrations hold ("errk" in ASCII).
MIGRATION_LOCK = 0x6572726B
#: Execution option naming the kind of unit of work: "write", "read" or absent.
UNIT = "errkb_unit"
#: Execution option: how long this writer waits for SQLite's write lock (ms), if not the default.
WAIT_MS = "errkb_wait_ms"


def json_value(text: str) -> Any:
    """A JSON column's value from its text (SQLite): ``json.loads``, the empty list and
    object made directly: most of the JSON values of a record are one of the two, and
    decoding each would be a large share of loading a big knowledge base."""
    if text == "[]":
        return []
    if text == "{}":
        return {}
    return json.loads(text)


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``; SQLite gets its folder created, WAL, foreign keys and a busy
    timeout."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, **{"json_deserializer": json_value, **kwargs})
        _sqlite_pragmas(engine)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() in ("", "psycopg2"):
        url = parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    return create_engine(url, pool_pre_ping=True, **kwargs)


def _sqlite_pragmas(engine: Engine) -> None:
    # pysqlite's own transaction handling breaks SAVEPOINT and cannot say IMMEDIATE;
    # let SQLAlchemy emit BEGIN (the recipe in SQLAlchemy's SQLite dialect documentation).
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        # the timeout first: switching a new file to WAL needs a lock too
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode=WAL")
        # WAL's usual companion: a commit is not flushed to disk on its own, so the write
        # lock is held for a memory write instead of an fsync; a commit survives
        # errkb crashing, and only an OS crash or power cut can lose the last ones
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        unit = conn.get_execution_options().get(UNIT)
        read_only = unit == "read"
        if conn.info.get("query_only", False) != read_only:
            _driver_sql(conn, f"PRAGMA query_only={'ON' if read_only else 'OFF'}")
            conn.info["query_only"] = read_only
        wait = int(conn.get_execution_options().get(WAIT_MS, BUSY_TIMEOUT_MS))
        if conn.info.get("busy_timeout", BUSY_TIMEOUT_MS) != wait:
            _driver_sql(conn, f"PRAGMA busy_timeout={wait}")
            conn.info["busy_timeout"] = wait
        _driver_sql(conn, "BEGIN IMMEDIATE" if unit == "write" else "BEGIN")


def _driver_sql(conn: Connection, sql: str) -> None:
    """Run ``sql`` on the SQLite driver's connection itself. These statements start every
    unit of work, where SQLAlchemy's execution path (its events, a result object) costs
    more than the statement; a failure is raised as SQLAlchemy's error, as
    ``exec_driver_sql`` raises it (a locked database is an :class:`OperationalError`)."""
    try:
        conn.connection.driver_connection.execute(sql)  # type: ignore[union-attr]
    except sqlite3.Error as exc:
        raise DBAPIError.instance(sql, None, exc, sqlite3.Error) from exc


def _unit_engine(engine: Engine, unit: str) -> Engine:
    options: dict[str, Any] = {UNIT: unit}
    if unit == "read" and engine.dialect.name == "postgresql":
        options.update(isolation_level="REPEATABLE READ", postgresql_readonly=True)
    return engine.execution_options(**options)


# -- schema ----------------------------------------------------------------------


def alembic_config(engine: Engine, connection: Connection | None = None) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(resources.files("bot.store") / "migrations"))
    config.attributes["engine"] = engine
    if connection is not None:
        config.attributes["connection"] = connection
    return config


def schema_revision(connection: Connection) -> str | None:
    """The database's Alembic revision; None when it has no errkb schema at all."""
    if not inspect(connection).has_table("alembic_version"):
        return None
    return connection.scalar(text("SELECT version_num FROM alembic_version"))


def migrate_schema(engine: Engine) -> tuple[str | None, str]:
    """Bring the schema to the newest revision; ``(revision before, revision after)``.

    One transaction that first takes a lock (SQLite: ``BEGIN IMMEDIATE``;
    PostgreSQL: a transaction-scoped advisory lock), so of several processes
    migrating at once one does the work and the others find it done.
    """
    from alembic import command

    try:
        with engine.connect() as connection:
            connection = connection.execution_options(**{UNIT: "write"})
            with connection.begin():
                if connection.dialect.name == "postgresql":
                    connection.execute(
                        text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK}
                    )
                before = schema_revision(connection)
                if _newer(before):
                    raise _refusal(before)
                if before != SCHEMA_REVISION:
                    command.upgrade(alembic_config(engine, connection), "head")
                after = schema_revision(connection)
    except OperationalError as exc:
        raise StorageUnavailable(f"cannot reach the database: {exc.orig}") from exc
    if before != after:
        log.info("database schema migrated", extra={"before": before, "after": after})
    return before, after or SCHEMA_REVISION


def upgrade(engine: Engine) -> None:
    """Create or upgrade the schema to the newest migration (see :func:`migrate_schema`)."""
    migrate_schema(engine)


def check_schema(engine: Engine) -> None:
    """Refuse, in one line, a database without the schema this errkb needs."""
    try:
        with engine.connect() as connection:
            current = schema_revision(connection)
    except OperationalError as exc:
        raise StorageUnavailable(f"cannot reach the database: {exc.orig}") from exc
    if current != SCHEMA_REVISION:
        raise _refusal(current)


def _newer(revision: str | None) -> bool:
    """A revision of a newer errkb (revisions are numbered in order)."""
    return bool(revision and revision.isdigit() and int(revision) > int(SCHEMA_REVISION))


def _refusal(current: str | None) -> SchemaOutOfDate:
    if current is None:
        return SchemaOutOfDate(
            f"the database has no errkb schema (this errkb needs revision {SCHEMA_REVISION}): "
            "run `errkb init`"
        )
    if _newer(current):
        return SchemaOutOfDate(
            f"the database schema is at revision {current}, newer than this errkb's "
            f"{SCHEMA_REVISION}: upgrade errkb"
        )
    return SchemaOutOfDate(
        f"the database schema is at revision {current}, this errkb needs {SCHEMA_REVISION}: "
        "run `errkb migrate`"
    )


# -- units of work ----------------------------------------------------------------


class WriteTurn:
    """SQLite's one writer, as this process's threads queue for it: re-entrant, woken in turn
    rather than polling SQLite's lock with sleeps, and ``urgent`` writers (someone waits on
    them) go before the others, so that under load an acknowledgement does not queue
    behind several answers' transactions."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._urgent = threading.Condition(self._lock)
        self._others = threading.Condition(self._lock)
        self._owner: int | None = None
        self._depth = 0
        self._urgent_waiting = 0
        self._waiting = 0

    @property
    def queued(self) -> int:
        """Threads waiting for their turn now."""
        with self._lock:
            return self._waiting

    def acquire(self, timeout: float, *, urgent: bool = False) -> bool:
        me = threading.get_ident()
        deadline = time.monotonic() + timeout
        with self._lock:
            if self._owner == me:
                self._depth += 1
                return True
            queue = self._urgent if urgent else self._others
            self._urgent_waiting += urgent
            self._waiting += 1
            try:
                while self._owner is not None or (not urgent and self._urgent_waiting):
                    left = deadline - time.monotonic()
                    if left <= 0:
                        if self._owner is None:  # a turn handed to this waiter goes to the next
                            self._wake_next(leaving=urgent)
                        return False
                    queue.wait(left)
                self._owner = me
                self._depth = 1
                return True
            finally:
                self._urgent_waiting -= urgent
                self._waiting -= 1

    def release(self) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0:
                self._owner = None
                self._wake_next()

    def _wake_next(self, leaving: bool = False) -> None:
        if self._urgent_waiting - leaving > 0:
            self._urgent.notify()
        else:
            self._others.notify()


def _left_ms(deadline: float) -> int:
    """What is left of a write unit's wait, in milliseconds (at least one)."""
    return int(max(deadline - time.monotonic(), 0.001) * 1000)


@dataclass
class Store:
    """The database's units of work: :meth:`transaction` and :meth:`read` hand out ORM
    sessions, :meth:`write_rows` and :meth:`read_rows` plain Core connections. The ORM is
    imported when the first session is: a command that only reads rows (``errkb triage``)
    never loads it."""

    engine: Engine
    #: SQLite has one writer at a time: this process's writers queue here (None on PostgreSQL).
    writer: WriteTurn | None = None
    #: Whether writes are refused (a full disk, a read-only database): see :meth:`check_writable`.
    writes: WriteHealth = field(default_factory=WriteHealth)

    @classmethod
    def on(cls, engine: Engine) -> Store:
        return cls(engine=engine, writer=WriteTurn() if engine.dialect.name == "sqlite" else None)

    @cached_property
    def sessions(self) -> sessionmaker[Session]:
        """Sessions of :meth:`transaction`."""
        from sqlalchemy.orm import sessionmaker

        return sessionmaker(self.writing, expire_on_commit=False)

    @cached_property
    def readers(self) -> sessionmaker[Session]:
        """Sessions of :meth:`read`."""
        from sqlalchemy.orm import sessionmaker

        return sessionmaker(self.reading, expire_on_commit=False)

    @cached_property
    def reading(self) -> Engine:
        """The engine whose transactions only read (a write in one is refused on SQLite)."""
        return _unit_engine(self.engine, "read")

    @cached_property
    def writing(self) -> Engine:
        """The engine whose transactions are write units, for a library that opens its own
        (Bolt's OAuth stores). On SQLite such a transaction takes the write lock at BEGIN: a
        deferred one that reads, then writes, fails at once when another writer commits
        between the two, whatever the busy timeout."""
        return _unit_engine(self.engine, "write")

    @contextmanager
    def transaction(self, *, wait: float | None = None) -> Iterator[Session]:
        """A unit of work that writes: committed on success, rolled back on error.

        On SQLite it waits at most ``wait`` seconds (default 30) for the write lock, its
        turn among this process's writers and SQLite's lock together, before
        :class:`StorageUnavailable`: a caller Slack is waiting on waits less, and before
        this process's other writers.
        """
        seconds = BUSY_TIMEOUT_MS / 1000 if wait is None else wait
        deadline = time.monotonic() + seconds
        with self._write_turn(seconds, urgent=wait is not None), self.sessions() as session:
            with self._refusals(), session.begin():
                if wait is not None and self.writer is not None:  # before the first statement
                    # one budget for both waits: the time spent queued for this process's
                    # turn is not waited again on SQLite's lock
                    session.connection(execution_options={WAIT_MS: _left_ms(deadline)})
                yield session

    @contextmanager
    def write_rows(self, *, wait: float | None = None) -> Iterator[Connection]:
        """:meth:`transaction` as a Core connection, for a unit of plain statements that
        runs on every request (the intake's): no ORM session to set up and close."""
        seconds = BUSY_TIMEOUT_MS / 1000 if wait is None else wait
        deadline = time.monotonic() + seconds
        with self._write_turn(seconds, urgent=wait is not None), self._refusals():
            with self.writing.connect() as connection:
                if wait is not None and self.writer is not None:
                    connection.execution_options(**{WAIT_MS: _left_ms(deadline)})
                with connection.begin():
                    yield connection

    @contextmanager
    def _refusals(self) -> Iterator[None]:
        """A write unit's database errors: a lock, a connection lost or a database that
        takes no writes is :class:`StorageUnavailable`; every outcome is noted for
        :meth:`check_writable`."""
        try:
            yield
        except DBAPIError as exc:
            self.writes.noted(exc)  # a read-only PostgreSQL's refusal is no OperationalError
            if isinstance(exc, OperationalError) or unwritable_reason(exc):
                raise StorageUnavailable(f"database error: {exc.orig}") from exc
            raise
        self.writes.noted(None)

    def check_writable(self) -> str | None:
        """Why the database takes no writes (one line), or None; makes one write of nothing
        when one is due (:mod:`bot.store.writable`), else says what the last write met."""
        if self.writes.due():
            from bot.store.writable import write_nothing

            try:
                with self.transaction(wait=1.0) as session:
                    write_nothing(session.connection())
            except (StorageUnavailable, DBAPIError):
                pass  # noted by the transaction when it says the database takes no writes
            self.writes.checked()
        return self.writes.refused

    @contextmanager
    def _write_turn(self, seconds: float, *, urgent: bool) -> Iterator[None]:
        if self.writer is None:
            yield
            return
        if not self.writer.acquire(seconds, urgent=urgent):
            raise StorageUnavailable(
                f"database is locked: another writer held it for {seconds:g} s"
            )
        try:
            yield
        finally:
            self.writer.release()

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A unit of work that only reads, from one snapshot; a write in it is refused."""
        with self.readers() as session:
            try:
                with session.begin():
                    yield session
            except OperationalError as exc:
                raise StorageUnavailable(f"database error: {exc.orig}") from exc

    @contextmanager
    def read_rows(self) -> Iterator[Connection]:
        """:meth:`read` as a Core connection: plain rows from one snapshot, no ORM."""
        try:
            with self.reading.connect() as connection, connection.begin():
                yield connection
        except OperationalError as exc:
            raise StorageUnavailable(f"database error: {exc.orig}") from exc

    def dispose(self) -> None:
        self.engine.dispose()


def open_store(url: str, *, migrate: bool = False, check: bool = True) -> Store:
    """The database at ``url``; ``migrate`` brings its schema up to date first,
    ``check`` refuses one that is not (:class:`SchemaOutOfDate`)."""
    engine = make_engine(url)
    try:
        if migrate:
            migrate_schema(engine)
        elif check:
            check_schema(engine)
    except BaseException:
        engine.dispose()
        raise
    return Store.on(engine)
