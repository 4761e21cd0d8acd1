"""Engines, sessions and migrations: the database edge.

``open_store(url)`` makes sure the database exists and is at the newest
migration, then returns a :class:`Store` holding the engine and a session
factory. Repository functions never commit; ``Store.transaction()`` does.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.orm import Session, sessionmaker

from bot.errors import StorageUnavailable

log = logging.getLogger(__name__)
READ_ONLY = "errkb_read_only"
WAIT_MS = "errkb_wait_ms"
SQLITE_BUSY_MS = 30_000  # how long a writer waits for another's lock, unless told otherwise


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An engine for ``url``; SQLite gets its folder created, foreign keys and WAL on."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        database = parsed.database
        if database and database != ":memory:" and not database.startswith("file:"):
            Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, **kwargs)
        _sqlite_pragmas(engine)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.get_driver_name() in ("", "psycopg2"):
        url = parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    return create_engine(url, pool_pre_ping=True, **kwargs)


def _sqlite_pragmas(engine: Engine) -> None:
    # pysqlite's own transaction handling breaks SAVEPOINT; let SQLAlchemy emit BEGIN
    # (the recipe in SQLAlchemy's SQLite dialect documentation).
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Any) -> None:
        # A writer takes the write lock up front and waits for it (busy_timeout); a
        # deferred BEGIN that reads then writes fails at once when another writer
        # committed in between. Read-only units of work (Store.read) stay deferred.
        options = conn.get_execution_options()
        conn.exec_driver_sql(f"PRAGMA busy_timeout={int(options.get(WAIT_MS, SQLITE_BUSY_MS))}")
        conn.exec_driver_sql("BEGIN" if options.get(READ_ONLY) else "BEGIN IMMEDIATE")


def alembic_config(engine: Engine) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(resources.files("bot.store") / "migrations"))
    config.attributes["engine"] = engine
    return config


def upgrade(engine: Engine) -> None:
    """Create or upgrade the schema to the newest migration."""
    from alembic import command

    try:
        command.upgrade(alembic_config(engine), "head")
    except OperationalError as exc:
        raise StorageUnavailable(f"cannot reach the database: {exc.orig}") from exc


@dataclass
class Store:
    engine: Engine
    sessions: sessionmaker[Session]

    @contextmanager
    def transaction(self, *, wait: float | None = None) -> Iterator[Session]:
        """A session whose work is committed on success and rolled back on error.

        On SQLite it holds the write lock from the start (see ``make_engine``),
        waiting for it at most ``wait`` seconds (default 30) before
        :class:`StorageUnavailable`: a caller Slack is waiting on waits less.
        """
        with self.sessions() as session:
            try:
                with session.begin():
                    if wait is not None:  # before the first statement: it is what BEGINs
                        session.connection(execution_options={WAIT_MS: int(wait * 1000)})
                    yield session
            except OperationalError as exc:
                raise StorageUnavailable(f"database error: {exc.orig}") from exc

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A session for reading only: on SQLite it takes no write lock."""
        with self.sessions() as session:
            try:
                session.connection(execution_options={READ_ONLY: True})
                yield session
                session.rollback()
            except OperationalError as exc:
                raise StorageUnavailable(f"database error: {exc.orig}") from exc

    def dispose(self) -> None:
        self.engine.dispose()


def open_store(url: str, *, migrate: bool = True) -> Store:
    engine = make_engine(url)
    if migrate:
        upgrade(engine)
    return Store(engine=engine, sessions=sessionmaker(engine, expire_on_commit=False))
