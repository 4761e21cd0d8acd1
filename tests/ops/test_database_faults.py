"""The database having a bad day, and a server dying: nothing acknowledged is lost or doubled.

Real ``errkb serve`` processes; events come the way Slack sends them, with
Slack's redeliveries of anything not acknowledged (time-compressed,
:mod:`tests.ops.delivery`). Each figure is read from what the Slack
stand-in holds: one answer per pasted message.

- PostgreSQL stopped for 10 s and started again under 20 pastes/s;
- SQLite held by another writer for 12 s under 20 pastes/s;
- one of two replicas killed (SIGKILL) with 50 events in flight.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from typing import Any

import pytest
from sqlalchemy.engine import make_url

from bot.store import repository
from bot.store.db import open_store
from tests.ops.conftest import PrivatePostgres, ServeProcess
from tests.ops.delivery import Deliveries, lost_and_doubled, paste_event, wait_for_answers
from tests.slack.conftest import TODAY, kb_records
from tests.slack.fake_slack import FakeSlack

ON_POSTGRES = os.environ.get("ERRKB_TEST_DATABASE_URL", "").startswith("postgresql")
RATE = 20  # pastes a second
SCALE = 0.05  # Slack's one- and five-minute redelivery waits become 3 and 15 seconds


def _load(
    deliveries: Deliveries, seconds: float, events: list[str], during: dict[float, Any]
) -> None:
    """``RATE`` pastes a second for ``seconds``; ``during`` maps an elapsed time to what to
    start then."""
    started = time.monotonic()
    pending = sorted(during.items())
    for i in range(int(seconds * RATE)):
        at = started + i / RATE
        time.sleep(max(0.0, at - time.monotonic()))
        while pending and time.monotonic() - started >= pending[0][0]:
            threading.Thread(target=pending.pop(0)[1], daemon=True).start()
        ts = f"1723000000.{len(events) + 1:06d}"
        events.append(ts)
        deliveries.send(paste_event(ts, n=i))


def _settle(
    deliveries: Deliveries, fake: FakeSlack, events: list[str]
) -> tuple[list[str], list[str]]:
    deliveries.wait(timeout=120)
    unacknowledged = [o.ts for o in deliveries.outcomes if not o.acknowledged]
    assert not unacknowledged, f"Slack gave up on {len(unacknowledged)} event(s)"
    return lost_and_doubled(wait_for_answers(fake, events, timeout=90), events)


@pytest.mark.skipif(not ON_POSTGRES, reason="runs in the PostgreSQL pass of the suite")
def test_postgresql_stopped_for_ten_seconds_under_load_loses_and_doubles_nothing(
    private_postgres: PrivatePostgres, serve: Any, fake_slack: FakeSlack
) -> None:
    store = open_store(private_postgres.url, migrate=True)
    with store.transaction() as session:
        repository.import_records(
            session, records=kb_records(), on_conflict="fail", actor="test", now=TODAY
        )
    store.dispose()
    bot: ServeProcess = serve(
        ERRKB_DATABASE_URL=private_postgres.url, ERRKB_JOB_LEASE_SECONDS="5", ERRKB_WORKERS="8"
    ).ready()
    deliveries = Deliveries(bot.url, scale=SCALE)
    events = []
    _load(deliveries, 25, events, {5.0: private_postgres.stop, 15.0: private_postgres.start})
    lost, doubled = _settle(deliveries, fake_slack, events)
    assert (len(lost), len(doubled)) == (0, 0), f"lost {lost[:5]}…, doubled {doubled[:5]}…"
    refused = sum(1 for o in deliveries.outcomes for status, _ in o.attempts if status == 503)
    assert refused > 0, "while PostgreSQL was down, Slack was told to deliver again"


@pytest.mark.slow
@pytest.mark.skipif(ON_POSTGRES, reason="runs in the SQLite pass of the suite")
def test_sqlite_held_by_another_writer_for_twelve_seconds_loses_and_doubles_nothing(
    serve: Any, serve_env: dict[str, str], fake_slack: FakeSlack
) -> None:
    path = make_url(serve_env["ERRKB_DATABASE_URL"]).database
    assert path
    bot: ServeProcess = serve(ERRKB_WORKERS="8").ready()

    def hold_the_lock() -> None:
        other = sqlite3.connect(path, isolation_level=None, timeout=30)
        other.execute("BEGIN IMMEDIATE")
        time.sleep(12)
        other.execute("ROLLBACK")
        other.close()

    deliveries = Deliveries(bot.url, scale=SCALE)
    events = []
    _load(deliveries, 20, events, {4.0: hold_the_lock})
    lost, doubled = _settle(deliveries, fake_slack, events)
    assert (len(lost), len(doubled)) == (0, 0), f"lost {lost[:5]}…, doubled {doubled[:5]}…"
    assert not [line for line in bot.lines if "Traceback" in line]


@pytest.mark.skipif(
    not ON_POSTGRES, reason="replicas share a PostgreSQL database: the PostgreSQL pass"
)
def test_a_replica_killed_with_fifty_events_in_flight_leaves_them_to_the_other(
    serve: Any, fake_slack: FakeSlack
) -> None:
    a: ServeProcess = serve(ERRKB_JOB_LEASE_SECONDS="5", ERRKB_WORKERS="8").ready()
    b: ServeProcess = serve(ERRKB_JOB_LEASE_SECONDS="5", ERRKB_WORKERS="8").ready()
    fake_slack.hold("chat.postMessage")  # answers stop half-way: in flight
    deliveries = Deliveries(a.url, scale=SCALE)
    events = []
    for i in range(50):
        ts = f"1723100000.{i + 1:06d}"
        events.append(ts)
        deliveries.send(paste_event(ts, n=i))
    deliveries.wait(timeout=60)
    assert all(o.acknowledged for o in deliveries.outcomes)
    assert fake_slack.wait_for("chat.postMessage", 8, timeout=20), "answers were under way"
    a.proc.kill()  # SIGKILL: no clean stop, its claimed jobs keep their lease until it runs out
    a.proc.wait(timeout=10)
    fake_slack.release("chat.postMessage")
    lost, doubled = lost_and_doubled(wait_for_answers(fake_slack, events, timeout=90), events)
    assert (len(lost), len(doubled)) == (0, 0), f"lost {lost[:5]}…, doubled {doubled[:5]}…"
    assert b.proc.poll() is None
