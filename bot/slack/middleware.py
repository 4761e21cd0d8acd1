"""Global middleware: bind the request scope, count and log requests; ignore bots, edits and deletions."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import BoltContext, BoltResponse
from slack_bolt.request import BoltRequest

from bot.slack import scope
from bot.slack.metrics import Metrics

log = logging.getLogger(__name__)

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


def _header(req: BoltRequest, name: str) -> str | None:
    values = req.headers.get(name) or []
    return values[0] if values else None


def bind_scope(req: BoltRequest, body: dict[str, Any], context: BoltContext) -> None:
    """This request's ids and its workspace's bot token, for the log and the gateway (lazy work included)."""
    scope.bind(
        request_id=_header(req, scope.REQUEST_ID_HEADER) or scope.new_request_id(),
        team_id=context.team_id or body.get("team_id"),
        event_id=body.get("event_id"),
        bot_token=context.bot_token,
    )


def make_middleware(metrics: Metrics) -> Callable[..., BoltResponse | None]:
    def ignore_noise(req: BoltRequest, body: dict[str, Any], context: BoltContext,
                     next: Callable[[], None]) -> BoltResponse | None:  # fmt: skip
        bind_scope(req, body, context)
        kind = request_kind(body)
        retry = _header(req, "x-slack-retry-num")
        log.info(
            "slack request %s", kind, extra={"kind": kind, **({"retry": retry} if retry else {})}
        )
        metrics.event(kind)
        event = body.get("event") if body.get("type") == "event_callback" else None
        if isinstance(event, dict) and should_ignore(event, req.context.bot_user_id):
            metrics.decline("ignored")
            return BoltResponse(status=200, body="")
        next()
        return None

    return ignore_noise
