"""Faults against a real ``errkb serve --http``: a stored regex RE2 refuses with the worst
pastes for it, and unsigned 50 MB bodies with slow connections. The server keeps answering,
/healthz keeps answering, memory stays put, and SIGTERM still stops it. (The figures:
benchmarks/bench_faults.py.)"""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.records import STORED, Record
from bot.store import repository
from bot.store.db import Store
from tests.ops.conftest import ServeProcess
from tests.slack.conftest import ACK_S, PASTE
from tests.slack.fake_slack import FakeSlack

BOMB = Record.model_validate(
    {
        "id": "test/lookahead-bomb",
        "signature": "BombError: aaaa",
        "regex": r"BombError: (?=a)(a+)+$",
        "domain": "x",
    },
    context=STORED,  # as an older errkb stored it: today's import refuses it
)
WORST = [
    "BombError: " + "a" * 40 + "!",
    "BombError: " + "a" * 10_000 + "!",
    "RuntimeError: dataloader " + "batch not " * 1_000 + "x" * 2_000,
]
MB = 1 << 20


def rss(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS")


@contextmanager
def healthz_polled(bot: ServeProcess) -> Iterator[list[bool]]:
    """Ask /healthz every 0.1 s while the block runs; yields the outcomes."""
    seen: list[bool] = []
    stop = threading.Event()

    def check() -> None:
        try:
            seen.append('"ok": true' in bot.get("/healthz"))
        except OSError:
            seen.append(False)

    def poll() -> None:
        check()
        while not stop.wait(0.1):
            check()

    thread = threading.Thread(target=poll, daemon=True)
    thread.start()
    try:
        yield seen
    finally:
        stop.set()
        thread.join(timeout=15)
        check()  # and once more after the block, however quickly it ran


@pytest.mark.slow
def test_a_stored_regex_re2_refuses_is_skipped_and_its_worst_pastes_are_answered(
    kb_store: Store, serve: Any, fake_slack: FakeSlack
) -> None:
    with kb_store.transaction() as session:
        repository.import_records(
            session,
            records=[BOMB],
            on_conflict="fail",
            actor="an older errkb",
            now=datetime(2024, 1, 1, tzinfo=UTC),
        )
    bot: ServeProcess = serve().ready()
    bot.wait_for_line(r'"level": "WARNING".*test/lookahead-bomb')
    sender = bot.sender(fake_slack)
    with healthz_polled(bot) as health:
        for paste in WORST:
            response, _ = sender.message(paste)
            assert response.status == 200 and response.seconds < ACK_S
            answer = sender.command(paste)  # /errkb always answers: here, that nothing is known
            assert answer.status == 200 and answer.seconds < ACK_S
            assert fake_slack.wait_for(
                "response_url", timeout=10, where=lambda c: "blocks" in c.params
            )
            fake_slack.reset()
        response, ts = sender.message(PASTE)
        assert fake_slack.wait_for(
            "chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts
        )
    assert health and all(health)
    bot.terminate()
    assert bot.wait(timeout=20) == 0
    assert not bot.tracebacks(), bot.tracebacks()


def _flood(port: int, size: int) -> None:
    """An unsigned POST announcing ``size`` bytes, sent until the server answers or cuts it off."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(
            b"POST /slack/events HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n"
            b"Content-Length: %d\r\n\r\n" % size
        )
        chunk = b"x" * (1 << 18)
        sent = 0
        try:
            while sent < size:
                sent += conn.send(chunk)
        except OSError:
            pass  # cut off, as it should be


@pytest.mark.slow
def test_big_unsigned_bodies_and_slow_connections_cost_no_memory_and_block_no_paste(
    serve: Any, fake_slack: FakeSlack
) -> None:
    bot: ServeProcess = serve().ready()
    assert bot.port is not None
    sender = bot.sender(fake_slack)
    sender.message(PASTE)  # warm
    fake_slack.wait_for("chat.postMessage")
    before = rss(bot.proc.pid)
    slow = [socket.create_connection(("127.0.0.1", bot.port), timeout=10) for _ in range(300)]
    try:
        for conn in slow:
            conn.sendall(b"POST /slack/events HTTP/1.1\r\nHost: t\r\nContent-Length: 2000\r\n\r\n{")
        floods = [threading.Thread(target=_flood, args=(bot.port, 50 * MB)) for _ in range(4)]
        for thread in floods:
            thread.start()
        with healthz_polled(bot) as health:
            response, ts = sender.message(PASTE)
            assert response.status == 200 and response.seconds < ACK_S
            assert fake_slack.wait_for(
                "chat.postMessage", 2, where=lambda c: c.params.get("thread_ts") == ts
            )
        for thread in floods:
            thread.join(timeout=30)
        assert not any(thread.is_alive() for thread in floods)
        assert rss(bot.proc.pid) - before < 50 * MB
        assert health and all(health)
    finally:
        for conn in slow:
            conn.close()
    bot.terminate()
    assert bot.wait(timeout=20) == 0
