"""``errkb mcp`` as a real subprocess, driven by the MCP SDK's own client.

:func:`connect` opens the SDK's ``Client`` on a server (stdio parameters, or an
HTTP transport) inside an anyio blocking portal, so synchronous tests call it
through :class:`Agent`. Every call has a read timeout; leaving the context
closes the client, which stops a stdio server. :class:`HttpServer` is one
``errkb mcp --http --port 0`` process, always stopped by its fixture.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from functools import partial
from pathlib import Path
from typing import Any

import httpx2
import pytest
from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, Implementation

from bot.ingest import load_records
from bot.starter import starter_dir
from bot.store import repository
from bot.store.db import Store
from tests.conftest import wipe
from tests.ops.conftest import ServeProcess, clean_env, errkb_command
from tests.slack.conftest import TODAY

CALL_SECONDS = 60.0
CLIENT = "errkb-test-agent"
TOKEN = "test-token-5c0e1f9a7d2b4e68"
MCP_SERVING = re.compile(r"errkb MCP serving at http://[^ ]+:(\d+)/mcp")


class Agent:
    """A connected SDK client, called synchronously."""

    def __init__(self, portal: BlockingPortal, client: Client) -> None:
        self.portal = portal
        self.client = client

    def call(self, tool: str, **arguments: Any) -> CallToolResult:
        return self.portal.call(
            partial(self.client.call_tool, tool, arguments, read_timeout_seconds=CALL_SECONDS)
        )

    def tools(self) -> dict[str, Any]:
        return {t.name: t for t in self.portal.call(self.client.list_tools).tools}

    def read(self, uri: str) -> Any:
        return self.portal.call(self.client.read_resource, uri)

    def templates(self) -> Any:
        return self.portal.call(self.client.list_resource_templates)

    def prompt(self, name: str, **arguments: str) -> Any:
        return self.portal.call(self.client.get_prompt, name, arguments)


@contextmanager
def connect(server: Any, *, name: str = CLIENT) -> Iterator[Agent]:
    """The SDK client on ``server`` (the initialize handshake, naming the client ``name``)."""
    with start_blocking_portal() as portal:
        client = Client(
            server,
            mode="legacy",
            client_info=Implementation(name=name, version="1.0"),
            read_timeout_seconds=CALL_SECONDS,
        )
        with portal.wrap_async_context_manager(client) as connected:
            yield Agent(portal, connected)


def stdio(env: dict[str, str], errlog: Any) -> Any:
    """A stdio transport that starts ``errkb mcp`` (its stderr goes to ``errlog``)."""
    command, *args = errkb_command("mcp")
    return stdio_client(StdioServerParameters(command=command, args=args, env=env), errlog=errlog)


@asynccontextmanager
async def http(url: str, token: str | None = None) -> AsyncIterator[Any]:
    """A streamable HTTP transport to ``url``, sending ``token`` as a bearer token."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    async with httpx2.AsyncClient(headers=headers, timeout=CALL_SECONDS) as client:
        async with streamable_http_client(url, http_client=client) as streams:
            yield streams


def load_starter(store: Store) -> None:
    wipe(store)
    with store.transaction() as session:
        repository.import_records(
            session,
            records=load_records([starter_dir()]),
            on_conflict="fail",
            actor="test",
            now=TODAY,
        )


def mcp_env(store: Store, tmp: Path, **settings: str) -> dict[str, str]:
    return clean_env(
        tmp,
        ERRKB_DATABASE_URL=store.engine.url.render_as_string(hide_password=False),
        ERRKB_KB_REFRESH_SECONDS="0.2",
        **settings,
    )


class HttpServer(ServeProcess):
    """One ``errkb mcp --http --port 0`` process; stderr read on a thread as for ``errkb serve``."""

    def __init__(self, env: dict[str, str], cwd: Path, *args: str) -> None:
        super().__init__(env, cwd, ("mcp", "--http", "--port", "0", *args))

    def ready(self) -> HttpServer:
        self.port = int(self.wait_for_line(MCP_SERVING).group(1))
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        return self


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


@pytest.fixture(scope="module")
def starter_store(store: Store) -> Iterator[Store]:
    """The suite's database holding the starter knowledge base for a whole module."""
    load_starter(store)
    yield store
    wipe(store)


@pytest.fixture
def http_server(starter_store: Store, tmp_path: Path) -> Iterator[Any]:
    """Start ``errkb mcp --http`` processes: ``http_server(*args, **env)``; all stopped after the
    test."""
    started: list[HttpServer] = []

    def start(*args: str, **settings: str) -> HttpServer:
        process = HttpServer(mcp_env(starter_store, tmp_path, **settings), tmp_path, *args)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()
