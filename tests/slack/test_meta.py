"""The edges stay honest: every id has a listener, every catalog every key, renderers stay pure."""

from __future__ import annotations

import ast
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from bot.i18n import available_locales, catalog, placeholders
from bot.render.ids import ActionId, CallbackId
from bot.render.state import (
    AddState,
    CorrectionModalState,
    DeprecateState,
    DigestItemState,
    ReplyState,
    VoteState,
)
from tests.slack.conftest import CHANNEL, EN_USER, Bot

ROOT = Path(__file__).resolve().parents[2]
PURE = [
    "bot/render/blocks.py",
    "bot/render/kit.py",
    "bot/render/panels.py",
    "bot/render/modal.py",
    "bot/i18n/__init__.py",
    "bot/render/ids.py",
    "bot/render/state.py",
]
FORBIDDEN = ("slack_sdk", "slack_bolt", "sqlalchemy", "apscheduler", "os", "datetime.datetime.now")


def test_every_catalog_has_the_same_keys_and_placeholders() -> None:
    english = catalog("en")
    assert set(available_locales()) >= {"en", "zh"}
    for locale in available_locales():
        other = catalog(locale)
        assert set(other) == set(english), f"{locale}: {set(other) ^ set(english)}"
        for key, text in english.items():
            assert placeholders(other[key]) == placeholders(text), f"{locale}:{key}"


def test_every_key_the_code_uses_is_in_the_catalogs() -> None:
    keys = set(catalog("en"))
    used: set[str] = set()
    for path in list((ROOT / "bot" / "render").glob("*.py")) + list(
        (ROOT / "bot" / "slack").rglob("*.py")
    ):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
                "t",
                "render_text",
                "render_error",
            ):
                for arg in node.args[:2]:
                    if (
                        isinstance(arg, ast.Constant)
                        and isinstance(arg.value, str)
                        and "." in arg.value
                    ):
                        used.add(arg.value)
    assert used and used <= keys, used - keys


@pytest.mark.parametrize("path", PURE)
def test_the_pure_middle_imports_no_io(path: str) -> None:
    tree = ast.parse((ROOT / path).read_text())
    for node in ast.walk(tree):
        names = (
            [a.name for a in node.names]
            if isinstance(node, ast.Import)
            else [node.module or ""]
            if isinstance(node, ast.ImportFrom)
            else []
        )
        for name in names:
            assert name.split(".")[0] not in FORBIDDEN, f"{path} imports {name}"


def _payload(kind: str, ident: str) -> dict[str, object]:
    if kind == "action":
        value = {
            ActionId.VOTE_FIXED: VoteState(reply=999999, record="x/y", pos=0).dump(),
            ActionId.VOTE_FAILED: VoteState(reply=999999, record="x/y", pos=0).dump(),
            ActionId.SHARE: ReplyState(reply=999999).dump(),
            **{
                a: DigestItemState(record="x/y", domain="x").dump()
                for a in ActionId
                if a.startswith("errkb.digest.")
            },
        }.get(ident, AddState().dump())
        return {
            "type": "block_actions",
            "team": {"id": "T1"},
            "user": {"id": EN_USER},
            "trigger_id": "t",
            "channel": {"id": CHANNEL},
            "actions": [{"type": "button", "action_id": ident, "value": value, "block_id": "b"}],
        }
    if ident in (CallbackId.LOOKUP_SHORTCUT, CallbackId.ADD_SHORTCUT):
        return {
            "type": "message_action",
            "team": {"id": "T1"},
            "callback_id": ident,
            "trigger_id": "t",
            "user": {"id": EN_USER},
            "channel": {"id": CHANNEL},
            "message": {"text": "hello", "ts": "1.0"},
        }
    metadata = {
        CallbackId.DEPRECATE_VIEW: DeprecateState(record="x/y", domain="x").dump(),
        CallbackId.CORRECT_VIEW: CorrectionModalState(reply=999999, wrong="x/y").dump(),
    }.get(ident, AddState().dump())
    return {
        "type": "view_submission",
        "team": {"id": "T1"},
        "user": {"id": EN_USER},
        "view": {
            "type": "modal",
            "callback_id": ident,
            "private_metadata": metadata,
            "state": {"values": {}},
        },
    }


@pytest.mark.parametrize(
    "kind,ident", [("action", a) for a in ActionId] + [("callback", c) for c in CallbackId]
)
def test_every_action_and_callback_id_has_a_listener(bot: Bot, kind: str, ident: str) -> None:
    """Bolt answers 404 to an interaction no listener matches."""
    response = bot.send.interactive(_payload(kind, ident))
    assert response.status == 200, (ident, response.body)


def test_every_button_modal_and_shortcut_job_has_the_one_use_case_its_kind_names() -> None:
    """A button's job kind is its action id, a modal's or shortcut's its callback id: each is
    declared once beside its use case, and every job kind the runner is given has a handler."""
    from bot.slack.queue.handlers import job_handlers
    from bot.slack.queue.jobs import TASKS, JobKind

    followed = {c for c in CallbackId if c is not CallbackId.LOOKUP_SHORTCUT}  # a lookup: a paste
    assert set(ActionId) | followed | set(JobKind) - {JobKind.COMMAND} == set(TASKS)
    wired = job_handlers(_everything())
    assert set(TASKS) | {JobKind.COMMAND} == set(wired)


def _everything() -> dict[str, object]:
    """A stand-in for every dependency a use case may name (binding never calls them)."""
    import inspect

    from bot.slack.queue.jobs import TASKS
    from bot.slack.usecases.slash import SUBCOMMANDS

    runs = [t.run for t in TASKS.values()] + [s.run for s in SUBCOMMANDS.values() if s.run]
    names = {
        name
        for run in runs
        for name, p in inspect.signature(run).parameters.items()
        if p.kind is p.KEYWORD_ONLY
    }
    return {name: object() for name in names}


class _Registrar:
    """Stands in for Bolt's App to see which events the listeners register."""

    def __init__(self) -> None:
        self.events: list[str] = []
        self.functions: list[str] = []

    def event(self, name: str) -> Callable[[object], object]:
        self.events.append(name)
        return lambda listener: listener

    def function(self, callback_id: str) -> Callable[[object], object]:
        self.functions.append(callback_id)
        return self.event("function_executed")

    def __getattr__(self, name: str) -> Callable[..., Callable[[object], object]]:
        return lambda *args, **kwargs: (
            lambda listener: listener
        )  # commands, actions, shortcuts, views


def test_the_manifest_subscribes_only_to_events_errkb_listens_to_and_enables_app_home() -> None:
    import yaml

    from bot.slack.adapter.listeners import MODULES

    manifest = yaml.safe_load((ROOT / "manifest.yaml").read_text())
    registrar = _Registrar()
    for module in MODULES:
        module.register(registrar)  # type: ignore[arg-type]
    subscribed = manifest["settings"]["event_subscriptions"]["bot_events"]
    assert {name.split(".")[0] for name in subscribed} <= set(registrar.events)
    assert set(manifest["functions"]) == set(registrar.functions)  # each step declared is served
    assert {"app_home_opened", "member_joined_channel", "message.im"} <= set(subscribed)
    home = manifest["features"]["app_home"]
    assert (
        home["home_tab_enabled"]
        and home["messages_tab_enabled"]
        and not home["messages_tab_read_only_enabled"]
    )
    scopes = set(manifest["oauth_config"]["scopes"]["bot"])
    assert {
        "channels:read",
        "groups:read",
        "im:history",
        "chat:write",
    } <= scopes  # joins; DMs; /errkb channel


def test_manifest_names_the_shortcut_and_the_command() -> None:
    import yaml

    manifest = yaml.safe_load((ROOT / "manifest.yaml").read_text())
    features = manifest["features"]
    shortcuts = {s["callback_id"] for s in features["shortcuts"]}
    assert shortcuts == {c.value for c in CallbackId if c.name.endswith("_SHORTCUT")}
    assert all(s["type"] == "message" for s in features["shortcuts"])
    assert features["slash_commands"][0]["command"] == "/errkb"
    settings = manifest["settings"]
    assert settings["interactivity"]["request_url"].endswith("/slack/events")
    assert {"message.channels", "app_mention"} <= set(settings["event_subscriptions"]["bot_events"])
    assert json.dumps(manifest)  # plain data
