"""The composition root: settings → store → knowledge → gateway → use cases → runner → app.

The one place that knows every dependency, and how knowledge is built for every
entry point. :func:`build_knowledge` is the one wiring of the live knowledge
base (``errkb serve`` and ``errkb mcp``); :func:`build_stored_knowledge` is the
knowledge a one-shot command (``errkb triage``) matches against, from the same
snapshot file; :func:`build_slack_bot` builds the Slack bot on the live one and
:func:`build_digest` its digest scheduler. Use cases take what they use by name
(:func:`bot.slack.queue.handlers.inject`); nothing else holds a bag of
everything. Every command and the tests build their world here.

A one-shot command pays for every import on each run, so this module imports at
its top only what a triage answered from the snapshot uses (the modules it loads
anyway); SQLAlchemy (for a build from the records), the Slack stack (Bolt, the
Slack SDK), the digest's scheduler and the live knowledge base are imported by the
functions that use them.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from bot import snapshot
from bot.clock import SYSTEM_CLOCK, Clock
from bot.collector import collector_off
from bot.match.index import MatchIndex
from bot.records import Record
from bot.settings import Settings
from bot.store.peek import Votes, peek, peek_counts
from graph.build import KnowledgeGraph, ObservedEdge, build_graph, relink_graph

if TYPE_CHECKING:
    from apscheduler.schedulers.background import BackgroundScheduler
    from slack_bolt import App
    from slack_bolt.oauth.oauth_settings import OAuthSettings

    from bot.knowledge import GraphSource, IndexSource, LiveKnowledge
    from bot.slack.adapter.gateway import SlackGateway
    from bot.slack.adapter.link import SlackLink
    from bot.slack.queue.intake import Intake
    from bot.slack.queue.runner import JobRunner
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
    from bot.knowledge import epoch_reader, store_knowledge

    return store_knowledge(
        store,
        poll_seconds=settings.kb_refresh_seconds,
        on_rebuild=on_rebuild,
        on_first_load=on_first_load,
        snapshot=lambda: snapshot.snapshot_path(
            settings.cache_dir, settings.database_url, epoch_reader(store)()
        ),
    )


@dataclass
class StoredKnowledge:
    """The index and graph at the database's ``version``; ``remember`` writes the snapshot
    of a fresh build (nothing when it came from one); ``votes`` reads what votes observed
    about some records' workarounds; ``store``: the database, when it was opened."""

    index: MatchIndex
    graph: KnowledgeGraph
    version: int
    remember: Callable[[], None]
    votes: Callable[[list[str]], Votes]
    store: Store | None = None


def build_stored_knowledge(settings: Settings, open_store: Callable[[], Store]) -> StoredKnowledge:
    """The knowledge of the database a one-shot command matches one paste against: the
    snapshot :func:`build_knowledge` keeps, when it is at the database's knowledge version.

    Building the match index of a large knowledge base costs far more than matching one
    paste, so the index and the graph are re-linked from that snapshot file (the same
    name, in ``ERRKB_CACHE_DIR``: either side starts from what the other built) when it is
    current; otherwise they are built from the records and ``remember`` writes the
    snapshot for the next run. The version and the records are read in one read of the
    database, so what is matched is the knowledge at that version: a snapshot at any
    other version is never used (an import moves the version, so the next command
    rebuilds). On the embedded SQLite default the database is first read without the
    store (:mod:`bot.store.peek`): a triage answered from a current snapshot then never
    loads SQLAlchemy, and ``open_store`` is called only when the snapshot is not current
    or that read could not be made. A snapshot that is damaged or written by other code
    is ignored by :func:`bot.snapshot.load`; a cache folder that cannot be written only
    means the next run builds again. A database that has no knowledge epoch yet is given
    one (what the server does on first asking); one that cannot be written to is matched
    without a snapshot. The cyclic collector is held off meanwhile, and what was loaded is
    frozen before it resumes: everything loaded or built here lives as long as the
    command, and collections would only walk it again and again."""
    with collector_off(freeze=True):
        return _peeked(settings) or _stored(settings, open_store())


def _peeked(settings: Settings) -> StoredKnowledge | None:
    """The knowledge from a current snapshot, the database read without the store."""
    url = settings.database_url
    seen = peek(url)
    if seen is None:
        return None
    path = snapshot.snapshot_path(settings.cache_dir, url, seen.epoch)
    if snapshot.version_of(path) != seen.version:  # the store's path says why
        return None
    saved = snapshot.load(path)
    if saved is None or saved.version != seen.version:
        return None
    index, graph = _relinked(saved, seen.observed)

    def votes(ids: list[str]) -> Votes:
        read = peek_counts(url, ids)
        if read is not None:
            return read
        from bot.store.db import open_store

        store = open_store(url)
        try:
            return _store_votes(store)(ids)
        finally:
            store.dispose()

    return StoredKnowledge(index, graph, seen.version, lambda: None, votes)


def _relinked(
    saved: snapshot.Snapshot, observed: list[ObservedEdge]
) -> tuple[MatchIndex, KnowledgeGraph]:
    index = MatchIndex(saved.parts, saved.vocabulary, warm=False, links=saved.links)
    return index, relink_graph(index.packed_records(), saved.references, observed=observed)


def _store_votes(store: Store) -> Callable[[list[str]], Votes]:
    def votes(ids: list[str]) -> Votes:
        from bot.store.loading import workaround_counts

        with store.read_rows() as rows:
            return workaround_counts(rows, record_ids=ids)

    return votes


def _state(rows: object, key: str) -> int | None:
    from sqlalchemy import select

    from bot.store import tables

    table = tables.kb_state
    query = select(table.c.value).where(table.c.key == key)
    return rows.scalar(query)  # type: ignore[attr-defined]


def _snapshot_file(settings: Settings, store: Store, epoch: int | None) -> Path | None:
    from bot.errors import StorageUnavailable

    if epoch is None:
        from sqlalchemy.exc import SQLAlchemyError

        from bot.knowledge import epoch_reader

        try:
            epoch = epoch_reader(store)()
        except (StorageUnavailable, SQLAlchemyError) as error:  # a read-only database
            log.info(
                "no knowledge snapshot: the database has no epoch and cannot be given one: %s",
                error,
            )
            return None
    return snapshot.snapshot_path(settings.cache_dir, settings.database_url, epoch)


def _stored(settings: Settings, store: Store) -> StoredKnowledge:
    from bot.store.loading import load_records
    from bot.store.observed import list_observed

    with store.read_rows() as rows:
        version = int(_state(rows, "kb_version") or 0)
        epoch = _state(rows, "knowledge_epoch")
        observed = list_observed(rows)
    path = _snapshot_file(settings, store, epoch)
    at = snapshot.version_of(path) if path is not None else None
    # a snapshot at another version is not read past its head
    saved = snapshot.load(path) if path is not None and at in (None, version) else None
    if saved is not None and saved.version == version:
        index, graph = _relinked(saved, observed)
        return StoredKnowledge(index, graph, version, lambda: None, _store_votes(store), store)
    stale = saved.version if saved is not None else at
    if stale is not None and stale != version:
        log.info(
            "ignoring the knowledge snapshot at version %d: the database is at %d",
            stale,
            version,
            extra={"path": str(path)},
        )
    with store.read_rows() as rows:  # the version again, in the same read as the records
        version = int(_state(rows, "kb_version") or 0)
        records = load_records(rows, include_deprecated=False)
        observed = list_observed(rows)
    return _built(records, observed, version, path, store)


def _built(
    records: list[Record],
    observed: list[ObservedEdge],
    version: int,
    path: Path | None,
    store: Store,
) -> StoredKnowledge:
    index = MatchIndex.build(records, warm=False)
    graph = build_graph(records, observed=observed, packed=index.packed_records())

    def remember() -> None:
        if path is None or not len(index):
            return
        taken = snapshot.Snapshot(version, index.parts, index.vocabulary, graph.said(), index.links)
        try:
            snapshot.save(path, taken)
        except OSError as error:  # a read-only or full cache folder: the next run builds again
            log.info(
                "could not write the knowledge snapshot %s: %s",
                path,
                error,
                extra={"path": str(path)},
            )

    return StoredKnowledge(index, graph, version, remember, _store_votes(store), store)


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
    from bot.slack.adapter.gateway import SlackGateway
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
    from bot.slack.adapter.install import job_tokens

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
    from bot.slack.adapter.app import create_app
    from bot.slack.adapter.gateway import SlackGateway
    from bot.slack.adapter.install import oauth_settings
    from bot.slack.adapter.link import SlackLink
    from bot.slack.adapter.listeners.views import Submissions
    from bot.slack.adapter.middleware import Middleware
    from bot.slack.adapter.uninstall import Revocations
    from bot.slack.queue.failures import report_failure
    from bot.slack.queue.handlers import inject, job_handlers
    from bot.slack.queue.intake import Intake
    from bot.slack.queue.runner import JobRunner
    from bot.slack.usecases import corrections, digest_actions, feedback, workflow

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
