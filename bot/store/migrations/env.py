"""Alembic environment: runs on the connection (or engine) errkb hands over, else
ERRKB_DATABASE_URL.

``bot.store.db.migrate_schema`` hands over a connection already inside the
transaction that holds the migration lock; the migrations run in it and it
commits. Alone (the ``alembic`` command line) this opens its own.
"""

from __future__ import annotations

from alembic import context
from sqlalchemy import Connection

from bot.store.oauth import oauth_metadata
from bot.store.tables import metadata

config = context.config
#: errkb's own tables and those of slack_sdk's OAuth stores: ``alembic check`` covers both.
target_metadata = [metadata, oauth_metadata()]


def _configure(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        render_as_batch=connection.dialect.name == "sqlite",
        compare_type=True,
    )


def run_migrations_online() -> None:
    connection = config.attributes.get("connection")
    if connection is not None:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        return
    engine = config.attributes.get("engine")
    if engine is None:
        from bot.settings import load_settings
        from bot.store.db import make_engine

        engine = make_engine(load_settings().database_url)
    with engine.connect() as connection:
        _configure(connection)
        with context.begin_transaction():
            context.run_migrations()
        connection.commit()


run_migrations_online()
