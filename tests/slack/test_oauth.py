"""Multi-workspace install: /slack/install → Slack's authorize page, /slack/oauth_redirect stores the
installation (slack_sdk's SQLAlchemy store, in errkb's database), and that workspace's events are
answered with its own bot token."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import parse_qs, urlparse

import pytest
from sqlalchemy import delete, select

from bot.knowledge import Fixed
from bot.match.index import MatchIndex
from bot.settings import Settings
from bot.slack.bootstrap import build_slack_bot
from bot.slack.metrics import Metrics
from bot.slack.server import Server
from bot.store.db import Store
from bot.store.oauth import oauth_metadata
from graph.build import build_graph
from tests.slack.conftest import CHANNEL, PASTE, SECRET, TODAY, TOKEN, Bot, FixedClock, SlackSender
from tests.slack.fake_slack import FakeSlack, Grant

CLIENT_ID = "1111.2222"
CLIENT_SECRET = "client-secret-5e2a"
TEAM = "T2OTHER"
TEAM_TOKEN = "xoxb-2-installed-team-token"


@dataclass
class OAuthBot:
    url: str
    send: SlackSender
    store: Store

    def get(self, path: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
        parsed = urlparse(self.url)
        conn = http.client.HTTPConnection(parsed.hostname or "127.0.0.1", parsed.port, timeout=10)
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        response.read()
        conn.close()
        return response


def _wipe_oauth(store: Store) -> None:
    with store.engine.begin() as conn:
        for table in oauth_metadata().sorted_tables:
            conn.execute(delete(table))


@pytest.fixture
def oauth_bot(bot: Bot, fake_slack: FakeSlack) -> Iterator[OAuthBot]:
    """A second app on the same database, installed per workspace instead of by token."""
    settings = Settings(
        database_url=bot.store.engine.url.render_as_string(hide_password=False),
        slack_signing_secret=SECRET,
        slack_client_id=CLIENT_ID,
        slack_client_secret=CLIENT_SECRET,
        slack_api_url=fake_slack.api_url,
        workers=4,
        _env_file=None,
    )  # type: ignore[call-arg]
    metrics = Metrics()
    slack_bot = build_slack_bot(settings, store=bot.store, index=Fixed(MatchIndex.build(bot.records)),
                                graph=Fixed(build_graph(bot.records)), clock=FixedClock(TODAY), metrics=metrics)  # fmt: skip
    slack_bot.start()
    server = Server(slack_bot.app, bot.store, metrics, slack_bot.runner, lambda: len(bot.records),
                    host="127.0.0.1", port=0)  # fmt: skip
    server.start()
    _wipe_oauth(bot.store)
    fake_slack.grants["code-42"] = Grant(team_id=TEAM, token=TEAM_TOKEN)
    url = f"http://127.0.0.1:{server.port}"
    yield OAuthBot(url, SlackSender(url, fake_slack), bot.store)
    server.stop()
    fake_slack.grants.clear()
    _wipe_oauth(bot.store)


def _install(oauth: OAuthBot) -> http.client.HTTPResponse:
    started = oauth.get("/slack/install")
    state = parse_qs(urlparse(started.headers["Location"]).query)["state"][0]
    cookie = started.headers["Set-Cookie"].split(";")[0]
    return oauth.get(f"/slack/oauth_redirect?code=code-42&state={state}", {"Cookie": cookie})


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
    assert _install(oauth_bot).status == 200
    exchange = fake_slack.of("oauth.v2.access")
    assert len(exchange) == 1 and exchange[0].params["code"] == "code-42"
    installations = oauth_metadata().tables["slack_installations"]
    with oauth_bot.store.engine.connect() as conn:
        rows = conn.execute(select(installations.c.team_id, installations.c.bot_token)).all()
    assert [tuple(r) for r in rows] == [(TEAM, TEAM_TOKEN)]


def test_a_forged_state_installs_nothing(oauth_bot: OAuthBot, fake_slack: FakeSlack) -> None:
    oauth_bot.get("/slack/install")
    response = oauth_bot.get("/slack/oauth_redirect?code=code-42&state=forged",
                             {"Cookie": "slack-app-oauth-state=forged"})  # fmt: skip
    assert response.status >= 400
    assert fake_slack.of("oauth.v2.access") == []


def test_an_installed_workspace_is_answered_with_its_own_bot_token(
    oauth_bot: OAuthBot, fake_slack: FakeSlack
) -> None:
    assert _install(oauth_bot).status == 200
    ts = "1722500200.000001"
    body = {"token": "legacy", "team_id": TEAM, "api_app_id": "A1", "type": "event_callback",
            "event_id": "EvOAUTH0001", "event_time": 1722500200,
            "authorizations": [{"team_id": TEAM, "user_id": "UBOT", "is_bot": True}],
            "event": {"type": "message", "channel": CHANNEL, "user": "UENGLISH", "text": PASTE, "ts": ts,
                      "client_msg_id": "cm-oauth-1", "channel_type": "channel"}}  # fmt: skip
    assert oauth_bot.send.post(json.dumps(body).encode(), "application/json").status == 200
    answers = fake_slack.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts
    )
    assert len(answers) == 1
    assert answers[0].headers["Authorization"] == f"Bearer {TEAM_TOKEN}"
    assert TOKEN not in json.dumps(
        [c.headers for c in fake_slack.calls if c.method != "oauth.v2.access"]
    )
