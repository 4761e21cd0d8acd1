"""Database URLs read without SQLAlchemy (:mod:`bot.store.urls`) read as SQLAlchemy reads them:
the same backend (or the same refusal), the same SQLite file, and no password shown."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy.engine import URL, make_url

from bot.store.urls import backend_name, sqlite_file, without_password

SCHEMES = ["sqlite", "sqlite+pysqlite", "postgresql", "postgresql+psycopg", "mysql"]


def _sqlalchemy(url: str) -> URL | None:
    try:
        return make_url(url)
    except Exception:  # noqa: BLE001 - any refusal is the same refusal here
        return None


@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(SCHEMES), st.text(alphabet="ab:/@?[]=&%.0123456789", max_size=30))
def test_backend_and_sqlite_file_are_what_sqlalchemy_reads(scheme: str, rest: str) -> None:
    url = f"{scheme}://{rest}"
    parsed = _sqlalchemy(url)
    assert backend_name(url) == (parsed.get_backend_name() if parsed else None)
    found = sqlite_file(url)
    if found is not None:
        assert parsed is not None and found == parsed.database


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (
            "postgresql+psycopg://errkb:s3cr:t@db:5432/errkb",
            "postgresql+psycopg://errkb:***@db:5432/errkb",
        ),
        (
            "postgresql://errkb@db/errkb?sslmode=require",
            "postgresql://errkb@db/errkb?sslmode=require",
        ),
        ("sqlite:////var/lib/errkb/errkb.sqlite3", "sqlite:////var/lib/errkb/errkb.sqlite3"),
        ("not a url", "not a url"),
    ],
)
def test_the_password_is_never_shown(url: str, shown: str) -> None:
    assert without_password(url) == shown
    parsed = _sqlalchemy(url)
    if parsed is not None:
        assert without_password(url) == parsed.render_as_string(hide_password=True)


def test_only_a_plain_sqlite_file_has_a_file() -> None:
    assert sqlite_file("sqlite:///relative/errkb.db") == "relative/errkb.db"
    assert sqlite_file("sqlite:////abs/my%20errkb.db") == "/abs/my errkb.db"
    for other in (
        "sqlite://",
        "sqlite:///:memory:",
        "sqlite:///file:errkb.db?mode=ro&uri=true",
        "sqlite:///errkb.db?timeout=5",
        "sqlite+aiosqlite:///errkb.db",
        "postgresql:///errkb",
        "not a url",
    ):
        assert sqlite_file(other) is None, other
