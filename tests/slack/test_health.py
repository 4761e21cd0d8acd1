"""``/healthz`` while the knowledge base loads: starting, then ok; broken, with a reason, when
the first build fails or the database is unreachable. Load balancers and Kubernetes read the
HTTP status; people read ``status`` and ``reason``."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from slack_bolt import App
from sqlalchemy import create_engine

from bot.knowledge import LiveKnowledge
from bot.records import Record
from bot.slack.web.metrics import Metrics
from bot.slack.web.server import Server
from bot.store.db import Store
from tests.match.conftest import SMALL
from tests.slack.conftest import SECRET, TOKEN


def _health(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url + "/healthz", timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


@contextmanager
def _serve(store: Store, knowledge: LiveKnowledge) -> Iterator[str]:
    app = App(signing_secret=SECRET, token=TOKEN, token_verification_enabled=False)

    def readiness() -> tuple[str, int | None, str | None]:
        now = knowledge.readiness()
        return now.state, now.records, now.reason

    server = Server(
        app,
        store,
        Metrics(),
        ThreadPoolExecutor(1),
        lambda: None,
        host="127.0.0.1",
        port=0,
        readiness=readiness,
    )
    server.start()
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.stop()


def _until(url: str, status: str) -> tuple[int, dict[str, Any]]:
    deadline = time.monotonic() + 10
    while True:
        code, body = _health(url)
        if body["status"] == status or time.monotonic() > deadline:
            return code, body
        time.sleep(0.02)


@pytest.fixture
def gated() -> dict[str, Any]:
    return {"gate": threading.Event(), "fail": False}


@pytest.fixture
def live(gated: dict[str, Any]) -> Iterator[LiveKnowledge]:
    def load() -> tuple[int, Sequence[Record], Sequence[Any]]:
        gated["gate"].wait(10)
        if gated["fail"]:
            raise RuntimeError("no such table: records\n(background on this error at ...)")
        return 1, SMALL, []

    knowledge = LiveKnowledge(load, lambda: 1, poll_seconds=0.05)
    yield knowledge
    gated["gate"].set()
    knowledge.stop()


def test_starting_while_the_first_build_runs_then_ok(
    store: Store, live: LiveKnowledge, gated: dict[str, Any]
) -> None:
    with _serve(store, live) as url:
        live.start(wait=False)
        code, body = _health(url)
        assert code == 503 and body["status"] == "starting" and body["ok"] is False
        assert body["database"] is True and body["knowledge_base"]["loaded"] is False
        gated["gate"].set()
        code, body = _until(url, "ok")
        assert (
            code == 200
            and body["ok"] is True
            and body["knowledge_base"] == {"loaded": True, "records": len(SMALL)}
        )
        assert "reason" not in body


def test_broken_with_a_one_line_reason_when_the_first_build_fails(
    store: Store, live: LiveKnowledge, gated: dict[str, Any]
) -> None:
    gated["fail"] = True
    gated["gate"].set()
    with _serve(store, live) as url:
        live.start(wait=False)
        code, body = _until(url, "broken")
        assert code == 503 and body["ok"] is False
        assert body["reason"] == "RuntimeError: no such table: records"
        gated["fail"] = False  # the next poll builds it: no restart needed
        code, body = _until(url, "ok")
        assert code == 200


def test_broken_when_the_database_is_unreachable(tmp_path: Path) -> None:
    gone = Store.on(create_engine(f"sqlite:///{tmp_path / 'missing' / 'errkb.sqlite3'}"))
    knowledge = LiveKnowledge(lambda: (1, SMALL, []), lambda: 1, poll_seconds=60)
    knowledge.refresh()  # loaded earlier; the database went away since
    with _serve(gone, knowledge) as url:
        code, body = _health(url)
        assert code == 503 and body["status"] == "broken" and body["database"] is False
        assert body["reason"].startswith("database unreachable: ") and "\n" not in body["reason"]
    gone.engine.dispose()
