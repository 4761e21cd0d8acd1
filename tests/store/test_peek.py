"""A triage from the snapshot reads an SQLite database without the store (:mod:`bot.store.peek`):
what it reads is what the store's own queries read, votes cast since the snapshot was written
show, and anything out of the ordinary is left to the store, which says what is wrong."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import select, text, update

from bot.store import SCHEMA_REVISION, tables
from bot.store.db import Store
from bot.store.loading import workaround_counts
from bot.store.observed import list_observed
from bot.store.peek import Peek, peek, peek_counts
from tests.test_cli import EXAMPLES, run

NCCL = "llm/nccl-shm-extend-failed"


@pytest.fixture
def sqlite_store(committed_store: Store, capsys: pytest.CaptureFixture[str]) -> Iterator[Store]:
    """The starter knowledge base in the test database, which must be SQLite here."""
    if committed_store.engine.dialect.name != "sqlite":
        assert peek(url(committed_store)) is None  # PostgreSQL is always read through the store
        pytest.skip("the quick read is SQLite's: on PostgreSQL a triage reads through the store")
    code, _, err = run(capsys, "init")
    assert code == 0, err
    yield committed_store


def url(store: Store) -> str:
    return store.engine.url.render_as_string(hide_password=False)


def triage(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    code, out, err = run(capsys, "triage", *argv, "--json")
    assert code == 0, err
    answer: dict[str, object] = json.loads(out)
    return answer


def vote(store: Store, record_id: str, fixed: int, failed: int) -> None:
    table = tables.workarounds
    with store.engine.begin() as connection:
        connection.execute(
            update(table)
            .where(table.c.record_id == record_id, table.c.position == 0)
            .values(fixed_count=fixed, failed_count=failed)
        )


def test_the_quick_read_is_what_the_store_reads(
    sqlite_store: Store, capsys: pytest.CaptureFixture[str]
) -> None:
    for paste in ("nccl-timeout.txt", "nccl-shm-docker.txt", "vllm-oom.txt"):  # one session
        triage(capsys, str(EXAMPLES / paste), "--session", "s")
    vote(sqlite_store, NCCL, 3, 1)
    state = tables.kb_state
    with sqlite_store.read_rows() as rows:
        values = {key: value for key, value in rows.execute(select(state.c.key, state.c.value))}
        observed = list_observed(rows)
        ids = [row[0] for row in rows.execute(select(tables.records.c.id))]
        counts = workaround_counts(rows, record_ids=ids)
    assert observed and counts[(NCCL, 0)] == (3, 1)  # something to compare
    expected = Peek(values["kb_version"], values["knowledge_epoch"], observed)
    assert peek(url(sqlite_store)) == expected
    assert peek_counts(url(sqlite_store), ids) == counts
    assert peek_counts(url(sqlite_store), []) == {}


def test_votes_cast_after_the_snapshot_was_written_show_in_the_next_triage(
    sqlite_store: Store, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    paste = str(EXAMPLES / "nccl-shm-docker.txt")
    before = triage(capsys, paste)  # builds, and writes the snapshot
    [written] = (tmp_path / "cache").glob("knowledge-*.pickle")
    vote(sqlite_store, NCCL, 4, 2)  # votes do not move the knowledge version
    after = triage(capsys, paste)
    assert before != after
    best = after["best"]
    assert isinstance(best, dict) and best["id"] == NCCL
    assert (best["workarounds"][0]["fixed"], best["workarounds"][0]["failed"]) == (4, 2)
    assert (
        written.stat().st_mtime_ns == next((tmp_path / "cache").glob("*.pickle")).stat().st_mtime_ns
    )


def test_anything_out_of_the_ordinary_is_left_to_the_store(
    sqlite_store: Store, tmp_path: Path
) -> None:
    database = url(sqlite_store)
    assert peek(database) is not None
    garbage = tmp_path / "not-a-database.db"
    garbage.write_bytes(b"this is not an SQLite file" * 100)
    for other in (
        f"sqlite:///{tmp_path / 'missing.db'}",  # the store says there is no schema
        f"sqlite:///{garbage}",
        f"{database}?timeout=5",  # options the store applies
        "sqlite://",
        "sqlite:///%00",  # a name no file can have
        "postgresql+psycopg://errkb:secret@127.0.0.1:1/errkb",
    ):
        assert peek(other) is None, other
        assert peek_counts(other, [NCCL]) is None, other
    with sqlite_store.engine.begin() as connection:
        connection.execute(text("UPDATE alembic_version SET version_num = '0004'"))
    try:
        assert peek(database) is None  # the store refuses it, and says to migrate
    finally:
        with sqlite_store.engine.begin() as connection:
            connection.execute(
                text("UPDATE alembic_version SET version_num = :v"), {"v": SCHEMA_REVISION}
            )
    with sqlite_store.engine.begin() as connection:
        connection.execute(
            tables.kb_state.delete().where(tables.kb_state.c.key == "knowledge_epoch")
        )
    assert peek(database) is None  # the store gives it an epoch
