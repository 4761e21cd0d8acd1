"""The shape every signed request of a kind has, checked at the gate before Bolt sees it.

A signed body can still be malformed (a bug in a proxy, a replayed test
payload, a key that leaked): ``event`` as a string, an empty ``actions``
list, a view without ``type``. Bolt and the listeners would fail on those
inside, with a 500 and a traceback. :func:`malformed` checks what every
payload of its kind carries, with the pydantic models the listeners read
(:mod:`bot.slack.adapter.payloads`) and of the right types, so the gate answers 400
naming the first field at fault. Fields a kind does not always carry are
not required; kinds errkb does not read pass (Bolt acknowledges or ignores
them).
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from bot.slack.adapter.payloads import (
    BlockActions,
    EventEnvelope,
    HomeOpenedEnvelope,
    MemberJoinedEnvelope,
    MessageShortcut,
    SlashCommand,
    View,
    ViewSubmission,
)


class _Shape(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class _AnyEvent(_Shape):
    type: str


class _Envelope(_Shape):
    """What every Events API callback carries (the workspace is checked later: a missing one
    is a foreign request, not a malformed one)."""

    event_id: str
    team_id: str | None = None
    enterprise_id: str | None = None
    event: _AnyEvent
    authorizations: list[dict[str, Any]] | None = None


class _TypedView(View):
    type: str


class _ViewPayload(ViewSubmission):
    view: _TypedView


class _GlobalShortcut(_Shape):
    callback_id: str
    trigger_id: str


#: The model of each event type errkb reads (the others need only the envelope).
EVENTS: dict[str, type[BaseModel]] = {
    "message": EventEnvelope,
    "app_mention": EventEnvelope,
    "app_home_opened": HomeOpenedEnvelope,
    "member_joined_channel": MemberJoinedEnvelope,
}
#: The model of each interaction type errkb reads.
INTERACTIONS: dict[str, type[BaseModel]] = {
    "block_actions": BlockActions,
    "view_submission": _ViewPayload,
    "view_closed": _ViewPayload,
    "message_action": MessageShortcut,
    "shortcut": _GlobalShortcut,
}


def _first_problem(model: type[BaseModel], body: dict[str, Any]) -> str | None:
    try:
        model.model_validate(body)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "body"
        return f"{where}: {error['msg'].lower()}"
    return None


def malformed(body: dict[str, Any]) -> str | None:
    """Why a parsed, signed body is not a payload of its kind, or None when it is."""
    kind = body.get("type")
    if "command" in body:
        problem = _first_problem(SlashCommand, body)
        return f"malformed slash command: {problem}" if problem else None
    if kind == "event_callback":
        problem = _first_problem(_Envelope, body)
        if problem is None:
            model = EVENTS.get(str(body["event"]["type"]))
            problem = _first_problem(model, body) if model else None
        return f"malformed event: {problem}" if problem else None
    if not isinstance(kind, str):
        return None  # url_verification, ssl_check and the like are Bolt's
    model = INTERACTIONS.get(kind)
    problem = _first_problem(model, body) if model else None
    return f"malformed {kind}: {problem}" if problem else None


__all__ = ["EVENTS", "INTERACTIONS", "malformed"]
