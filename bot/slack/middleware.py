"""Global middleware: count requests; ignore bots (errkb included), edits and deletions."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from slack_bolt import BoltResponse
from slack_bolt.request import BoltRequest

from bot.slack.metrics import Metrics

#: Message subtypes that are someone typing something new; all others are ignored.
ANSWERABLE_SUBTYPES = frozenset({None, "file_share", "thread_broadcast", "me_message"})


def request_kind(body: dict[str, Any]) -> str:
    if body.get("type") == "event_callback":
        return f"event:{(body.get('event') or {}).get('type', '?')}"
    if "command" in body:
        return "command"
    return str(body.get("type") or "other")


def should_ignore(event: dict[str, Any], bot_user_id: str | None) -> bool:
    """True for a bot's message (errkb's own included), an edit, a deletion or a system message."""
    if event.get("type") not in ("message", "app_mention"):
        return False
    return bool(
        event.get("bot_id")
        or event.get("bot_profile")
        or event.get("subtype") not in ANSWERABLE_SUBTYPES
        or (bot_user_id and event.get("user") == bot_user_id)
        or not event.get("user")
    )


def make_middleware(metrics: Metrics) -> Callable[..., BoltResponse | None]:
    def ignore_noise(req: BoltRequest, body: dict[str, Any], next: Callable[[], None]) -> BoltResponse | None:
        metrics.event(request_kind(body))
        event = body.get("event") if body.get("type") == "event_callback" else None
        if isinstance(event, dict) and should_ignore(event, req.context.bot_user_id):
            metrics.decline("ignored")
            return BoltResponse(status=200, body="")
        next()
        return None

    return ignore_noise
