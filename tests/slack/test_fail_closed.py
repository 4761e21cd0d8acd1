"""Fail closed: a signed request naming no workspace is foreign to a single-workspace
install, a malformed signed payload is refused with 400 at the gate (no traceback),
and an event type errkb does not read is acknowledged and ignored."""

from __future__ import annotations

import json
import logging
import time
from typing import Any
from urllib.parse import urlencode

import pytest

from bot.slack.adapter.middleware import foreign
from tests.slack.conftest import CHANNEL, PASTE, Bot, Counted


def _event_body(bot: Bot, event: Any, **envelope: Any) -> dict[str, Any]:
    n = bot.send.next_id()
    body = {
        "token": "legacy",
        "team_id": "T1",
        "api_app_id": "A1",
        "type": "event_callback",
        "event_id": f"EvFC{n:06d}",
        "event_time": int(time.time()),
        "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": True}],
        "event": event,
    }
    body.update(envelope)
    return {k: v for k, v in body.items() if v is not None}


def _paste_event(bot: Bot, **fields: Any) -> dict[str, Any]:
    ts = f"1722900000.{bot.send.next_id():06d}"
    event = {
        "type": "message",
        "channel": CHANNEL,
        "user": "UENGLISH",
        "text": PASTE,
        "ts": ts,
        "client_msg_id": f"cm-{ts}",
        "channel_type": "channel",
    }
    event.update(fields)
    return {k: v for k, v in event.items() if v is not None}


def _post_json(bot: Bot, body: dict[str, Any]) -> int:
    return bot.send.post(json.dumps(body).encode(), "application/json").status


def _post_form(bot: Bot, form: dict[str, str]) -> int:
    return bot.send.post(urlencode(form).encode(), "application/x-www-form-urlencoded").status


def _no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info or r.levelno >= logging.ERROR], caplog.text


@pytest.mark.parametrize(
    "envelope",
    [
        pytest.param({"team_id": None, "authorizations": None}, id="no workspace"),
        pytest.param(
            {"team_id": None, "authorizations": None, "enterprise_id": "E1"},
            id="only an enterprise",
        ),
        pytest.param(
            {"team_id": None, "authorizations": [{"enterprise_id": "E1", "is_bot": True}]},
            id="an authorization naming only an enterprise",
        ),
    ],
)
def test_a_signed_event_naming_no_workspace_is_foreign(
    bot: Bot, counted: Counted, envelope: dict[str, Any]
) -> None:
    assert _post_json(bot, _event_body(bot, _paste_event(bot), **envelope)) == 403
    assert counted.value("errkb_declines_total", reason="foreign_team") == 1
    time.sleep(0.3)
    assert not bot.fake.of("chat.postMessage"), "nothing is answered"


def test_the_same_event_with_its_workspace_is_answered(bot: Bot) -> None:
    assert _post_json(bot, _event_body(bot, _paste_event(bot))) == 200
    assert bot.fake.wait_for("chat.postMessage")


def test_an_org_wide_install_checks_the_organisation() -> None:
    assert not foreign("T1", None, team="T1", enterprise=None)
    assert foreign("T1", None, team=None, enterprise="E1")
    assert foreign("T1", None, team="T2", enterprise=None)
    assert not foreign("T1", "E1", team="T7", enterprise="E1"), "any workspace of the organisation"
    assert not foreign("T1", "E1", team=None, enterprise="E1")
    assert foreign("T1", "E1", team="T1", enterprise="E2")
    assert foreign("T1", "E1", team="T1", enterprise=None)


def _interaction(bot: Bot, **fields: Any) -> dict[str, Any]:
    n = bot.send.next_id()
    payload = {
        "type": "block_actions",
        "team": {"id": "T1"},
        "user": {"id": "UENGLISH", "team_id": "T1"},
        "api_app_id": "A1",
        "trigger_id": f"trig-fc{n}",
        "channel": {"id": CHANNEL},
        "container": {"type": "message", "message_ts": "1", "channel_id": CHANNEL},
        "actions": [
            {
                "type": "button",
                "action_id": "vote_fixed",
                "block_id": "b",
                "value": "x",
                "action_ts": "1.2",
            }
        ],
    }
    payload.update(fields)
    return payload


MALFORMED_EVENTS = {
    "event as a string": lambda bot: _event_body(bot, "message"),
    "event as a list": lambda bot: _event_body(bot, [_paste_event(bot)]),
    "event without a type": lambda bot: _event_body(bot, _paste_event(bot, type=None)),
    "a message without its channel": lambda bot: _event_body(bot, _paste_event(bot, channel=None)),
    "a message without its ts": lambda bot: _event_body(bot, _paste_event(bot, ts=None)),
    "a ts as a number": lambda bot: _event_body(bot, _paste_event(bot, ts=1722900000.5)),
    "text as an object": lambda bot: _event_body(bot, _paste_event(bot, text={"a": 1})),
    "files as a string": lambda bot: _event_body(bot, _paste_event(bot, files="crash.log")),
    "a team id as a number": lambda bot: _event_body(bot, _paste_event(bot), team_id=1),
    "no event id": lambda bot: _event_body(bot, _paste_event(bot), event_id=None),
    "a mention without a channel": lambda bot: _event_body(
        bot, _paste_event(bot, type="app_mention", channel=None)
    ),
}

MALFORMED_INTERACTIONS = {
    "an empty actions list": lambda bot: _interaction(bot, actions=[]),
    "actions as a string": lambda bot: _interaction(bot, actions="vote_fixed"),
    "an action without its id": lambda bot: _interaction(
        bot, actions=[{"type": "button", "value": "x"}]
    ),
    "no user": lambda bot: _interaction(bot, user=None),
    "a view without type": lambda bot: {
        "type": "view_submission",
        "team": {"id": "T1"},
        "user": {"id": "UENGLISH"},
        "view": {"id": "V1", "callback_id": "add_record", "state": {"values": {}}},
    },
    "a view as a string": lambda bot: {
        "type": "view_submission",
        "team": {"id": "T1"},
        "user": {"id": "UENGLISH"},
        "view": "V1",
    },
    "a message shortcut without its message": lambda bot: {
        "type": "message_action",
        "team": {"id": "T1"},
        "user": {"id": "UENGLISH"},
        "channel": {"id": CHANNEL},
        "callback_id": "lookup",
        "trigger_id": "t1",
    },
}


@pytest.mark.parametrize("make", list(MALFORMED_EVENTS.values()), ids=list(MALFORMED_EVENTS))
def test_a_malformed_signed_event_is_refused_at_the_gate(
    bot: Bot, make: Any, caplog: pytest.LogCaptureFixture
) -> None:
    response = bot.send.post(json.dumps(make(bot)).encode(), "application/json")
    assert response.status == 400
    assert response.json()["error"].startswith("malformed event: ")
    _no_traceback(caplog)


@pytest.mark.parametrize(
    "make", list(MALFORMED_INTERACTIONS.values()), ids=list(MALFORMED_INTERACTIONS)
)
def test_a_malformed_signed_interaction_is_refused_at_the_gate(
    bot: Bot, make: Any, caplog: pytest.LogCaptureFixture
) -> None:
    payload = {k: v for k, v in make(bot).items() if v is not None}
    response = bot.send.interactive(payload)
    assert response.status == 400 and response.json()["error"].startswith("malformed ")
    _no_traceback(caplog)


def test_a_malformed_slash_command_is_refused_at_the_gate(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    form = {
        "token": "legacy",
        "team_id": "T1",
        "command": "/errkb",
        "text": "help",
        "user_id": "UENGLISH",
    }
    assert _post_form(bot, form) == 400  # no channel_id: every slash command carries one
    _no_traceback(caplog)


def test_an_event_errkb_does_not_read_is_acknowledged_and_ignored(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    event = {
        "type": "pin_added",
        "user": "UENGLISH",
        "channel_id": CHANNEL,
        "item": {"type": "message"},
        "event_ts": "1722900000.000001",
    }
    response = bot.send.post(json.dumps(_event_body(bot, event)).encode(), "application/json")
    assert response.status == 200
    time.sleep(0.3)
    assert not bot.fake.calls or all(c.method == "auth.test" for c in bot.fake.calls)
    _no_traceback(caplog)
