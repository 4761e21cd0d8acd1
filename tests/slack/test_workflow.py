"""The Workflow Builder step ``triage_error``: a ``function_executed`` event, delivered signed over
HTTP, completes with the record (``functions.completeSuccess``) in the reader's language, or
fails with one clear line (``functions.completeError``); an org-wide install serves it too."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from slack_sdk.oauth.installation_store import Installation
from slack_sdk.oauth.installation_store.sqlalchemy import SQLAlchemyInstallationStore

from bot.store.oauth import BOTS, INSTALLATIONS
from tests.slack.conftest import EN_USER, PASTE, ZH_USER, Bot, SlackSender
from tests.slack.fake_slack import Call, FakeSlack, Grant
from tests.slack.test_oauth import CLIENT_ID, OAuthBot, oauth_bot  # noqa: F401 (a fixture)

MANIFEST = Path(__file__).resolve().parents[2] / "manifest.yaml"
FUNCTION_TOKEN = "xwfp-1-function-token"
FROB = "errkbtest/frobnicator-overheat"


def executed(
    send: SlackSender, inputs: dict[str, Any], *, team: str = "T1", org: str | None = None
) -> tuple[int, str]:
    """Deliver ``function_executed`` for ``triage_error``; (status, its execution id)."""
    n = send.next_id()
    execution = f"Fx{n:08d}"
    event = {
        "type": "function_executed",
        "function": {
            "id": "Fn0TRIAGE",
            "callback_id": "triage_error",
            "title": "Triage an error",
            "type": "app",
            "app_id": "A1",
            "date_created": 1722400000,
            "date_updated": 1722400000,
            "date_deleted": 0,
        },
        "inputs": inputs,
        "function_execution_id": execution,
        "workflow_execution_id": f"Wx{n:08d}",
        "event_ts": f"1722500000.{n:06d}",
        "bot_access_token": FUNCTION_TOKEN,
    }
    body: dict[str, Any] = {
        "token": "legacy",
        "team_id": team,
        "api_app_id": "A1",
        "type": "event_callback",
        "event_id": f"Ev{n:08d}",
        "event_time": int(time.time()),
        "event": event,
        "authorizations": [
            {
                "team_id": None if org else team,
                "enterprise_id": org,
                "user_id": "UBOT",
                "is_bot": True,
                "is_enterprise_install": org is not None,
            }
        ],
    }
    if org:
        body["enterprise_id"] = org
        body["is_enterprise_install"] = False  # the event comes from one workspace of the org
    return send.post(json.dumps(body).encode(), "application/json").status, execution


def completion(bot: Bot, method: str, execution: str) -> Call:
    [call] = bot.fake.wait_for(
        method, where=lambda c: c.params.get("function_execution_id") == execution
    )
    return call


def outputs_of(call: Call) -> dict[str, Any]:
    found = call.params["outputs"]
    return dict(json.loads(found) if isinstance(found, str) else found)


def test_the_manifest_declares_the_step_as_slack_requires() -> None:
    manifest = yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))
    step = manifest["functions"]["triage_error"]
    assert step["input_parameters"]["error_text"]["type"] == "string"
    assert step["input_parameters"]["error_text"]["is_required"] is True
    assert {"answered", "record_id", "root_cause", "fix", "link"} <= set(step["output_parameters"])
    settings = manifest["settings"]
    assert settings["org_deploy_enabled"] is True and settings["function_runtime"] == "remote"
    assert "function_executed" in settings["event_subscriptions"]["bot_events"]


def test_the_step_completes_with_the_record_for_a_known_error(bot: Bot) -> None:
    status, execution = executed(bot.send, {"error_text": PASTE, "reader": EN_USER})
    assert status == 200
    call = completion(bot, "functions.completeSuccess", execution)
    assert (
        call.headers.get("Authorization") == f"Bearer {FUNCTION_TOKEN}"
    )  # the execution's own token
    outputs = outputs_of(call)
    assert outputs["answered"] is True and outputs["record_id"] == FROB
    assert "coolant loop" in outputs["root_cause"] and outputs["fix"]
    assert bot.fake.of("functions.completeError") == []


def test_the_step_answers_in_the_readers_language(bot: Bot) -> None:
    status, execution = executed(bot.send, {"error_text": PASTE, "reader": ZH_USER})
    assert status == 200
    outputs = outputs_of(completion(bot, "functions.completeSuccess", execution))
    assert outputs["record_id"] == FROB and "冷却回路" in outputs["root_cause"]


def test_an_unknown_error_completes_unanswered(bot: Bot) -> None:
    _, execution = executed(
        bot.send, {"error_text": "ZorblaxFluxError: flux capacitor 7 misaligned by 12 degrees"}
    )
    outputs = outputs_of(completion(bot, "functions.completeSuccess", execution))
    assert (
        outputs["answered"] is False and outputs["record_id"] == "" and outputs["root_cause"] == ""
    )


def test_text_without_an_error_fails_the_step_with_one_line_in_the_readers_language(
    bot: Bot,
) -> None:
    _, execution = executed(bot.send, {"error_text": "please look at the build", "reader": EN_USER})
    error = completion(bot, "functions.completeError", execution).params["error"]
    assert error == "errkb found no error message in the step's error text."
    _, execution = executed(bot.send, {"error_text": "请看一下构建", "reader": ZH_USER})
    assert (
        "没有找到错误信息" in completion(bot, "functions.completeError", execution).params["error"]
    )
    assert bot.fake.of("functions.completeSuccess") == []


ORG_TOKEN = "xoxb-org-wide-token"


def install_org(app: OAuthBot, fake: FakeSlack) -> None:
    """The org-wide installation in errkb's store, and its token one Slack accepts."""
    fake.grants["org-install"] = Grant(team_id="E1ORG", token=ORG_TOKEN, team_name="Org")
    store = SQLAlchemyInstallationStore(
        client_id=CLIENT_ID,
        engine=app.store.writing,
        bots_table_name=BOTS,
        installations_table_name=INSTALLATIONS,
    )
    store.save(
        Installation(
            app_id="A1",
            enterprise_id="E1ORG",
            team_id=None,
            user_id="UADMIN",
            bot_token=ORG_TOKEN,
            bot_id="BBOT",
            bot_user_id="UBOT",
            bot_scopes=["chat:write"],
            is_enterprise_install=True,
        )
    )


@pytest.mark.slow
def test_an_org_wide_install_serves_the_step(oauth_bot: OAuthBot, bot: Bot) -> None:  # noqa: F811
    """Slack requires custom steps to be org-ready: an Enterprise Grid org installs errkb once for
    every workspace, and the step is served with that installation."""
    install_org(oauth_bot, bot.fake)
    status, execution = executed(
        oauth_bot.send, {"error_text": PASTE}, team="T9SOMEWS", org="E1ORG"
    )
    assert status == 200
    outputs = outputs_of(completion(bot, "functions.completeSuccess", execution))
    assert outputs["record_id"] == FROB


@pytest.mark.slow
def test_an_org_wide_install_answers_a_paste_with_the_orgs_token(
    oauth_bot: OAuthBot,  # noqa: F811
    bot: Bot,
) -> None:
    """A paste's answer is work done after Slack is acknowledged: the job finds the org's
    installation by its enterprise (the workspace has none of its own)."""
    install_org(oauth_bot, bot.fake)
    n = oauth_bot.send.next_id()
    ts = f"1722500000.{n:06d}"
    event = {
        "type": "message",
        "channel": "C0ORGWIDE",
        "user": EN_USER,
        "text": PASTE,
        "ts": ts,
        "client_msg_id": f"cm-org-{ts}",
        "channel_type": "channel",
        "team": "T9SOMEWS",
    }
    body = {
        "token": "legacy",
        "team_id": "T9SOMEWS",
        "enterprise_id": "E1ORG",
        "api_app_id": "A1",
        "type": "event_callback",
        "event_id": f"Ev{n:08d}",
        "event_time": int(time.time()),
        "event": event,
        "authorizations": [
            {
                "enterprise_id": "E1ORG",
                "team_id": None,
                "user_id": "UBOT",
                "is_bot": True,
                "is_enterprise_install": True,
            }
        ],
    }
    assert oauth_bot.send.post(json.dumps(body).encode(), "application/json").status == 200
    [post] = bot.fake.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("channel") == "C0ORGWIDE"
    )
    assert post.headers.get("Authorization") == f"Bearer {ORG_TOKEN}" and FROB in json.dumps(
        post.params["blocks"]
    )
