"""Global middleware, run after Bolt has checked the signature and authorised the request.

- bind the request scope (ids for the log, the workspace's token);
- refuse a workspace errkb is not installed in (a single-workspace install
  knows its own from ``auth.test`` at start, and a request naming no workspace
  is refused too; a multi-workspace install is checked by Bolt's installation
  store);
- count and log the request; ignore errkb's own messages, deletions and system messages;
- give the listeners what they use: the intake, the modal submissions and
  the revocations (``app_uninstalled``, ``tokens_revoked``: let through even
  when the token is already dead, :mod:`bot.slack.adapter.uninstall`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from slack_bolt import BoltContext, BoltResponse
from slack_bolt.request import BoltRequest

from bot.alerts import is_errkb_message, is_from_app
from bot.slack.adapter import scope
from bot.slack.adapter.gateway import MARKER_EVENT
from bot.slack.adapter.listeners.views import CONTEXT_KEY as SUBMISSIONS
from bot.slack.adapter.listeners.views import Submissions
from bot.slack.adapter.uninstall import CONTEXT_KEY as REVOCATIONS
from bot.slack.adapter.uninstall import Revocations
from bot.slack.queue.intake import CONTEXT_KEY as INTAKE
from bot.slack.queue.intake import Intake
from bot.slack.web.metrics import Metrics
from bot.throttle import LogThrottle

log = logging.getLogger(__name__)

#: Message subtypes that are someone typing something new; all others are ignored.
ANSWERABLE_SUBTYPES = frozenset({None, "file_share", "thread_broadcast", "me_message"})
#: Events that take errkb's tokens back: handled whether or not Slack still takes the token.
REVOKING_EVENTS = frozenset({"app_uninstalled", "tokens_revoked"})


def request_kind(body: dict[str, Any]) -> str:
    if body.get("type") == "event_callback":
        return f"event:{(body.get('event') or {}).get('type', '?')}"
    if "command" in body:
        return "command"
    return str(body.get("type") or "other")


def should_ignore(
    event: dict[str, Any],
    bot_user_id: str | None,
    *,
    bot_id: str | None = None,
    app_id: str | None = None,
) -> bool:
    """True for errkb's own messages (any install's), a deletion or a system message; another
    app's message and an edit go on to their listeners (:mod:`bot.slack.adapter.listeners.alerts`),
    which decide whether they hold anything to answer."""
    if event.get("type") not in ("message", "app_mention"):
        return False
    if event.get("type") == "message" and (
        event.get("subtype") == "message_changed" or is_from_app(event)
    ):
        shown = event.get("message") if event.get("subtype") == "message_changed" else event
        if not isinstance(shown, dict):
            return True
        return is_errkb_message(
            shown, bot_ids=[bot_id], app_ids=[app_id], marker_events=[MARKER_EVENT]
        )
    return bool(
        event.get("bot_id")
        or event.get("bot_profile")
        or event.get("subtype") not in ANSWERABLE_SUBTYPES
        or (bot_user_id and event.get("user") == bot_user_id)
        or not event.get("user")
    )


def foreign(installed: str, org: str | None, *, team: str | None, enterprise: str | None) -> bool:
    """Whether a request is from outside a single install: an org-wide install takes its
    organisation's requests, a workspace's install its workspace's; a request that names
    neither is foreign (it is never let through unchecked)."""
    if org is not None:
        return enterprise != org
    return team is None or team != installed


def _header(req: BoltRequest, name: str) -> str | None:
    values = req.headers.get(name) or []
    return values[0] if values else None


class Middleware:
    """The one global middleware; ``team`` gives the installed workspace (None: Bolt's
    installation store decides, a multi-workspace install)."""

    def __init__(
        self,
        *,
        metrics: Metrics,
        intake: Intake,
        submissions: Submissions,
        team: Callable[[], str | None] | None,
        org: Callable[[], str | None] | None = None,
        revocations: Revocations | None = None,
    ) -> None:
        self.metrics = metrics
        self.intake = intake
        self.submissions = submissions
        self.team = team
        self.org = org  # the organisation of an org-wide single install, None for a workspace's
        self.revocations = revocations
        self._refusals = LogThrottle(10.0)

    def __call__(
        self, req: BoltRequest, body: dict[str, Any], context: BoltContext, next: Callable[[], None]
    ) -> BoltResponse | None:
        scope.bind(
            request_id=_header(req, scope.REQUEST_ID_HEADER) or scope.new_request_id(),
            team_id=context.team_id or body.get("team_id"),
            event_id=body.get("event_id"),
            bot_token=context.bot_token,
            enterprise_id=context.enterprise_id if context.is_enterprise_install else None,
        )
        kind = request_kind(body)
        revoking = kind.removeprefix("event:") in REVOKING_EVENTS
        if self.team is not None:
            installed = self.team()
            if (
                installed is None and not revoking
            ):  # Slack has not said which workspace errkb is in yet
                return BoltResponse(status=503, body="", headers={"Retry-After": "30"})
            org = self.org() if self.org is not None else None
            if installed is not None and foreign(
                installed, org, team=context.team_id, enterprise=context.enterprise_id
            ):
                return self._refuse(kind, context.team_id or context.enterprise_id or "none")
        retry = _header(req, "x-slack-retry-num")
        log.info(
            "slack request %s", kind, extra={"kind": kind, **({"retry": retry} if retry else {})}
        )
        self.metrics.event(kind)
        event = body.get("event") if body.get("type") == "event_callback" else None
        if isinstance(event, dict) and should_ignore(
            event, req.context.bot_user_id, bot_id=req.context.bot_id, app_id=body.get("api_app_id")
        ):
            self.metrics.decline("ignored")
            return BoltResponse(status=200, body="")
        context[INTAKE] = self.intake
        context[SUBMISSIONS] = self.submissions
        context[REVOCATIONS] = self.revocations
        next()
        return None

    def _refuse(self, kind: str, team: str) -> BoltResponse:
        self.metrics.decline("foreign_team")
        if self._refusals.due():
            log.warning(
                "refused a request from a workspace errkb is not installed in",
                extra={"kind": kind, "request_team": team},
            )
        return BoltResponse(status=403, body="")
