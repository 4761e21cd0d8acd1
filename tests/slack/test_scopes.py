"""Scopes: manifest.yaml is the one source of errkb's bot scopes, they are exactly what errkb's
Web API calls and events need (slack_methods.yaml, a row per method citing Slack's page), and the
stand-in refuses a call as Slack does when the install lacks one."""

from __future__ import annotations

import ast
import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.settings import MANIFEST_SCOPES
from tests.slack.conftest import TOKEN, Bot
from tests.slack.fake_slack import FakeSlack, manifest_scopes, methods_table

ROOT = Path(__file__).resolve().parents[2]
#: slack_sdk helpers errkb calls, and the Web API methods each makes.
SDK_HELPERS = {"files_upload_v2": ("files.getUploadURLExternal", "files.completeUploadExternal")}
#: What Bolt calls on errkb's behalf (the token check, the OAuth code exchange).
BOLT_CALLS = ("auth.test", "oauth.v2.access")


def _manifest() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "manifest.yaml").read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def called_methods() -> set[str]:
    """Every Web API method errkb's code calls: ``.call("method", …)`` and the SDK helpers it
    uses."""
    found = set(BOLT_CALLS)
    for path in (ROOT / "bot").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            name = node.func.attr
            if name == "call" and node.args and isinstance(node.args[0], ast.Constant):
                found.add(str(node.args[0].value))
            found.update(SDK_HELPERS.get(name, ()))
    return found


def _scopes_of(row: dict[str, Any]) -> set[str]:
    return set(row.get("scopes") or ()) | set((row.get("conversation") or {}).values())


def test_the_manifest_the_settings_default_and_env_example_name_the_same_scopes() -> None:
    manifest = _manifest()["oauth_config"]["scopes"]["bot"]
    example = re.search(
        r"^# SLACK_SCOPES=(.*)$", (ROOT / ".env.example").read_text(encoding="utf-8"), re.M
    )
    assert example is not None
    assert (
        list(MANIFEST_SCOPES) == manifest == example.group(1).split(",") == list(manifest_scopes())
    )


def test_every_row_cites_slacks_page_for_it() -> None:
    table = methods_table()
    for name, row in table["methods"].items():
        assert row["doc"] == f"https://api.slack.com/methods/{name}", name
        assert "scopes" in row or "conversation" in row, name
    for name, row in table["events"].items():
        assert row["doc"] == f"https://api.slack.com/events/{name}", name


def test_every_web_api_call_in_bot_has_a_row_the_manifest_grants() -> None:
    granted = set(_manifest()["oauth_config"]["scopes"]["bot"])
    table = methods_table()["methods"]
    called = called_methods()
    assert {
        "chat.postMessage",
        "conversations.open",
        "conversations.replies",
        "users.info",
    } <= called
    assert not called - set(table), "calls with no row in slack_methods.yaml"
    for method in called:
        needed = _scopes_of(table[method])
        assert not needed or needed & granted, f"{method} needs one of {sorted(needed)}"


@pytest.mark.slow
def test_the_manifest_asks_for_no_scope_nothing_uses() -> None:
    manifest = _manifest()
    table = methods_table()
    used = set().union(*(_scopes_of(table["methods"][m]) for m in called_methods()))
    events = manifest["settings"]["event_subscriptions"]["bot_events"]
    for event in events:
        needed = set(table["events"][event]["scopes"])
        assert needed <= set(manifest["oauth_config"]["scopes"]["bot"]), event
        used |= needed
    features = [f for f in table["features"] if manifest["features"].get(f)]
    assert features == ["slash_commands", "shortcuts", "assistant_view"]
    used |= {s for f in features for s in table["features"][f]["scopes"]}
    used |= set(table["downloads"]["scopes"])  # snippets are read from their url_private
    assert set(manifest["oauth_config"]["scopes"]["bot"]) <= used


def _post(
    fake: FakeSlack, method: str, params: dict[str, Any], token: str | None = TOKEN
) -> tuple[int, Any]:
    headers = {"Content-Type": "application/json; charset=utf-8"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(
        fake.api_url + method, data=json.dumps(params).encode(), headers=headers
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, json.loads(response.read())


def test_the_stand_in_answers_a_missing_scope_as_slack_does(bot: Bot) -> None:
    bot.fake.scopes = tuple(s for s in manifest_scopes() if s != "chat:write")
    status, body = _post(bot.fake, "chat.postMessage", {"channel": "C1", "text": "hi"})
    assert status == 200
    assert body == {
        "ok": False,
        "error": "missing_scope",
        "needed": "chat:write",
        "provided": ",".join(bot.fake.scopes),
    }
    bot.fake.scopes = tuple(s for s in manifest_scopes() if s != "groups:history")
    assert _post(bot.fake, "conversations.replies", {"channel": "C1", "ts": "1"})[1][
        "ok"
    ]  # public: channels:history
    private = _post(bot.fake, "conversations.replies", {"channel": "G1", "ts": "1"})[1]
    assert (private["error"], private["needed"]) == ("missing_scope", "groups:history")


def test_the_stand_in_refuses_unknown_methods_and_tokens(bot: Bot) -> None:
    assert (
        _post(bot.fake, "chat.scheduleMessage", {"channel": "C1"})[1]["error"] == "unknown_method"
    )
    assert _post(bot.fake, "auth.test", {}, token=None)[1] == {"ok": False, "error": "not_authed"}
    assert _post(bot.fake, "auth.test", {}, token="xoxb-someone-else")[1] == {
        "ok": False,
        "error": "invalid_auth",
    }
    refusal = bot.fake.refuse("channel_not_found", channel="CGONE", times=1)
    assert (
        _post(bot.fake, "chat.postMessage", {"channel": "CGONE", "text": "x"})[1]["error"]
        == "channel_not_found"
    )
    assert _post(bot.fake, "chat.postMessage", {"channel": "CGONE", "text": "x"})[1][
        "ok"
    ]  # only the next call
    assert refusal.times == 0


def test_the_graph_picture_needs_im_write_and_the_user_is_told_without_it(bot: Bot) -> None:
    """``/errkb graph`` opens a DM (conversations.open): without im:write Slack refuses it, and the
    person is told the picture could not be sent; with the manifest's scopes it arrives."""
    record = bot.records[0].id
    assert bot.send.command(f"graph {record}").status == 200
    assert bot.fake.wait_for("files.completeUploadExternal")
    bot.fake.reset()
    bot.fake.scopes = tuple(s for s in manifest_scopes() if s != "im:write")
    assert bot.send.command(f"graph {record}").status == 200
    opened = bot.fake.wait_for("conversations.open")
    told = bot.fake.wait_for(
        "response_url", where=lambda c: "direct message" in json.dumps(c.params).lower()
    )
    assert told and len(opened) == 1 and bot.fake.of("files.getUploadURLExternal") == []
