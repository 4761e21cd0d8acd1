"""The composition root of the Slack bot: settings → gateway → use cases → runner → app.

The one place that knows every dependency. Use cases take what they use by
name (:func:`bot.slack.queue.handlers.inject`); nothing else holds a bag of
everything. ``errkb serve`` and the tests build the bot here.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

from slack_bolt import App
from slack_bolt.oauth.oauth_settings import OAuthSettings

from bot.clock import SYSTEM_CLOCK, Clock
from bot.knowledge import GraphSource, IndexSource
from bot.precedence import RequestGate
from bot.settings import Settings
from bot.slack.adapter.app import create_app
from bot.slack.adapter.gateway import SlackGateway
from bot.slack.adapter.install import job_tokens, oauth_settings
from bot.slack.adapter.link import SlackLink
from bot.slack.adapter.listeners.views import Submissions
from bot.slack.adapter.middleware import Middleware
from bot.slack.adapter.uninstall import Revocations
from bot.slack.queue.failures import report_failure
from bot.slack.queue.handlers import inject, job_handlers
from bot.slack.queue.intake import Intake
from bot.slack.queue.runner import JobRunner
from bot.slack.usecases import corrections, digest_actions, feedback, workflow
from bot.slack.web.metrics import Metrics
from bot.store.db import Store

log = logging.getLogger(__name__)


@dataclass
class SlackBot:
    """The built bot: the Bolt app to serve, the runner doing its work; ``link`` says whether
    Slack takes the bot token (a single-workspace install; None: per workspace, OAuth)."""

    app: App
    runner: JobRunner
    intake: Intake
    gateway: SlackGateway
    link: SlackLink | None

    def start(self) -> None:
        if self.link is not None:
            self.link.start()  # auth.test at once, not on the first request
        self.runner.start()

    def stop(self) -> None:
        """Finish the work in flight; what is still pending stays for the next start."""
        self.runner.stop()
        if self.link is not None:
            self.link.stop()


def _job_tokens(
    oauth: OAuthSettings | None, link: SlackLink | None, settings: Settings
) -> Callable[[str | None], str | None]:
    """The bot token for a job's workspace: the installation's, refreshed when due (multi-workspace),
    else the gateway's own, once Slack takes it."""
    if oauth is not None:
        return job_tokens(oauth, settings)
    assert link is not None

    def authorize(team: str | None) -> str | None:
        link.usable()
        return None

    return authorize


def build_slack_bot(
    settings: Settings,
    *,
    store: Store,
    index: IndexSource,
    graph: GraphSource,
    clock: Clock,
    metrics: Metrics,
    gateway: SlackGateway | None = None,
    queue_clock: Callable[[], datetime] = SYSTEM_CLOCK.now,
    gate: RequestGate | None = None,
    slack_backoff: tuple[float, float] = (1.0, 30.0),
) -> SlackBot:
    """The Slack bot; ``clock`` dates what users see, ``queue_clock`` times the work queue,
    ``gate`` is entered to match a paste (the one the knowledge updates give way to),
    ``slack_backoff`` is the first and longest wait between checks of a token Slack refused."""
    token = (
        None
        if settings.multi_workspace or settings.slack_bot_token is None
        else (settings.slack_bot_token.get_secret_value())
    )
    gateway = gateway or SlackGateway(
        token=token,
        base_url=settings.slack_api_url,
        metrics=metrics,
        cache_seconds=settings.user_cache_seconds,
    )
    deps: dict[str, object] = {
        "settings": settings,
        "store": store,
        "index": index,
        "graph": graph,
        "slack": gateway,
        "clock": clock,
        "metrics": metrics,
        "gate": gate or RequestGate(),
    }
    oauth = oauth_settings(settings, store)
    link = (
        None
        if oauth is not None
        else SlackLink(gateway, first_backoff=slack_backoff[0], max_backoff=slack_backoff[1])
    )
    runner = JobRunner(
        store=store,
        handlers=job_handlers(deps),
        metrics=metrics,
        clock=queue_clock,
        workers=settings.workers,
        lease=timedelta(seconds=settings.job_lease_seconds),
        on_failure=functools.partial(report_failure, slack=gateway, settings=settings),
        authorize=_job_tokens(oauth, link, settings),
    )
    if link is not None:
        gateway.on_token_refused = link.refused
        link.on_ok = runner.hurry_refused
    intake = Intake(
        store=store,
        clock=queue_clock,
        metrics=metrics,
        limit=settings.queue_limit,
        deadline=timedelta(seconds=settings.answer_deadline_seconds),
        workers=runner,
    )
    submissions = Submissions(
        add_record=inject(feedback.submit_record, deps),
        deprecate=inject(digest_actions.deprecate, deps),
        correct=inject(corrections.correct, deps),
        search=inject(corrections.search_records, deps),
        triage_step=inject(workflow.triage_step, deps),
    )
    revocations = Revocations(installations=oauth.installation_store if oauth else None, link=link)
    middleware = Middleware(
        metrics=metrics,
        intake=intake,
        submissions=submissions,
        team=link.team if link else None,
        org=link.org if link else None,
        revocations=revocations,
    )
    app = create_app(
        settings,
        gateway=gateway,
        middleware=middleware,
        oauth=oauth,
        authorize=link.bolt_authorize() if link else None,
    )
    return SlackBot(app=app, runner=runner, intake=intake, gateway=gateway, link=link)
