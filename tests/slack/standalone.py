"""A bot of a test's own: the real app over HTTP on a database of its own, beside the package's.

For tests that leave a bot in a state the package's shared bot must not carry on with (its token
revoked, errkb uninstalled, another kind of install). ``/healthz`` sees Slack as ``errkb serve``'s
does (:meth:`bot.slack.adapter.link.SlackLink.problem`).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from bot.bootstrap import SlackBot, build_slack_bot
from bot.clock import FixedClock
from bot.records import Record
from bot.settings import Settings
from bot.slack.web.metrics import Metrics
from bot.slack.web.server import Server
from bot.store import repository
from bot.store.db import Store, open_store
from bot.store.models import JobRow, RecordRow
from tests.slack.conftest import SECRET, TODAY, SlackSender, knowledge_of
from tests.slack.fake_slack import FakeSlack

#: First and longest wait between token checks: short, so recovery shows within a test.
BACKOFF = (0.2, 0.5)


@dataclass
class Standalone:
    url: str
    send: SlackSender
    store: Store
    slack_bot: SlackBot
    metrics: Metrics

    def health(self) -> tuple[int, dict[str, Any]]:
        try:
            with urllib.request.urlopen(self.url + "/healthz", timeout=10) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read())

    def health_until(
        self, wanted: Callable[[int, dict[str, Any]], bool], timeout: float = 10.0
    ) -> tuple[int, dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while True:
            status, body = self.health()
            if wanted(status, body) or time.monotonic() > deadline:
                return status, body
            time.sleep(0.05)

    def jobs(self) -> list[tuple[str, str, str | None]]:
        """(kind, status, error) of every job, oldest first."""
        with self.store.read() as session:
            rows = session.execute(
                select(JobRow.kind, JobRow.status, JobRow.last_error).order_by(JobRow.id)
            ).all()
        return [(r[0], r[1], r[2]) for r in rows]

    def jobs_until(
        self, wanted: Callable[[list[tuple[str, str, str | None]]], bool], timeout: float = 10.0
    ) -> list[tuple[str, str, str | None]]:
        deadline = time.monotonic() + timeout
        while True:
            found = self.jobs()
            if wanted(found) or time.monotonic() > deadline:
                return found
            time.sleep(0.05)

    def records(self) -> int:
        with self.store.read() as session:
            return len(session.scalars(select(RecordRow.id)).all())


@contextmanager
def standalone(
    records: list[Record], fake: FakeSlack, database_url: str, **settings: Any
) -> Iterator[Standalone]:
    store = open_store(database_url, migrate=True)
    with store.transaction() as session:
        repository.import_records(
            session, records=records, on_conflict="fail", actor="test", now=TODAY
        )
    built = Settings(
        database_url=database_url,
        slack_signing_secret=SECRET,
        slack_api_url=fake.api_url,
        workers=4,
        _env_file=None,
        **settings,
    )  # type: ignore[call-arg]
    metrics = Metrics()
    knowledge = knowledge_of(store)
    slack_bot = build_slack_bot(
        built,
        store=store,
        index=knowledge.index,
        graph=knowledge.graph,
        clock=FixedClock(TODAY),
        metrics=metrics,
        slack_backoff=BACKOFF,
    )
    slack_bot.start()
    server = Server(
        slack_bot.app,
        store,
        metrics,
        slack_bot.runner,
        lambda: len(records),
        host="127.0.0.1",
        port=0,
        slack=slack_bot.link.problem if slack_bot.link else None,
    )
    server.start()
    url = f"http://127.0.0.1:{server.port}"
    try:
        yield Standalone(url, SlackSender(url, fake), store, slack_bot, metrics)
    finally:
        server.stop()
        if slack_bot.link is not None:
            slack_bot.link.stop()
        store.dispose()
