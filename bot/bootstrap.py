"""The composition root: settings → store → knowledge → gateway → use cases → runner → app.

The one place that knows every dependency. :func:`build_knowledge` is the one
wiring of the live knowledge base (``errkb serve`` and ``errkb mcp``);
:func:`build_slack_bot` builds the Slack bot on it. Use cases take what they
use by name (:func:`bot.slack.queue.handlers.inject`); nothing else holds a bag of
everything. ``errkb serve``, ``errkb mcp`` and the tests build their world here.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Literal

from slack_bolt import App
from slack_bolt.oauth.oauth_settings import OAuthSettings

from bot.clock import SYSTEM_CLOCK, Clock
from bot.knowledge import GraphSource, IndexSource, LiveKnowledge, epoch_reader, store_knowledge
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

if TYPE_CHECKING:
    from apscheduler.schedulers.background import BackgroundScheduler

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


def build_knowledge(
    settings: Settings,
    store: Store,
    *,
    on_rebuild: Callable[[Literal["full", "incremental"]], None] | None = None,
    on_first_load: Callable[[], None] | None = None,
) -> LiveKnowledge:
    """The live knowledge base of ``store``, polled every ``ERRKB_KB_REFRESH_SECONDS``, its
    snapshot in ``ERRKB_CACHE_DIR`` (named after the database and its knowledge epoch, so
    every process on that database starts from what another built)."""
    from bot.snapshot import snapshot_path

    return store_knowledge(
        store,
        poll_seconds=settings.kb_refresh_seconds,
        on_rebuild=on_rebuild,
        on_first_load=on_first_load,
        snapshot=lambda: snapshot_path(
            settings.cache_dir, settings.database_url, epoch_reader(store)()
        ),
    )


def build_digest(
    settings: Settings,
    store: Store,
    gateway: SlackGateway,
    knowledge: LiveKnowledge,
    *,
    tokens: Callable[[str | None], str | None],
) -> BackgroundScheduler | None:
    """The staleness digest's scheduler, started (None when no digest is posted); every
    replica runs one, the database picks who posts. ``tokens``: a workspace's bot token."""
    from bot.digest.jobs import DigestSender, start_scheduler
    from bot.slack.adapter.install import WorkspacePoster

    poster: SlackGateway | WorkspacePoster = gateway
    if settings.multi_workspace and settings.digest_team:
        # that workspace's installation token, refreshed as the jobs' are
        poster = WorkspacePoster(gateway, tokens, settings.digest_team)
    elif settings.multi_workspace:
        # the digest goes to one workspace: it needs that workspace's bot token
        if settings.slack_bot_token is None:
            log.warning(
                "multi-workspace install without ERRKB_DIGEST_TEAM or SLACK_BOT_TOKEN: "
                "no staleness digest is posted"
            )
            return None
        poster = SlackGateway(
            token=settings.slack_bot_token.get_secret_value(),
            base_url=settings.slack_api_url,
            metrics=gateway.metrics,
            cache_seconds=settings.user_cache_seconds,
        )
    sender = DigestSender(
        settings=settings,
        store=store,
        gateway=poster,
        graph=knowledge.graph.current,
        clock=SYSTEM_CLOCK,
    )
    return start_scheduler(sender, settings)


def _job_tokens(
    oauth: OAuthSettings | None, link: SlackLink | None, settings: Settings
) -> Callable[[str | None], str | None]:
    """The bot token for a job's workspace: the installation's, refreshed when due
    (multi-workspace), else the gateway's own, once Slack takes it."""
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
    queue_clock: Clock = SYSTEM_CLOCK,
    slack_backoff: tuple[float, float] = (1.0, 30.0),
) -> SlackBot:
    """The Slack bot; ``clock`` dates what users see, ``queue_clock`` times the work queue,
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
