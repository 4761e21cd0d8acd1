"""Migrations and models never drift, on whichever database the suite runs."""

from __future__ import annotations

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from bot.store.db import Store, alembic_config, upgrade
from bot.store.oauth import oauth_metadata


def test_upgrade_head_then_alembic_check_finds_nothing(store: Store) -> None:
    upgrade(store.engine)  # idempotent on an up-to-date database
    command.check(alembic_config(store.engine))  # raises when models and migrations differ


def test_schema_has_the_tables_the_bot_asks_for(store: Store) -> None:
    tables = set(inspect(store.engine).get_table_names())
    assert {"records", "record_translations", "workarounds", "dead_ends", "links", "audit_log"} <= tables


def test_slack_oauth_store_tables_come_from_the_migrations_and_match_slack_sdk(store: Store) -> None:
    metadata = oauth_metadata()
    assert set(metadata.tables) <= set(inspect(store.engine).get_table_names())
    with store.engine.connect() as conn:
        diffs = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), metadata)
    ours = [d for d in diffs if "slack_installations" in str(d) or "slack_bots" in str(d) or "slack_oauth" in str(d)]
    assert ours == []
