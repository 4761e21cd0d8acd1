"""``create_app``: the Bolt app, from what the composition root built.

No module-level ``App``: ``errkb serve`` and the tests each build exactly the
app they need (:mod:`bot.bootstrap`). With ``process_before_response``
Slack's answer waits for the listener, which only writes a job
(:mod:`bot.slack.queue.intake`). With ``SLACK_CLIENT_ID`` the app is a
multi-workspace install (:mod:`bot.slack.adapter.install`); otherwise ``authorize``
says whether Slack takes the bot token (:mod:`bot.slack.adapter.link`): nothing
calls Slack inside ``App()``, so a bad token or Slack away never stops
errkb at start.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from slack_bolt import App
from slack_bolt.authorization import AuthorizeResult
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk import WebClient

from bot.errors import ConfigError
from bot.settings import Settings
from bot.slack.adapter import listeners
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.middleware import Middleware
from bot.slack.queue.failures import handle_request_error


def create_app(
    settings: Settings,
    *,
    gateway: SlackGateway,
    middleware: Middleware,
    oauth: OAuthSettings | None,
    authorize: Callable[..., AuthorizeResult] | None = None,
) -> App:
    """The Slack app with every listener, the middleware and the request error handler.

    Bolt's per-request client is built from ``client``'s base URL and given the token
    ``authorize`` (or the installation store) found, so it starts without one."""
    problems = settings.serve_problems()
    if problems or settings.slack_signing_secret is None:
        raise ConfigError("missing settings: " + "; ".join(problems))
    # the gateway client's logger (older slack_sdk releases keep it as ``_logger`` only)
    client_logger = getattr(gateway.client, "logger", None) or getattr(
        gateway.client, "_logger", None
    )
    app = App(
        client=WebClient(
            base_url=gateway.client.base_url,
            timeout=gateway.client.timeout,
            ssl=gateway.client.ssl,
            retry_handlers=gateway.client.retry_handlers,
            logger=client_logger,
        ),
        signing_secret=settings.slack_signing_secret.get_secret_value(),
        process_before_response=True,
        token_verification_enabled=False,
        authorize=None if oauth is not None else authorize,
        oauth_settings=oauth,
        raise_error_for_unhandled_request=False,
        logger=logging.getLogger("bot.slack.bolt"),
    )
    app.use(middleware)
    app.error(handle_request_error)
    listeners.register(app)
    return app
