"""Multi-workspace install: /slack/install → Slack's authorize page, /slack/oauth_redirect
stores the installation (slack_sdk's SQLAlchemy store, in errkb's database), and that
workspace's events are answered with its own bot token."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from urllib.parse import parse_qs, urlparse

import pytest
from cryptography.fernet import Fernet
from sqlalchemy import select

from bot.bootstrap import build_slack_bot
from bot.clock import FixedClock
from bot.settings import Settings
from bot.slack.web.metrics import Metrics
from bot.slack.web.server import Server
from bot.store import repository
from bot.store.db import Store, open_store
from bot.store.oauth import oauth_metadata
from bot.store.secrets import TokenCipher
from tests.slack.conftest import (
    CHANNEL,
    PASTE,
    SECRET,
    TODAY,
    TOKEN,
    Bot,
    SlackSender,
    knowledge_of,
)
from tests.slack.fake_slack import FakeSlack, Grant
from tests.slack.install_flow import get, install

CLIENT_ID = "1111.2222"
CLIENT_SECRET = "client-secret-5e2a"
TEAM = "T2OTHER"
TEAM_TOKEN = "xoxb-2-installed-team-token"
KEY = Fernet.generate_key().decode()


@dataclass
class OAuthBot:
    url: str
    send: SlackSender
    store: Store

    def get(self, path: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
        return get(self.url, path, headers)


@contextmanager
def serving(
    bot: Bot, fake_slack: FakeSlack, url: str, key: str, previous: str | None = None
) -> Iterator[OAuthBot]:
    """A second app, installed per workspace instead of by token, on a database of its own
    (servers sharing a database share their work: they must be configured alike)."""
    store = open_store(url, migrate=True)  # the records imported (oauth_bot)
    settings = Settings(
        database_url=url,
        slack_signing_secret=SECRET,
        slack_client_id=CLIENT_ID,
        slack_client_secret=CLIENT_SECRET,
        slack_api_url=fake_slack.api_url,
        secret_key=key,
        secret_key_previous=previous,
        workers=4,
        _env_file=None,
    )  # type: ignore[call-arg]
    metrics = Metrics()
    knowledge = knowledge_of(store)
    slack_bot = build_slack_bot(
        settings,
        store=store,
        index=knowledge.index,
        graph=knowledge.graph,
        clock=FixedClock(TODAY),
        metrics=metrics,
    )
    slack_bot.start()
    server = Server(
        slack_bot.app,
        store,
        metrics,
        slack_bot.runner,
        lambda: len(bot.records),
        host="127.0.0.1",
        port=0,
    )
    server.start()
    fake_slack.grants["code-42"] = Grant(team_id=TEAM, token=TEAM_TOKEN)
    served = f"http://127.0.0.1:{server.port}"
    try:
        yield OAuthBot(served, SlackSender(served, fake_slack), store)
    finally:
        server.stop()
        fake_slack.grants.clear()
        store.dispose()


@pytest.fixture
def oauth_bot(bot: Bot, fake_slack: FakeSlack, blank_database_url: str) -> Iterator[OAuthBot]:
    store = open_store(blank_database_url, migrate=True)
    with store.transaction() as session:
        repository.import_records(
            session, records=bot.records, on_conflict="fail", actor="test", now=TODAY
        )
    store.dispose()
    with serving(bot, fake_slack, blank_database_url, KEY) as served:
        yield served


def test_install_redirects_to_slacks_authorize_page_with_a_state(oauth_bot: OAuthBot) -> None:
    response = oauth_bot.get("/slack/install")
    assert response.status == 302
    location = urlparse(response.headers["Location"])
    assert (
        f"{location.scheme}://{location.netloc}{location.path}"
        == "https://slack.com/oauth/v2/authorize"
    )
    query = parse_qs(location.query)
    assert query["client_id"] == [CLIENT_ID] and query["state"][0]
    assert {"chat:write", "commands", "channels:history"} <= set(query["scope"][0].split(","))
    assert f"slack-app-oauth-state={query['state'][0]}" in response.headers["Set-Cookie"]


def test_oauth_redirect_exchanges_the_code_and_stores_the_installation(
    oauth_bot: OAuthBot, fake_slack: FakeSlack
) -> None:
    assert install(oauth_bot.url, "code-42").status == 200
    exchange = fake_slack.of("oauth.v2.access")
    assert len(exchange) == 1 and exchange[0].params["code"] == "code-42"
    installations = oauth_metadata().tables["slack_installations"]
    with oauth_bot.store.engine.connect() as conn:
        rows = conn.execute(select(installations.c.team_id, installations.c.bot_token)).all()
    assert [r.team_id for r in rows] == [TEAM]
    stored = rows[0].bot_token
    assert TEAM_TOKEN not in stored and stored.startswith("fernet:"), "kept encrypted"
    assert TokenCipher(KEY).decrypt(stored) == TEAM_TOKEN


@pytest.mark.slow
def test_a_forged_state_installs_nothing(oauth_bot: OAuthBot, fake_slack: FakeSlack) -> None:
    oauth_bot.get("/slack/install")
    response = oauth_bot.get(
        "/slack/oauth_redirect?code=code-42&state=forged",
        {"Cookie": "slack-app-oauth-state=forged"},
    )
    assert response.status >= 400
    assert fake_slack.of("oauth.v2.access") == []


@pytest.mark.slow
def test_an_installed_workspace_is_answered_with_its_own_bot_token(
    oauth_bot: OAuthBot, fake_slack: FakeSlack
) -> None:
    assert install(oauth_bot.url, "code-42").status == 200
    ts = "1722500200.000001"
    body = {
        "token": "legacy",
        "team_id": TEAM,
        "api_app_id": "A1",
        "type": "event_callback",
        "event_id": "EvOAUTH0001",
        "event_time": 1722500200,
        "authorizations": [{"team_id": TEAM, "user_id": "UBOT", "is_bot": True}],
        "event": {
            "type": "message",
            "channel": CHANNEL,
            "user": "UENGLISH",
            "text": PASTE,
            "ts": ts,
            "client_msg_id": "cm-oauth-1",
            "channel_type": "channel",
        },
    }
    assert oauth_bot.send.post(json.dumps(body).encode(), "application/json").status == 200
    answers = fake_slack.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts
    )
    assert len(answers) == 1
    assert answers[0].headers["Authorization"] == f"Bearer {TEAM_TOKEN}"
    assert TOKEN not in json.dumps(
        [c.headers for c in fake_slack.calls if c.method != "oauth.v2.access"]
    )


def _event(ts: str) -> bytes:
    return json.dumps(
        {
            "token": "legacy",
            "team_id": TEAM,
            "api_app_id": "A1",
            "type": "event_callback",
            "event_id": f"Ev{ts.replace('.', '')}",
            "event_time": 1722500200,
            "authorizations": [{"team_id": TEAM, "user_id": "UBOT", "is_bot": True}],
            "event": {
                "type": "message",
                "channel": CHANNEL,
                "user": "UENGLISH",
                "text": PASTE,
                "ts": ts,
                "client_msg_id": f"cm-{ts}",
                "channel_type": "channel",
            },
        }
    ).encode()


@pytest.mark.slow
def test_after_a_key_rotation_the_installation_is_still_answered_with_its_token(
    oauth_bot: OAuthBot, bot: Bot, fake_slack: FakeSlack
) -> None:
    assert install(oauth_bot.url, "code-42").status == 200
    url = oauth_bot.store.engine.url.render_as_string(hide_password=False)
    with serving(bot, fake_slack, url, Fernet.generate_key().decode(), previous=KEY) as rotated:
        ts = "1722500300.000001"
        assert rotated.send.post(_event(ts), "application/json").status == 200
        answers = fake_slack.wait_for(
            "chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts
        )
        assert len(answers) == 1 and answers[0].headers["Authorization"] == f"Bearer {TEAM_TOKEN}"
    with serving(bot, fake_slack, url, Fernet.generate_key().decode()) as forgotten:
        # a key that never wrote them: the workspace is not installed as far as errkb can tell
        refused = forgotten.send.post(_event("1722500300.000002"), "application/json")
        assert (
            b"no longer available" in refused.body
        )  # Bolt's words for an installation it cannot find
        assert not fake_slack.wait_for(
            "chat.postMessage",
            timeout=1.0,
            where=lambda c: c.params.get("thread_ts") == "1722500300.000002",
        )
