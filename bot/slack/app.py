"""``create_app``: the Bolt app, from what the composition root built.

No module-level ``App``: ``errkb serve`` and the tests each build exactly the
app they need (:mod:`bot.slack.bootstrap`). With ``process_before_response``
Slack's answer waits for the listener, which only writes a job
(:mod:`bot.slack.intake`). With ``SLACK_CLIENT_ID`` the app is a
multi-workspace install (:mod:`bot.slack.install`).
"""

from __future__ import annotations

import logging

from slack_bolt import App
from slack_bolt.oauth.oauth_settings import OAuthSettings

from bot.errors import ConfigError
from bot.settings import Settings
from bot.slack import listeners
from bot.slack.failures import handle_request_error
from bot.slack.gateway import SlackGateway
from bot.slack.middleware import Middleware


def create_app(settings: Settings, *, gateway: SlackGateway, middleware: Middleware,
               oauth: OAuthSettings | None) -> App:  # fmt: skip
    """The Slack app with every listener, the middleware and the request error handler."""
    problems = settings.serve_problems()
    if problems or settings.slack_signing_secret is None:
        raise ConfigError("missing settings: " + "; ".join(problems))
    app = App(
        client=gateway.client,
        signing_secret=settings.slack_signing_secret.get_secret_value(),
        process_before_response=True,
        oauth_settings=oauth,
        raise_error_for_unhandled_request=False,
        logger=logging.getLogger("bot.slack.bolt"),
    )
    app.use(middleware)
    app.error(handle_request_error)
    listeners.register(app)
    return app
