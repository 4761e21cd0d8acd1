"""``INSERT … ON CONFLICT`` for the two databases errkb runs on.

SQLite and PostgreSQL both speak it, each through its own SQLAlchemy dialect's
``insert``; an upsert is then one statement, never a read followed by a write
that a concurrent writer can slip between.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection

if TYPE_CHECKING:
    from sqlalchemy.dialects import postgresql, sqlite
    from sqlalchemy.orm import Session

    Insert = postgresql.Insert | sqlite.Insert


def dialect_name(unit: Session | Connection | str) -> str:
    """The dialect's name of a unit of work (an ORM session or a Core connection), or the
    name itself."""
    if isinstance(unit, str):
        return unit
    if isinstance(unit, Connection):
        return unit.dialect.name
    return unit.get_bind().dialect.name


def insert(session: Session | Connection | str, table: Any) -> Insert:
    """The dialect's ``insert(table)``, which has ``on_conflict_do_nothing/do_update``
    (``session``: one bound to the database, or the dialect's name). Each dialect is
    imported when first used: PostgreSQL's brings all its drivers along."""
    name = dialect_name(session)
    if name == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(table)
    if name == "sqlite":
        from sqlalchemy.dialects import sqlite

        return sqlite.insert(table)
    raise NotImplementedError(f"errkb runs on SQLite or PostgreSQL, not {name}")


def insert_ignoring_conflicts(
    session: Session | Connection, table: Any, values: dict[str, Any]
) -> bool:
    """``INSERT … ON CONFLICT DO NOTHING``; True when the row went in."""
    statement = _ignoring_conflicts(dialect_name(session), table)
    return session.execute(statement, values).first() is not None


@functools.cache
def _ignoring_conflicts(dialect: str, table: Any) -> Any:
    """Built once per dialect and table: some run on every paste, and building one costs
    more than running it."""
    key = next(iter(table.primary_key.columns))
    return insert(dialect, table).on_conflict_do_nothing().returning(key)
