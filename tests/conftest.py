"""Shared fixtures: a real database (SQLite file, or PostgreSQL via ERRKB_TEST_DATABASE_URL).

PostgreSQL runs get a database of their own, created for the session and
dropped after it. Each test that uses ``session`` runs inside an outer
transaction that is rolled back, with SAVEPOINTs for the code's own commits.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from bot.store.db import Store, open_store
from bot.store.tables import metadata

# CI draws the same examples on every run, so a red build names a change, not a draw;
# everyday runs draw new ones each time and keep what fails in .hypothesis/.
settings.register_profile("ci", derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("ERRKB_HYPOTHESIS_PROFILE", "default"))

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
DEADENDS = SHARED / "corpora" / "deadends" / "deadends-canons.jsonl.gz"
DEV_CASES = SHARED / "eval" / "dev.jsonl"
DATA = ROOT / "data"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def need_shared(path: Path = DEADENDS) -> Path:
    """The shared corpus file, or skip: it sits beside the checkout, not in it."""
    if not path.exists():
        pytest.skip(
            f"shared corpus not present ({path.name}); it lives in ../shared beside the checkout"
        )
    return path


def _postgres_database(base_url: str) -> Iterator[str]:
    url = make_url(base_url).set(drivername="postgresql+psycopg")
    name = f"errkb_test_{uuid.uuid4().hex[:10]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        admin.dispose()


@pytest.fixture(scope="session")
def database_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    base = os.environ.get("ERRKB_TEST_DATABASE_URL", "")
    if base.startswith("postgresql"):
        yield from _postgres_database(base)
    else:
        yield f"sqlite:///{tmp_path_factory.mktemp('db') / 'errkb.sqlite3'}"


@pytest.fixture
def blank_database_url(tmp_path: Path) -> Iterator[str]:
    """A database of its own with nothing in it (no schema), on the suite's kind of database."""
    base = os.environ.get("ERRKB_TEST_DATABASE_URL", "")
    if base.startswith("postgresql"):
        yield from _postgres_database(base)
    else:
        yield f"sqlite:///{tmp_path / 'blank.sqlite3'}"


@pytest.fixture(scope="session")
def store(database_url: str) -> Iterator[Store]:
    store = open_store(database_url, migrate=True)
    yield store
    store.dispose()


@pytest.fixture
def session(store: Store) -> Iterator[Session]:
    """A session whose every change is rolled back after the test."""
    connection = store.engine.connect()
    outer = connection.begin()
    session = Session(bind=connection, join_transaction_mode="create_savepoint")
    try:
        yield session
    finally:
        session.close()
        outer.rollback()
        connection.close()


def wipe(store: Store) -> None:
    with store.engine.begin() as conn:
        for table in reversed(metadata.sorted_tables):
            conn.execute(table.delete())


@pytest.fixture
def committed_store(
    store: Store, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Store]:
    """The test database for code that commits (the CLI); emptied before and after. Its
    knowledge snapshots go to a folder of the test's own."""
    wipe(store)
    monkeypatch.setenv("ERRKB_DATABASE_URL", store.engine.url.render_as_string(hide_password=False))
    monkeypatch.setenv("ERRKB_CACHE_DIR", str(tmp_path / "cache"))
    yield store
    wipe(store)
