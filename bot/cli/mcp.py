"""Command: ``errkb mcp`` (stdio) or ``errkb mcp --http --port N``: errkb for coding agents."""

from __future__ import annotations

import logging
import threading
from typing import Annotated, Any

import typer

from bot.cli import common

log = logging.getLogger(__name__)


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
    from bot.bootstrap import build_knowledge
    from bot.clock import SYSTEM_CLOCK
    from bot.mcp.http import check_bind, serve_http
    from bot.mcp.server import Served, create_server
    from bot.mcp.tools import LOAD_WAIT_SECONDS, Tools
    from bot.slack.web.logs import configure_logging
    from bot.store.db import open_store

    settings = common.settings()
    token = settings.mcp_token.get_secret_value() if settings.mcp_token else None
    if http:
        check_bind(host, token)
    configure_logging(settings.log_level, fmt=settings.log_format, secrets=settings.secret_values())
    store = open_store(settings.database_url)
    knowledge = build_knowledge(settings, store)
    loaded = threading.Event()
    threading.Thread(
        target=_first_load, args=(knowledge, loaded), name="errkb-load", daemon=True
    ).start()
    tools = Tools(
        index=knowledge.index.current,
        graph=knowledge.graph.current,
        store=store,
        settings=settings,
        clock=SYSTEM_CLOCK,
        loaded=loaded.wait,
    )
    server = create_server(Served(tools, outcomes=settings.mcp_outcomes))
    try:
        if http:
            serve_http(
                server,
                host=host,
                port=port,
                token=token,
                health=lambda: _health(store, knowledge, loaded),
                max_sessions=settings.mcp_max_sessions,
                idle_seconds=settings.mcp_idle_seconds,
            )
        else:
            server.run("stdio")
    except KeyboardInterrupt:
        pass  # Ctrl-C at a terminal: a stop, not an error
    finally:
        loaded.wait(LOAD_WAIT_SECONDS)  # a load in flight finishes before its database goes
        knowledge.stop()
        store.dispose()


def _first_load(knowledge: Any, loaded: threading.Event) -> None:
    """Load the knowledge base and start its reload loop, while the server already answers."""
    try:
        knowledge.start()
    except Exception:
        log.exception("the knowledge base could not be loaded")
    finally:
        loaded.set()


def _health(store: Any, knowledge: Any, loaded: threading.Event) -> tuple[bool, dict[str, Any]]:
    """What ``GET /healthz`` says: the database answers and the knowledge base is loaded."""
    from sqlalchemy import text

    data: dict[str, Any] = {"ok": False, "status": "starting", "database": True}
    try:
        with store.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
    except Exception as error:  # noqa: BLE001 - any failure means unreachable
        first = str(error).strip().splitlines()
        data.update(
            database=False,
            status="broken",
            reason="database unreachable: " + (first[0] if first else type(error).__name__),
        )
    records = knowledge.records if loaded.is_set() and knowledge.index.current() else None
    data["knowledge_base"] = {"loaded": records is not None, "records": records or 0}
    if loaded.is_set() and records is None and data["database"]:
        data.update(status="broken", reason="the knowledge base could not be loaded")
    if data["database"] and records is not None:
        data.update(ok=True, status="ok")
    return bool(data["ok"]), data
