"""The one error handler: typed errors → a translated ephemeral message; others → an incident.

Registered as ``app.error`` for acknowledgement-time failures and wrapped
around every lazy listener (:func:`guarded`), since Bolt only logs those.
"""

from __future__ import annotations

import functools
import logging
import time
import uuid
from collections.abc import Callable
from typing import Any

from bot.errors import ErrkbError, SlackUnavailable
from bot.i18n import DEFAULT_LOCALE
from bot.render.blocks import ephemeral
from bot.render.panels import render_error
from bot.slack.locale import user_locale
from bot.slack.world import World

log = logging.getLogger(__name__)


def _where(body: dict[str, Any]) -> tuple[str | None, str | None, str | None]:
    """(response_url, channel, user) of a request body, whatever its kind."""
    event = body.get("event") or {}
    channel = (
        body.get("channel_id") or (body.get("channel") or {}).get("id") or event.get("channel")
    )
    user = body.get("user_id") or (body.get("user") or {}).get("id") or event.get("user")
    return body.get("response_url"), channel, user


def _locale(world: World, user: str | None, channel: str | None) -> str:
    if not user:
        return DEFAULT_LOCALE
    try:
        return user_locale(world, user=user, channel=channel)
    except ErrkbError:  # the database or Slack is what failed: English it is
        return DEFAULT_LOCALE


def report_error(world: World, error: Exception, body: dict[str, Any]) -> None:
    """Tell the user what went wrong, in their language, only to them."""
    if isinstance(error, ErrkbError):
        key, params = error.key, {"id": getattr(error, "record_id", ""), "incident": ""}
        log.warning("%s: %s", type(error).__name__, error)
    else:
        incident = uuid.uuid4().hex[:12]
        key, params = "error.unexpected", {"id": "", "incident": incident}
        log.error(
            "unexpected error, incident %s", incident, exc_info=error, extra={"incident": incident}
        )
    response_url, channel, user = _where(body)
    passive = (
        body.get("type") == "event_callback" and (body.get("event") or {}).get("type") == "message"
    )
    if passive or isinstance(error, SlackUnavailable) and not response_url:
        return  # a paste nobody asked errkb about: log only; or Slack itself is down
    payload = render_error(_locale(world, user, channel), key, **params)
    try:
        if response_url:
            world.gateway.respond(response_url, ephemeral(payload))
        elif channel and user:
            world.gateway.post_ephemeral(
                channel=channel, user=user, text=payload["text"], blocks=payload["blocks"]
            )
    except SlackUnavailable:
        log.warning("could not tell the user about an error: Slack unavailable")


def guarded(world: World, work: Callable[..., None]) -> Callable[..., None]:
    """``work`` as a lazy listener whose failures go through :func:`report_error`."""

    @functools.wraps(work)
    def run(**kwargs: Any) -> None:
        started = time.perf_counter()
        try:
            work(**kwargs)
        except Exception as error:  # noqa: BLE001 - the one place errors of lazy work are handled
            report_error(world, error, kwargs.get("body") or {})
        else:
            ms = round((time.perf_counter() - started) * 1000, 1)
            log.info("%s done", work.__name__, extra={"listener": work.__name__, "ms": ms})

    return run
