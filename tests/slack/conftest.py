"""The real app over HTTP on loopback, a loopback Slack Web API, signed requests like Slack's.

One server and one fake Slack per package (the database is the suite's
``store``: SQLite, or PostgreSQL with ERRKB_TEST_DATABASE_URL); each test
starts with an empty call log and empty Slack tables.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from sqlalchemy import bindparam, update

from bot.bootstrap import build_slack_bot
from bot.clock import FixedClock
from bot.ingest import load_records
from bot.knowledge import LiveKnowledge, store_knowledge
from bot.records import Record
from bot.settings import Settings
from bot.slack.web.metrics import Metrics
from bot.slack.web.server import Server
from bot.store import repository
from bot.store.db import Store
from bot.store.models import (
    ChannelSettingsRow,
    CorrectionRow,
    JobRow,
    RecordRow,
    SlackReplyRow,
    SlackUserRow,
    UnknownErrorRow,
    UnknownSightingRow,
    VoteRow,
    WorkaroundRow,
)
from tests.conftest import DATA, wipe
from tests.slack.fake_slack import FakeSlack

HERE = Path(__file__).resolve().parent
#: Slack gives up on an acknowledgement after 3 seconds and delivers the request again:
#: the bound an acknowledgement is held to here (its speed is the benchmarks' figure).
ACK_S = 3.0
SECRET = "test-signing-secret-8f2c"
TOKEN = "xoxb-1111-2222-secretbottoken"
TODAY = datetime(2025, 8, 1, 9, 30, tzinfo=UTC)
CHANNEL = "C0ERRORS"
EN_USER = "UENGLISH"
ZH_USER = "UCHINESE"
MAINTAINER = "UMAINTAIN"
OWNER = "UOWNER"  # owns the "python" domain of the test records
SLACK_TABLES = (
    JobRow,
    CorrectionRow,
    SlackReplyRow,
    SlackUserRow,
    UnknownSightingRow,
    UnknownErrorRow,
    VoteRow,
    ChannelSettingsRow,
)

PASTE = """Traceback (most recent call last):
  File "/srv/app/worker.py", line 88, in run
    frob.start()
  File "/usr/lib/python3.11/site-packages/frobnicate/core.py", line 12, in start
    raise FrobnicatorOverheatError(temp)
frobnicate.errors.FrobnicatorOverheatError: frobnicator core temperature 512 exceeded limit 300"""


def kb_records() -> list[Record]:
    """The starter knowledge base (``data/*.json``) plus the suite's own test records."""
    paths = [p for p in sorted(DATA.glob("*.json"))] + [HERE / "kb.json"]
    return load_records(paths)


def sign(body: bytes, timestamp: int, secret: str = SECRET) -> str:
    base = b"v0:" + str(timestamp).encode() + b":" + body
    return "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


@dataclass
class Response:
    status: int
    body: bytes
    seconds: float

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class SlackSender:
    """Posts to the app exactly as Slack does: signed, form or JSON encoded."""

    url: str
    fake: FakeSlack
    secret: str = SECRET
    counter: Any = field(default_factory=lambda: iter(range(1, 10**9)))
    prefix: str = field(
        default_factory=lambda: uuid.uuid4().hex[:8]
    )  # trigger ids are unique, as Slack's

    def post(
        self,
        body: bytes,
        content_type: str,
        *,
        timestamp: int | None = None,
        secret: str | None = None,
        retry: int | None = None,
    ) -> Response:
        ts = int(time.time()) if timestamp is None else timestamp
        headers = {
            "Content-Type": content_type,
            "X-Slack-Request-Timestamp": str(ts),
            "X-Slack-Signature": sign(body, ts, secret or self.secret),
        }
        if retry is not None:
            headers["X-Slack-Retry-Num"] = str(retry)
            headers["X-Slack-Retry-Reason"] = "http_timeout"
        request = urllib.request.Request(
            self.url + "/slack/events", data=body, headers=headers, method="POST"
        )
        started = time.perf_counter()
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return Response(response.status, response.read(), time.perf_counter() - started)
        except urllib.error.HTTPError as exc:
            return Response(exc.code, exc.read(), time.perf_counter() - started)

    def next_id(self) -> int:
        return next(self.counter)

    def event(
        self, event: dict[str, Any], *, event_id: str | None = None, **kwargs: Any
    ) -> Response:
        body = {
            "token": "legacy",
            "team_id": "T1",
            "api_app_id": "A1",
            "type": "event_callback",
            "event_id": event_id or f"Ev{self.next_id():08d}",
            "event_time": int(time.time()),
            "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": True}],
            "event": event,
        }
        return self.post(json.dumps(body).encode(), "application/json", **kwargs)

    def message(
        self,
        text: str,
        *,
        user: str = EN_USER,
        ts: str | None = None,
        thread_ts: str | None = None,
        **extra: Any,
    ) -> tuple[Response, str]:
        ts = ts or f"1722500000.{self.next_id():06d}"
        event = {
            "type": "message",
            "channel": CHANNEL,
            "user": user,
            "text": text,
            "ts": ts,
            "client_msg_id": f"cm-{ts}",
            "channel_type": "channel",
            **extra,
        }
        if thread_ts:
            event["thread_ts"] = thread_ts
        return self.event(event), ts

    def file_share(
        self, url: str, *, name: str = "crash.log", size: int = 0, **extra: Any
    ) -> tuple[Response, str]:
        """A message that shares one text file (a snippet or a ``.log``), downloadable at
        ``url``."""
        file = {
            "id": "F1",
            "name": name,
            "mimetype": "text/plain",
            "filetype": "text",
            "size": size,
            "url_private_download": url,
        }
        return self.message("", subtype="file_share", files=[file], **extra)

    def command(
        self,
        text: str,
        *,
        user: str = EN_USER,
        team_id: str = "T1",
        channel: str = CHANNEL,
        **kwargs: Any,
    ) -> Response:
        n = self.next_id()
        form = {
            "token": "legacy",
            "team_id": team_id,
            "channel_id": channel,
            "channel_name": "errors",
            "user_id": user,
            "user_name": user.lower(),
            "command": "/errkb",
            "text": text,
            "api_app_id": "A1",
            "response_url": self.fake.response_url(f"cmd{n}"),
            "trigger_id": f"trig{n}-{self.prefix}",
        }
        return self.post(urlencode(form).encode(), "application/x-www-form-urlencoded", **kwargs)

    def interactive(self, payload: dict[str, Any], **kwargs: Any) -> Response:
        body = urlencode({"payload": json.dumps(payload)}).encode()
        return self.post(body, "application/x-www-form-urlencoded", **kwargs)

    def shortcut(
        self, callback_id: str, message: dict[str, Any], *, user: str = EN_USER
    ) -> Response:
        """``user`` runs the message shortcut ``callback_id`` on ``message`` of the channel."""
        n = self.next_id()
        return self.interactive(
            {
                "type": "message_action",
                "callback_id": callback_id,
                "team": {"id": "T1"},
                "trigger_id": f"trig{n}-{self.prefix}",
                "user": {"id": user},
                "channel": {"id": CHANNEL},
                "response_url": self.fake.response_url(f"sc{n}"),
                "message": message,
            }
        )

    def click(
        self, action_id: str, value: str, *, user: str = EN_USER, message_ts: str | None = None
    ) -> Response:
        n = self.next_id()
        return self.interactive(
            {
                "type": "block_actions",
                "team": {"id": "T1"},
                "user": {"id": user, "team_id": "T1"},
                "api_app_id": "A1",
                "trigger_id": f"trig{n}-{self.prefix}",
                "channel": {"id": CHANNEL},
                "container": {
                    "type": "message",
                    "message_ts": message_ts or "1",
                    "channel_id": CHANNEL,
                },
                "response_url": self.fake.response_url(f"act{n}"),
                "actions": [
                    {
                        "type": "button",
                        "action_id": action_id,
                        "block_id": "b",
                        "value": value,
                        "action_ts": str(time.time()),
                    }
                ],
            }
        )


@pytest.fixture(scope="package")
def fake_slack() -> Iterator[FakeSlack]:
    fake = FakeSlack(
        users={
            EN_USER: {"locale": "en-US"},
            ZH_USER: {"locale": "zh-CN"},
            MAINTAINER: {"locale": "en-GB"},
            OWNER: {"locale": "en-US"},
        },
        groups={"SMAINT": [MAINTAINER]},
        token=TOKEN,
    ).start()
    yield fake
    fake.stop()


def knowledge_of(store: Store) -> LiveKnowledge:
    """The live knowledge of ``store``, built once: nothing polls it, so a test's changes to
    the records stay out of the answers."""
    knowledge = store_knowledge(store, poll_seconds=3600)
    knowledge.refresh()
    return knowledge


@dataclass
class Bot:
    url: str
    store: Store
    fake: FakeSlack
    clock: FixedClock
    metrics: Metrics
    records: list[Record]
    send: SlackSender
    settings: Settings


@pytest.fixture(scope="package")
def bot(store: Store, fake_slack: FakeSlack) -> Iterator[Bot]:
    records = kb_records()
    wipe(store)
    with store.transaction() as session:
        repository.import_records(
            session, records=records, on_conflict="fail", actor="test", now=TODAY
        )
    settings = Settings(
        database_url=store.engine.url.render_as_string(hide_password=False),
        slack_bot_token=TOKEN,
        slack_signing_secret=SECRET,
        slack_api_url=fake_slack.api_url,
        maintainer_group="SMAINT",
        domain_owners={"python": [OWNER]},
        paste_limit=100_000,
        workers=8,
        queue_limit=200,
    )  # type: ignore[call-arg]
    metrics = Metrics()
    clock = FixedClock(TODAY)
    knowledge = knowledge_of(store)
    slack_bot = build_slack_bot(
        settings,
        store=store,
        index=knowledge.index,
        graph=knowledge.graph,
        clock=clock,
        metrics=metrics,
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
    )
    server.start()
    url = f"http://127.0.0.1:{server.port}"
    yield Bot(
        url,
        store,
        fake_slack,
        clock,
        metrics,
        records,
        SlackSender(url, fake_slack),
        settings,
    )
    server.stop()
    wipe(store)


@dataclass
class Counted:
    """The package bot's counters as one test moved them: every sample less what it was when
    the test began, so a test reads its own counts whatever ran before it."""

    metrics: Metrics
    before: dict[tuple[str, frozenset[tuple[str, str]]], float]

    def value(self, name: str, **labels: str) -> float:
        key = (name, frozenset(labels.items()))
        return self.metrics.value(name, **labels) - self.before.get(key, 0.0)


@pytest.fixture
def counted(bot: Bot) -> Counted:
    before = {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in bot.metrics.registry.collect()
        for sample in family.samples
    }
    return Counted(bot.metrics, before)


@pytest.fixture(autouse=True)
def _clean(request: pytest.FixtureRequest) -> Iterator[None]:
    if "bot" not in request.fixturenames:
        yield
        return
    bot: Bot = request.getfixturevalue("bot")
    bot.fake.reset()
    bot.clock.value = TODAY
    with bot.store.transaction() as session:
        for model in SLACK_TABLES:
            session.query(model).delete()
        session.execute(update(WorkaroundRow).values(fixed_count=0, failed_count=0))
        # a "This fixed it" or "Still valid" an earlier test clicked confirmed its record
        session.connection().execute(
            update(RecordRow)
            .where(RecordRow.id == bindparam("rid"))
            .values(last_confirmed=bindparam("confirmed"), evidence_count=bindparam("count")),
            [
                {"rid": r.id, "confirmed": r.last_confirmed, "count": r.evidence_count}
                for r in bot.records
            ],
        )
    yield


def wait_for_unknown(bot: Bot, text: str, timeout: float = 10.0) -> None:
    """Until the unknown error containing ``text`` is in the database (noted after the answer
    work)."""
    from bot.store import slack_repo

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with bot.store.transaction() as session:
            if any(text in u.sample for u in slack_repo.unknown_errors(session, limit=50)):
                return
        time.sleep(0.02)
    raise AssertionError(f"no unknown error with {text!r} was recorded")


def wait_done(bot: Bot, key: str, timeout: float = 10.0) -> None:
    """Until the job with ``key`` has finished (done, failed or expired)."""
    from sqlalchemy import select

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with bot.store.read() as session:
            if session.scalar(select(JobRow.status).where(JobRow.key == key)) in (
                "done",
                "failed",
                "expired",
            ):
                return
        time.sleep(0.02)
    raise AssertionError(f"job {key} did not finish")
