"""Migrations and models never drift, on whichever database the suite runs."""

from __future__ import annotations

from alembic import command
from sqlalchemy import inspect

from bot.store.db import Store, alembic_config, upgrade


def test_upgrade_head_then_alembic_check_finds_nothing(store: Store) -> None:
    upgrade(store.engine)  # idempotent on an up-to-date database
    command.check(alembic_config(store.engine))  # raises when models and migrations differ


def test_schema_has_the_tables_the_bot_asks_for(store: Store) -> None:
    tables = set(inspect(store.engine).get_table_names())
    assert {"records", "record_translations", "workarounds", "dead_ends", "links", "audit_log"} <= tables
