"""``app_uninstalled`` and ``tokens_revoked``, signed as Slack signs them: the installation goes,
the work queued for that workspace ends quietly (nothing retried with a dead token), the
knowledge base stays; a single-workspace bot reports its token revoked."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from tests.slack.conftest import CHANNEL, PASTE, TOKEN, Bot
from tests.slack.fake_slack import FakeSlack, Grant
from tests.slack.install_flow import install, installed_tokens
from tests.slack.standalone import Standalone, standalone

TEAM = "T2GONE"
TEAM_TOKEN = "xoxb-2-team-that-leaves"
#: A Fernet key for the installation tokens a multi-workspace install keeps encrypted.
SECRET_KEY = "zrhl8QamLKGBNKS3UZa7yKBc8QRmcauK0pvn6iW55tg="
CLIENT = {
    "slack_client_id": "1111.2222",
    "slack_client_secret": "client-secret-5e2a",
    "secret_key": SECRET_KEY,
}


def _revoking(own: Standalone, team: str, event: dict[str, Any], event_id: str) -> int:
    body = {
        "token": "legacy",
        "team_id": team,
        "api_app_id": "A1",
        "type": "event_callback",
        "event_id": event_id,
        "event_time": int(time.time()),
        "event": event,
    }
    return own.send.post(json.dumps(body).encode(), "application/json").status


UNINSTALLED = {"type": "app_uninstalled"}
BOT_REVOKED = {"type": "tokens_revoked", "tokens": {"oauth": [], "bot": ["UBOT"]}}


def _paste(own: Standalone, team: str, ts: str) -> int:
    body = {
        "token": "legacy",
        "team_id": team,
        "api_app_id": "A1",
        "type": "event_callback",
        "event_id": f"Ev{ts}",
        "event_time": int(time.time()),
        "authorizations": [{"team_id": team, "user_id": "UBOT", "is_bot": True}],
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
    return own.send.post(json.dumps(body).encode(), "application/json").status


def _queued_answer(own: Standalone, fake: FakeSlack, team: str, ts: str) -> None:
    """A paste whose answer Slack failed once: it waits in the queue for its retry."""
    fake.fail_next("chat.postMessage", 503)
    assert _paste(own, team, ts) == 200
    assert fake.wait_for("chat.postMessage")
    assert own.jobs_until(lambda j: bool(j) and j[0][1] == "pending")[0][1] == "pending"


@pytest.mark.slow
@pytest.mark.parametrize(
    "event", [UNINSTALLED, BOT_REVOKED], ids=["app_uninstalled", "tokens_revoked"]
)
def test_single_workspace_reports_its_token_revoked_and_ends_its_queued_work(
    bot: Bot, fake_slack: FakeSlack, blank_database_url: str, event: dict[str, Any]
) -> None:
    with standalone(bot.records, fake_slack, blank_database_url, slack_bot_token=TOKEN) as own:
        assert own.health_until(lambda s, b: s == 200)[0] == 200
        records = own.records()
        _queued_answer(own, fake_slack, "T1", "1722500300.000001")
        assert _revoking(own, "T1", event, "EvREVOKE01") == 200

        status, body = own.health_until(lambda s, b: s == 503)
        assert status == 503 and body["status"] == "broken" and "revoked" in body["reason"]
        jobs = own.jobs_until(lambda j: j[0][1] == "done", timeout=15)
        assert jobs[0][:2] == ("paste", "done")
        time.sleep(1.0)
        assert len(fake_slack.of("chat.postMessage")) == 1  # the retry never went out
        checks = len(fake_slack.of("auth.test"))
        time.sleep(0.8)
        assert len(fake_slack.of("auth.test")) == checks  # a revoked token is not checked again
        assert _paste(own, "T1", "1722500300.000002") == 200  # a late event: taken quietly
        assert len(own.jobs()) == 1
        assert own.records() == records  # the knowledge base stays


@pytest.fixture
def multi(bot: Bot, fake_slack: FakeSlack, blank_database_url: str) -> Any:
    with standalone(bot.records, fake_slack, blank_database_url, **CLIENT) as own:
        fake_slack.grants["code-gone"] = Grant(team_id=TEAM, token=TEAM_TOKEN)
        _install(own, "code-gone")
        yield own
        fake_slack.grants.clear()


def _install(own: Standalone, code: str) -> None:
    assert install(own.url, code).status == 200


def installed(own: Standalone) -> list[tuple[str, str]]:
    return installed_tokens(own.store.engine, SECRET_KEY)


@pytest.mark.slow
@pytest.mark.parametrize(
    "event", [UNINSTALLED, BOT_REVOKED], ids=["app_uninstalled", "tokens_revoked"]
)
def test_multi_workspace_removes_the_installation_and_ends_its_queued_work(
    multi: Standalone, fake_slack: FakeSlack, event: dict[str, Any]
) -> None:
    assert installed(multi) == [(TEAM, TEAM_TOKEN), (TEAM, TEAM_TOKEN)]
    records = multi.records()
    _queued_answer(multi, fake_slack, TEAM, "1722500400.000001")
    assert _revoking(multi, TEAM, event, "EvREVOKE02") == 200
    assert installed(multi) == []
    assert multi.jobs_until(lambda j: j[0][1] == "done", timeout=15)[0][:2] == ("paste", "done")
    time.sleep(1.0)
    assert len(fake_slack.of("chat.postMessage")) == 1  # the retry never went out
    assert multi.records() == records
    assert multi.health()[0] == 200  # other workspaces are still served
