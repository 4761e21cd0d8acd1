"""Command: ``errkb mcp`` (stdio) or ``errkb mcp --http --port N``: errkb for coding agents."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from bot.cli import common


def mcp(
    http: Annotated[
        bool, typer.Option("--http", help="Serve streamable HTTP at /mcp instead of stdio.")
    ] = False,
    port: Annotated[int, typer.Option("--port", help="HTTP port (0 picks a free one).")] = 8000,
    host: Annotated[
        str, typer.Option("--host", help="HTTP address; not loopback only with ERRKB_MCP_TOKEN.")
    ] = "127.0.0.1",
) -> None:
    """Tools: triage, search, show, neighbours, stale (and report_outcome with
    ERRKB_MCP_OUTCOMES=true). Stdio by default, which agents launch themselves;
    --http for one shared server, which needs ERRKB_MCP_TOKEN unless it binds
    to loopback. Logs go to standard error.
    """
    from bot.knowledge import LiveKnowledge, store_loader, version_reader
    from bot.mcp.http import check_bind, serve_http
    from bot.mcp.server import Served, create_server
    from bot.mcp.tools import Tools
    from bot.slack.logs import configure_logging
    from bot.store.db import open_store

    settings = common.settings()
    token = settings.mcp_token.get_secret_value() if settings.mcp_token else None
    if http:
        check_bind(host, token)
    configure_logging(settings.log_level, fmt=settings.log_format, secrets=settings.secret_values())
    store = open_store(settings.database_url)
    knowledge = LiveKnowledge(
        store_loader(store), version_reader(store), poll_seconds=settings.kb_refresh_seconds
    )
    try:
        knowledge.start()
        tools = Tools(index=knowledge.index.current, graph=knowledge.graph.current, store=store,
                      settings=settings, clock=lambda: datetime.now(UTC))  # fmt: skip
        server = create_server(Served(tools, outcomes=settings.mcp_outcomes))
        if http:
            serve_http(server, host=host, port=port, token=token)
        else:
            server.run("stdio")
    finally:
        knowledge.stop()
        store.dispose()
