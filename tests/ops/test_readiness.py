"""``/healthz`` means current: after a restart from a snapshot older than the database it
says ``starting`` until the change feed is applied, and a database that takes no writes
(a read-only one here; a full disk in tests/store/test_writable.py) shows as broken."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from benchmarks.synthetic_kb import synthetic_records
from bot.store import repository
from bot.store.db import Store
from tests.ops.conftest import ServeProcess
from tests.slack.conftest import PASTE
from tests.slack.fake_slack import FakeSlack

IMPORTED = 2_500


@pytest.mark.slow
def test_a_restart_from_an_older_snapshot_is_starting_until_caught_up(
    serve: Any, kb_store: Store
) -> None:
    first: ServeProcess = serve().ready()
    before = first.health()[1]["knowledge_base"]["records"]
    first.terminate()  # a clean stop writes the snapshot
    assert first.wait() == 0
    with kb_store.transaction() as session:
        repository.import_records(
            session,
            records=synthetic_records(IMPORTED),
            on_conflict="fail",
            actor="test",
            now=datetime.now(UTC),
        )
    total = before + IMPORTED

    second: ServeProcess = serve().listening()
    seen: list[tuple[int, str, int]] = []
    deadline = time.monotonic() + 120
    while True:
        status, body = second.health()
        seen.append((status, body["status"], body["knowledge_base"]["records"]))
        if status == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    second.wait_for_line("restored from its snapshot")
    assert seen[-1] == (200, "ok", total), seen[-5:]
    assert {s for s in seen[:-1]} <= {(503, "starting", 0)}, "never ready with the old records"
    assert not [line for line in second.lines if "Traceback" in line]


@pytest.mark.slow
def test_a_read_only_database_shows_as_broken(
    serve: Any, kb_store: Store, fake_slack: FakeSlack
) -> None:
    database = Path(str(kb_store.engine.url.database))
    if kb_store.engine.dialect.name != "sqlite":
        return  # a read-only PostgreSQL is a server setting; the classification is unit-tested
    url = f"sqlite:///file:{database}?mode=ro&uri=true"
    bot: ServeProcess = serve(ERRKB_DATABASE_URL=url).listening()
    deadline = time.monotonic() + 30
    while (found := bot.health())[1]["status"] != "broken":
        assert time.monotonic() < deadline, found
        time.sleep(0.1)
    status, body = found
    assert status == 503 and body["writable"] is False and body["database"] is True
    assert body["reason"].startswith("database takes no writes (read-only)")
    response, _ = bot.sender(fake_slack).message(PASTE)
    assert response.status == 503, "a paste it cannot keep is not acknowledged"
