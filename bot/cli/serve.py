"""Command: ``errkb serve --http --port N`` or ``errkb serve --socket`` (the Slack bot)."""

from __future__ import annotations

import logging
import signal
from typing import Annotated, Any

import typer

from bot.cli import common
from bot.errors import ConfigError

log = logging.getLogger(__name__)

HTTP_PORT = 3000


def serve(
    http: Annotated[
        bool, typer.Option("--http", help="Serve Slack over HTTP at POST /slack/events.")
    ] = False,
    socket: Annotated[
        bool, typer.Option("--socket", help="Connect with Socket Mode (needs SLACK_APP_TOKEN).")
    ] = False,
    port: Annotated[
        int | None,
        typer.Option(
            "--port",
            help="HTTP port, default 3000 (0 picks a free one); with --socket, "
            "serves only the health probe (/healthz, /metrics), and only when given.",
        ),
    ] = None,
    host: Annotated[str, typer.Option("--host", help="HTTP address to bind.")] = "0.0.0.0",
) -> None:
    if http == socket:
        common.fail("choose exactly one of --http or --socket")
    from bot.bootstrap import build_digest, build_knowledge, build_slack_bot
    from bot.clock import SYSTEM_CLOCK
    from bot.slack.web.logs import configure_logging
    from bot.slack.web.metrics import Metrics
    from bot.store.db import open_store

    settings = common.settings()
    problems = settings.serve_problems(socket=socket)
    if problems:
        raise ConfigError("missing settings for errkb serve: " + "; ".join(problems))
    configure_logging(settings.log_level, fmt=settings.log_format, secrets=settings.secret_values())
    # refuses, in one line, a database whose schema is missing or not this errkb's
    store = open_store(settings.database_url)
    metrics = Metrics()
    knowledge = build_knowledge(settings, store, on_rebuild=metrics.rebuild, on_first_load=_freeze)
    # built on its own thread: /healthz says "starting" meanwhile, pastes wait for it
    knowledge.start(wait=False)
    bot = build_slack_bot(
        settings,
        store=store,
        index=knowledge.index,
        graph=knowledge.graph,
        clock=SYSTEM_CLOCK,
        metrics=metrics,
    )
    bot.start()  # pending work from before a restart is taken up at once
    scheduler = build_digest(settings, store, bot.gateway, knowledge, tokens=bot.runner.authorize)
    try:
        if http:
            _serve_http(
                bot, store, metrics, knowledge, host, HTTP_PORT if port is None else port, settings
            )
        else:
            token = settings.slack_app_token.get_secret_value()  # type: ignore[union-attr]
            from bot.slack.web.socket_mode import serve_socket

            serve_socket(bot, store, metrics, knowledge, token, host, port)
    finally:
        if scheduler is not None:
            scheduler.shutdown(wait=True)
        knowledge.stop()
        bot.stop()
        store.dispose()


def _freeze() -> None:
    """After the first load: the index lives as long as the process, so the collector
    need not look at it again (``gc.freeze``; later updates share most of it)."""
    import gc

    gc.collect()
    gc.freeze()


def slack_urls(base: str, *, multi_workspace: bool) -> list[tuple[str, str]]:
    """Where each URL of the Slack app's configuration goes, and the URL to paste there."""
    base = base.rstrip("/")
    urls = [
        ("Event Subscriptions → Request URL", f"{base}/slack/events"),
        ("Slash Commands → /errkb → Request URL", f"{base}/slack/events"),
        ("Interactivity & Shortcuts → Request URL", f"{base}/slack/events"),
    ]
    if multi_workspace:
        urls += [
            ("OAuth & Permissions → Redirect URLs", f"{base}/slack/oauth_redirect"),
            ("install page for each workspace", f"{base}/slack/install"),
        ]
    return urls


def public_base(redirect_uri: str | None, host: str, port: int) -> str:
    """The address Slack reaches: SLACK_REDIRECT_URI's when set, else the one bound."""
    from urllib.parse import urlsplit

    if redirect_uri:
        parts = urlsplit(redirect_uri)
        if parts.scheme and parts.netloc:
            return f"{parts.scheme}://{parts.netloc}"
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}"


def _serve_http(
    bot: Any, store: Any, metrics: Any, knowledge: Any, host: str, port: int, settings: Any
) -> None:
    from bot.slack.web.server import Server

    def readiness() -> tuple[str, int | None, str | None]:
        now = knowledge.readiness()
        return now.state, now.records, now.reason

    server = Server(
        bot.app,
        store,
        metrics,
        bot.runner,
        lambda: knowledge.records if knowledge.index.current() else None,
        host=host,
        port=port,
        readiness=readiness,
        slack=bot.link.problem if bot.link else None,
    )

    def stop(signum: int, _frame: object) -> None:
        log.info(
            "stopping on signal %s: finishing work in flight", signum, extra={"signal": signum}
        )
        server.shutdown()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log.info(
        "errkb serving Slack at http://%s:%s/slack/events",
        host,
        server.port,
        extra={"port": server.port},
    )
    base = public_base(settings.slack_redirect_uri, host, server.port)
    for where, url in slack_urls(base, multi_workspace=settings.multi_workspace):
        log.info("Slack app setting: %s: %s", where, url, extra={"setting": where, "url": url})
    server.serve_forever()
    server.stop()
    log.info("errkb stopped")
