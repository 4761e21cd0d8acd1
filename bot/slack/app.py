"""``create_app``: the one place the Bolt app is built, from what the caller built.

No module-level ``App``: ``errkb serve`` and the tests each build exactly the
app they need. Listeners ack at once and do their work lazily on
``executor`` (in a copy of the request's context: its ids and bot token);
with ``process_before_response`` Slack gets its answer as soon as the ack
function returns, whatever the paste. With ``SLACK_CLIENT_ID`` the app is a
multi-workspace install (:mod:`bot.slack.install`).
"""

from __future__ import annotations

import logging
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import Any

from slack_bolt import App

from bot.errors import ConfigError
from bot.settings import Settings
from bot.slack import listeners
from bot.slack.clock import Clock
from bot.slack.failures import report_error
from bot.slack.gateway import SlackGateway
from bot.slack.install import oauth_settings
from bot.slack.middleware import make_middleware
from bot.slack.scope import ContextExecutor
from bot.slack.world import GraphSource, IndexSource, World
from bot.store.db import Store

log = logging.getLogger(__name__)


def create_app(
    settings: Settings,
    store: Store,
    live_index: IndexSource,
    graph_holder: GraphSource,
    gateway: SlackGateway,
    clock: Clock,
    *,
    executor: Executor | None = None,
) -> App:
    """The Slack app with every listener, the middleware and the one error handler."""
    problems = settings.serve_problems()
    if problems or settings.slack_signing_secret is None:
        raise ConfigError("missing settings: " + "; ".join(problems))
    world = World(settings=settings, store=store, index=live_index, graph=graph_holder, gateway=gateway,
                  clock=clock, metrics=gateway.metrics)  # fmt: skip
    work = executor or ThreadPoolExecutor(settings.workers, thread_name_prefix="errkb-work")
    app = App(
        client=gateway.client,
        signing_secret=settings.slack_signing_secret.get_secret_value(),
        process_before_response=True,
        listener_executor=ContextExecutor(work),
        oauth_settings=oauth_settings(settings, store),
        raise_error_for_unhandled_request=False,
        logger=logging.getLogger("bot.slack.bolt"),
    )
    app.use(make_middleware(world.metrics))

    @app.error
    def handle_error(error: Exception, body: dict[str, Any]) -> None:
        report_error(world, error, body)

    listeners.register(app, world)
    return app
