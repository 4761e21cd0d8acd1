"""Units of work on a real database: writers queue, readers see one snapshot and cannot write."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from datetime import date

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from bot.errors import StorageUnavailable
from bot.store import digest_repo, repository, slack_repo, tables
from bot.store.db import BUSY_TIMEOUT_MS, Store, WriteTurn
from bot.store.models import UnknownErrorRow
from tests.store.test_changes import record
from tests.store.test_repository import NOW


def test_a_read_unit_refuses_to_write(committed_store: Store) -> None:
    # SQLite: "attempt to write a readonly database"; PostgreSQL: "read-only transaction"
    with pytest.raises((StorageUnavailable, DBAPIError)), committed_store.read() as session:
        slack_repo.choose_locale(session, user_id="U1", locale="zh", at=NOW)
    with committed_store.read() as session:  # and the connection it had reads normally again
        assert slack_repo.chosen_locale(session, user_id="U1") is None
    with committed_store.transaction() as session:  # a writer on the same pool writes
        slack_repo.choose_locale(session, user_id="U1", locale="zh", at=NOW)
    with committed_store.read() as session:
        assert slack_repo.chosen_locale(session, user_id="U1") == "zh"


def test_a_read_unit_sees_one_snapshot_while_others_commit(committed_store: Store) -> None:
    with committed_store.transaction() as session:
        repository.import_records(
            session, records=[record("u/a")], on_conflict="upsert", actor="t", now=NOW
        )
    with committed_store.read() as session:
        version = repository.knowledge_version(session)
        with committed_store.transaction() as other:  # commits while the reader is open
            repository.import_records(
                other, records=[record("u/b")], on_conflict="upsert", actor="t", now=NOW
            )
        assert repository.knowledge_version(session) == version
        assert [r.id for r in repository.load_records(session)] == ["u/a"]
    with committed_store.read() as session:
        assert repository.knowledge_version(session) == version + 1


def test_a_row_reader_sees_one_snapshot_and_refuses_to_write(committed_store: Store) -> None:
    """``Store.read_rows()`` (what ``errkb triage`` reads through): ``read()`` without the ORM."""
    with committed_store.transaction() as session:
        repository.import_records(
            session, records=[record("u/a")], on_conflict="upsert", actor="t", now=NOW
        )
    with committed_store.read_rows() as rows:
        assert [r.id for r in repository.load_records(rows)] == ["u/a"]
        with committed_store.transaction() as other:  # commits while the reader is open
            repository.import_records(
                other, records=[record("u/b")], on_conflict="upsert", actor="t", now=NOW
            )
        assert [r.id for r in repository.load_records(rows)] == ["u/a"]
    with committed_store.read_rows() as rows:
        assert [r.id for r in repository.load_records(rows)] == ["u/a", "u/b"]
    choice = tables.slack_users.insert().values(user_id="U1", locale="zh", updated_at=NOW)
    with pytest.raises((StorageUnavailable, DBAPIError)), committed_store.read_rows() as rows:
        rows.execute(choice)
    with committed_store.read() as session:
        assert slack_repo.chosen_locale(session, user_id="U1") is None


def test_concurrent_writers_that_read_first_all_succeed_and_count_exactly(
    committed_store: Store,
) -> None:
    """Votes read the record, then write it: with deferred transactions SQLite failed some
    of these with "database is locked"; writers now queue for the lock."""
    with committed_store.transaction() as session:
        repository.import_records(
            session,
            records=[record("u/a", evidence_count=0)],
            on_conflict="upsert",
            actor="t",
            now=NOW,
        )
    threads = 4
    each = 10

    def vote(worker: int) -> int:
        done = 0
        for i in range(each):
            with committed_store.transaction() as session:
                assert slack_repo.record_evidence(
                    session, record_id="u/a", actor=f"w{worker}", today=date(2026, 12, 1), at=NOW
                )
                slack_repo.note_unknown(
                    session, template="Boom <n>", sample=f"Boom {i}", permalink=None, at=NOW
                )
            done += 1
        return done

    with ThreadPoolExecutor(threads) as pool:
        assert sum(pool.map(vote, range(threads))) == threads * each
    with committed_store.read() as session:
        stored = repository.get_record(session, record_id="u/a")
        count = session.scalar(select(UnknownErrorRow.count))
    assert stored is not None and stored.evidence_count == threads * each
    assert count == threads * each


def test_a_writer_waits_for_another_writer_instead_of_failing(committed_store: Store) -> None:
    with committed_store.transaction() as session:
        repository.import_records(
            session, records=[record("u/a")], on_conflict="upsert", actor="t", now=NOW
        )
    holding = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with committed_store.transaction() as session:
            digest_repo.deprecate_record(session, record_id="u/a", reason="x", actor="m", now=NOW)
            holding.set()
            release.wait(10)

    holder = threading.Thread(target=hold)
    holder.start()
    assert holding.wait(10)
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(_import_b, committed_store)
        release.set()
        assert waiting.result(timeout=30) == ["u/b"]
    holder.join(10)
    with committed_store.read() as session:
        assert repository.knowledge_version(session) >= 3
        assert {r.id for r in repository.load_records(session, include_deprecated=False)} == {"u/b"}


def _import_b(store: Store) -> list[str]:
    with store.transaction() as session:
        summary = repository.import_records(
            session, records=[record("u/b")], on_conflict="upsert", actor="t", now=NOW
        )
    return summary.added


def test_sqlite_waits_long_for_the_write_lock(store: Store) -> None:
    if store.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's busy timeout")
    with store.engine.connect() as conn:
        assert conn.execute(text("PRAGMA busy_timeout")).scalar() == BUSY_TIMEOUT_MS >= 10_000
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 1  # NORMAL: no fsync per commit


def test_a_writer_someone_waits_on_waits_once_for_its_turn_and_the_lock_together(
    store: Store,
) -> None:
    """An acknowledgement's wait is one budget: the time queued behind this process's other
    writers is not waited again on SQLite's lock (Slack gives up on it after 3 s)."""
    if store.engine.dialect.name != "sqlite":
        pytest.skip("SQLite's one writer")
    assert store.writer is not None
    held = threading.Event()
    release = threading.Event()

    def hold_the_turn() -> None:
        with store.transaction():
            held.set()
            release.wait(10)

    holder = threading.Thread(target=hold_the_turn)
    holder.start()
    assert held.wait(10)
    threading.Timer(0.6, release.set).start()
    with store.transaction(wait=1.5) as session:
        left_ms = session.connection().exec_driver_sql("PRAGMA busy_timeout").scalar()
    holder.join(10)
    assert 0 < left_ms <= 900, "SQLite's lock gets what the turn left of the 1.5 s, not 1.5 s more"


def _queue_writers(
    turn: WriteTurn, writers: list[tuple[str, bool, float]], order: list[str]
) -> list[threading.Thread]:
    """Start ``writers`` (name, urgent, timeout) one after another, each waiting before the next
    comes."""

    def write(name: str, urgent: bool, timeout: float) -> None:
        if turn.acquire(timeout, urgent=urgent):
            order.append(name)
            turn.release()
        else:
            order.append(f"{name} gave up")

    threads = []
    for writer in writers:
        threads.append(threading.Thread(target=write, args=writer))
        threads[-1].start()
        while turn.queued < len(threads) and threads[-1].is_alive():
            threading.Event().wait(0.001)
    return threads


def test_a_writer_someone_waits_on_goes_before_the_others() -> None:
    turn = WriteTurn()
    order = []
    assert turn.acquire(1.0)
    waiting = _queue_writers(
        turn,
        [("answer", False, 10), ("another answer", False, 10), ("acknowledgement", True, 10)],
        order,
    )
    turn.release()
    for thread in waiting:
        thread.join(10)
    assert order[0] == "acknowledgement" and sorted(order[1:]) == ["another answer", "answer"]


def test_a_writer_that_gives_up_does_not_hold_up_the_next() -> None:
    turn = WriteTurn()
    order = []
    assert turn.acquire(1.0)
    waiting = _queue_writers(turn, [("impatient", True, 0.05), ("answer", False, 10)], order)
    waiting[0].join(10)
    turn.release()
    waiting[1].join(10)
    assert order == ["impatient gave up", "answer"]
