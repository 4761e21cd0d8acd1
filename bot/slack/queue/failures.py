"""Where failures end: one handler for a job's failure, one for a request's.

- :func:`report_failure` (the runner's ``on_failure``): a typed error becomes
  a translated, private message to the user who asked; anything else gets
  an incident id, logged with its traceback and shown. Work nobody asked for
  (a paste in a channel) fails silently, logged.
- :func:`handle_request_error` (Bolt's ``app.error``) for what fails while
  Slack waits: a malformed payload is a 400, a database that is away or a
  bot token Slack refuses for now a 503 (Slack delivers events again; the
  token's trouble is logged once, by :mod:`bot.slack.adapter.link`), a late event
  after an uninstall a quiet 200, anything else an incident.
"""

from __future__ import annotations

import logging
import uuid
from typing import Any

from pydantic import ValidationError
from slack_bolt import BoltResponse

from bot.errors import ErrkbError, SlackUnavailable, SlackUninstalled, StorageUnavailable
from bot.i18n import DEFAULT_LOCALE, negotiate_locale
from bot.render.blocks import ephemeral
from bot.render.panels import render_error
from bot.render.state import BadState
from bot.settings import Settings
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.queue.jobs import payload_model
from bot.store.jobs_repo import Job

log = logging.getLogger(__name__)


def _message(error: Exception) -> tuple[str, dict[str, object]]:
    if isinstance(error, ErrkbError):
        log.warning("%s: %s", type(error).__name__, error)
        return error.key, {"id": getattr(error, "record_id", ""), "incident": ""}
    incident = uuid.uuid4().hex[:12]
    log.error(
        "unexpected error, incident %s", incident, exc_info=error, extra={"incident": incident}
    )
    return "error.unexpected", {"id": "", "incident": incident}


def report_failure(job: Job, error: Exception, *, slack: SlackGateway, settings: Settings) -> None:
    """Tell the user what went wrong, in their language, only to them."""
    key, params = _message(error)
    model = payload_model(job.kind)
    try:
        if model is None:
            raise ValueError(f"no job kind {job.kind!r}")
        payload = model.model_validate(job.payload)
    except (ValueError, ValidationError):
        log.warning("job %s has no valid payload to answer", job.key)
        return
    response_url, channel, user, passive = payload.where()
    if passive or not user:
        return
    locale = negotiate_locale(
        None, slack.user_locale(user), settings.channel_locales.get(channel or ""), ""
    )
    message = render_error(locale or DEFAULT_LOCALE, key, **params)
    if response_url:
        slack.respond(response_url, ephemeral(message))
    elif channel:
        slack.post_ephemeral(
            channel=channel, user=user, text=message["text"], blocks=message["blocks"]
        )


def handle_request_error(
    error: Exception, body: dict[str, Any], response: BoltResponse | None
) -> BoltResponse:
    """Bolt's ``app.error``: the status Slack gets for a request whose acknowledgement failed."""
    if isinstance(error, ValidationError | BadState):
        log.info("malformed Slack payload: %s", type(error).__name__)
        return BoltResponse(status=400, body="")
    if isinstance(error, StorageUnavailable):
        log.warning("cannot take Slack work now: %s", error)
        return BoltResponse(status=503, body="")
    if isinstance(error, SlackUnavailable):
        return BoltResponse(status=503, body="", headers={"Retry-After": "30"})
    if isinstance(error, SlackUninstalled):  # a late event from a workspace that removed errkb
        return BoltResponse(status=200, body="")
    _message(error)
    return BoltResponse(status=500, body="")
