"""Command: ``errkb digest`` — the staleness digest in a terminal, or posted now."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import typer
from rich.markup import escape

from bot.cli.common import console, emit_json, fail, open_default_store, settings
from bot.clock import SYSTEM_CLOCK, FixedClock
from bot.digest.jobs import Audience, DigestSender, audiences, collect, local_today
from bot.errors import UnknownDomain
from bot.i18n import supported, t
from bot.render.digest import render_stale_lines
from bot.settings import Settings
from bot.store import repository
from bot.store.db import Store
from graph.build import KnowledgeGraph, build_graph


def digest(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the digest here; post nothing.")
    ] = False,
    send: Annotated[bool, typer.Option("--send", help="Post the digest to Slack now.")] = False,
    domain: Annotated[
        list[str] | None, typer.Option("--domain", help="Only these domains (repeatable).")
    ] = None,
    lang: Annotated[str, typer.Option("--lang", help="Language of the explanations.")] = "en",
    limit: Annotated[int, typer.Option(help="Records to list (dry run).")] = 20,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON for machines.")] = False,
) -> None:
    """--dry-run prints them with the reason for each rank; --send posts the digest
    to ERRKB_DIGEST_CHANNEL and the domain owners now, outside the schedule.
    """
    if dry_run == send:
        fail("choose one of --dry-run or --send", 2)
    config = settings()
    now = SYSTEM_CLOCK.now()
    store = open_default_store(config)
    try:
        with store.read() as session:
            records = repository.load_records(session)
            graph = build_graph(records)
            try:
                items = collect(
                    session, settings=config, graph=graph, now=now, domains=domain or None
                )
            except UnknownDomain as exc:
                fail(escape(str(exc.in_locale(supported(lang) or "en"))))
        if send:
            _send(config, store, graph, now)
            return
    finally:
        store.dispose()
    locale = supported(lang) or "en"
    if as_json:
        emit_json(
            {
                "today": local_today(config, now).isoformat(),
                "stale": len(items),
                "records": [
                    {
                        "id": i.record_id,
                        "domain": i.domain,
                        "score": i.score,
                        "days_overdue": i.days_overdue,
                        "last_confirmed": i.last_confirmed,
                        "matches": i.importance.matches,
                        "leads_in": i.importance.leads_in,
                        "reasons": [r.key for r in i.reasons],
                    }
                    for i in items[:limit]
                ],
            }
        )
        return
    if not items:
        console.print(t(locale, "digest.none"), highlight=False, markup=False)
        return
    console.print(
        t(locale, "digest.cli.header", count=len(items)),
        style="bold",
        highlight=False,
        markup=False,
    )
    for line in render_stale_lines(locale, items[:limit]):
        console.print(line, highlight=False, markup=False, soft_wrap=True)
    if len(items) > limit:
        console.print(
            t(locale, "list.more", count=len(items) - limit), highlight=False, markup=False
        )


def _send(config: Settings, store: Store, graph: KnowledgeGraph, now: datetime) -> None:
    from bot.slack.adapter.gateway import SlackGateway
    from bot.slack.web.metrics import Metrics

    if config.slack_bot_token is None:
        fail("SLACK_BOT_TOKEN is required to post the digest", 1)
    targets: list[Audience] = audiences(config)
    if not targets:
        fail("set ERRKB_DIGEST_CHANNEL or ERRKB_DOMAIN_OWNERS to say where the digest goes", 1)
    gateway = SlackGateway(
        token=config.slack_bot_token.get_secret_value(),
        base_url=config.slack_api_url,
        metrics=Metrics(),
    )
    sender = DigestSender(
        settings=config, store=store, gateway=gateway, graph=lambda: graph, clock=FixedClock(now)
    )
    period = f"manual:{now.strftime('%Y-%m-%dT%H:%M:%SZ')}"
    sent = [a.key for a in targets if sender.send(a, period, now)]
    for audience in targets:
        state = "sent" if audience.key in sent else "NOT sent (see the log)"
        console.print(f"{audience.key}: {state}", highlight=False)
    if len(sent) < len(targets):
        raise typer.Exit(1)
