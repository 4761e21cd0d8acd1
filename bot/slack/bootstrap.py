"""The composition root of the Slack bot: settings → gateway → use cases → runner → app.

The one place that knows every dependency. Use cases take what they use by
name (:func:`bot.slack.handlers.inject`); nothing else holds a bag of
everything. ``errkb serve`` and the tests build the bot here.
"""

from __future__ import annotations

import functools
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from slack_bolt import App

from bot.errors import TRANSIENT
from bot.knowledge import GraphSource, IndexSource
from bot.precedence import RequestGate
from bot.settings import Settings
from bot.slack import corrections, digest, feedback
from bot.slack.app import create_app
from bot.slack.clock import Clock
from bot.slack.failures import report_failure
from bot.slack.gateway import SlackGateway
from bot.slack.handlers import inject, job_handlers
from bot.slack.install import oauth_settings
from bot.slack.intake import Intake
from bot.slack.listeners.views import Submissions
from bot.slack.metrics import Metrics
from bot.slack.middleware import Middleware
from bot.slack.runner import JobRunner
from bot.store.db import Store

log = logging.getLogger(__name__)


def wall_clock() -> datetime:
    return datetime.now(UTC)


class InstalledTeam:
    """The workspace of a single-workspace install, learned from ``auth.test`` once it answers."""

    def __init__(self, gateway: SlackGateway) -> None:
        self.gateway = gateway
        self._team: str | None = None
        self._org: str | None = None
        self._org_known = False
        self._lock = threading.Lock()

    def __call__(self) -> str | None:
        with self._lock:
            if self._team is None:
                try:
                    self._team = self.gateway.team_id()
                except TRANSIENT as exc:
                    log.warning("cannot learn errkb's workspace yet: %s", exc)
            return self._team

    def org(self) -> str | None:
        """The organisation of an org-wide install (None for a workspace's), asked once the
        workspace is known."""
        with self._lock:
            if self._team is not None and not self._org_known:
                try:
                    self._org, self._org_known = self.gateway.org_id(), True
                except TRANSIENT as exc:
                    log.warning("cannot learn errkb's organisation yet: %s", exc)
            return self._org


@dataclass
class SlackBot:
    """The built bot: the Bolt app to serve, the runner doing its work."""

    app: App
    runner: JobRunner
    intake: Intake
    gateway: SlackGateway
    team: InstalledTeam | None

    def start(self) -> None:
        if self.team is not None:
            self.team()  # learn the workspace now, not on the first request
        self.runner.start()

    def stop(self) -> None:
        """Finish the work in flight; what is still pending stays for the next start."""
        self.runner.stop()


def _authorizer(settings: Settings, store: Store) -> Callable[[str | None], str | None]:
    """The bot token for a job's workspace: the installation's (multi-workspace), else the default."""
    oauth = oauth_settings(settings, store)
    if oauth is None:
        return lambda team: None
    installations = oauth.installation_store

    def authorize(team: str | None) -> str | None:
        bot = installations.find_bot(enterprise_id=None, team_id=team) if team else None
        return bot.bot_token if bot is not None else None

    return authorize


def build_slack_bot(settings: Settings, *, store: Store, index: IndexSource, graph: GraphSource, clock: Clock,
                    metrics: Metrics, gateway: SlackGateway | None = None,
                    queue_clock: Callable[[], datetime] = wall_clock,
                    gate: RequestGate | None = None) -> SlackBot:  # fmt: skip
    """The Slack bot; ``clock`` dates what users see, ``queue_clock`` times the work queue,
    ``gate`` is entered to match a paste (the one the knowledge updates give way to)."""
    token = None if settings.multi_workspace or settings.slack_bot_token is None else (
        settings.slack_bot_token.get_secret_value())  # fmt: skip
    gateway = gateway or SlackGateway(token=token, base_url=settings.slack_api_url, metrics=metrics,
                                      cache_seconds=settings.user_cache_seconds)  # fmt: skip
    deps: dict[str, object] = {"settings": settings, "store": store, "index": index, "graph": graph,
                               "slack": gateway, "clock": clock, "metrics": metrics,
                               "gate": gate or RequestGate()}  # fmt: skip
    runner = JobRunner(store=store, handlers=job_handlers(deps), metrics=metrics, clock=queue_clock,
                       workers=settings.workers, lease=timedelta(seconds=settings.job_lease_seconds),
                       on_failure=functools.partial(report_failure, slack=gateway, settings=settings),
                       authorize=_authorizer(settings, store))  # fmt: skip
    intake = Intake(store=store, clock=queue_clock, metrics=metrics, limit=settings.queue_limit,
                    deadline=timedelta(seconds=settings.answer_deadline_seconds), workers=runner)  # fmt: skip
    submissions = Submissions(add_record=inject(feedback.submit_record, deps), deprecate=inject(digest.deprecate, deps),
                              correct=inject(corrections.correct, deps))  # fmt: skip
    team = None if settings.multi_workspace else InstalledTeam(gateway)
    middleware = Middleware(metrics=metrics, intake=intake, submissions=submissions, team=team,
                            org=team.org if team else None)  # fmt: skip
    app = create_app(settings, gateway=gateway, middleware=middleware, oauth=oauth_settings(settings, store))
    return SlackBot(app=app, runner=runner, intake=intake, gateway=gateway, team=team)
