"""The surfaces beyond messages: modals (``views.open``), custom steps
(``functions.completeSuccess`` / ``completeError``) and assistant threads
(``assistant.threads.*``), which answer ``invalid_arguments`` without what Slack requires;
and ``apps.connections.open``, whose WebSocket this stand-in does not serve (the Socket Mode
stand-in does)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from tests.slack.fake_slack.values import Grant, Reply

if TYPE_CHECKING:
    from tests.slack.fake_slack.state import FakeSlack

#: Custom-step and assistant-thread methods, with the arguments Slack requires of each.
SURFACE_METHODS: dict[str, tuple[str, ...]] = {
    "functions.completeSuccess": ("function_execution_id", "outputs"),
    "functions.completeError": ("function_execution_id", "error"),
    "assistant.threads.setStatus": ("channel_id", "thread_ts", "status"),
    "assistant.threads.setTitle": ("channel_id", "thread_ts", "title"),
    "assistant.threads.setSuggestedPrompts": ("channel_id", "thread_ts", "prompts"),
}


def open_view(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    return 200, {"ok": True, "view": {"id": "V1", **(params.get("view") or {})}}, {}


def open_connection(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    """A WebSocket URL where nothing answers."""
    return 200, {"ok": True, "url": "ws://127.0.0.1:9/link"}, {}


def checked(method: str) -> Callable[[FakeSlack, dict[str, Any], str, Grant | None], Reply]:
    """How ``method`` answers: ``invalid_arguments`` without what Slack requires of it."""

    def complete(
        fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
    ) -> Reply:
        problem = surface_problem(method, params)
        return 200, ({"ok": False, "error": problem} if problem else {"ok": True}), {}

    return complete


def surface_problem(method: str, params: dict[str, Any]) -> str | None:
    """Slack's error for a custom-step or assistant-thread call missing what it requires."""
    # an empty status is allowed: it clears the thread's status
    missing = [
        p
        for p in SURFACE_METHODS[method]
        if params.get(p) is None or (params[p] == "" and p != "status")
    ]
    if missing:
        return "invalid_arguments"
    if method == "functions.completeSuccess":
        outputs = params["outputs"]
        outputs = json.loads(outputs) if isinstance(outputs, str) else outputs
        return None if isinstance(outputs, dict) else "invalid_arguments"
    if method == "assistant.threads.setSuggestedPrompts":
        prompts = params["prompts"]
        prompts = json.loads(prompts) if isinstance(prompts, str) else prompts
        good = (
            isinstance(prompts, list)
            and 1 <= len(prompts) <= 4
            and all(isinstance(p, dict) and p.get("title") and p.get("message") for p in prompts)
        )
        return None if good else "invalid_arguments"
    return None


METHODS = {
    "views.open": open_view,
    "apps.connections.open": open_connection,
    **{method: checked(method) for method in SURFACE_METHODS},
}
