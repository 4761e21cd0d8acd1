"""``errkb mcp --http``: the bearer token, the refusal to serve off loopback without one,
and a clean stop on SIGTERM. (Every tool over HTTP, with and without the token, is in
test_tools.py.)"""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from bot.report import TriageReport
from bot.store.db import Store
from tests.mcp.conftest import TOKEN, HttpServer, connect, http, mcp_env
from tests.ops.conftest import errkb_command

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}


def post(url: str, headers: dict[str, str]) -> tuple[int, dict[str, str]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(INITIALIZE).encode(),
        method="POST",
        headers={
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            **headers,
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as exc:
        with exc:
            return exc.code, dict(exc.headers)


@pytest.mark.slow
def test_with_a_token_set_every_request_must_carry_it(http_server: Any) -> None:
    server: HttpServer = http_server(ERRKB_MCP_TOKEN=TOKEN).ready()
    for headers in (
        {},
        {"Authorization": "Bearer not-the-token-at-all"},
        {"Authorization": f"Basic {TOKEN}"},
        {"Authorization": f"Bearer {TOKEN}x"},
    ):
        status, answer = post(server.url, headers)
        assert status == 401 and answer["www-authenticate"].startswith("Bearer"), headers
    assert post(server.url, {"Authorization": f"Bearer {TOKEN}"})[0] == 200
    with connect(http(server.url, TOKEN)) as agent:
        result = agent.call(
            "triage", paste="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB"
        )
        assert (
            not result.is_error and TriageReport.model_validate(result.structured_content).matches
        )
    assert TOKEN not in "\n".join(server.lines)


@pytest.mark.slow
def test_without_a_token_it_serves_loopback_only(starter_store: Store, tmp_path: Path) -> None:
    done = subprocess.run(
        errkb_command("mcp", "--http", "--host", "0.0.0.0", "--port", "0"),
        env=mcp_env(starter_store, tmp_path),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "ERRKB_MCP_TOKEN" in lines[0] and "0.0.0.0" in lines[0], done.stderr
    assert done.stdout == "" and "Traceback" not in done.stderr


@pytest.mark.slow
def test_with_a_token_it_may_serve_every_address(http_server: Any) -> None:
    server: HttpServer = http_server("--host", "0.0.0.0", ERRKB_MCP_TOKEN=TOKEN).ready()
    assert post(server.url, {})[0] == 401
    with connect(http(server.url, TOKEN)) as agent:
        assert "triage" in agent.tools()


@pytest.mark.slow
def test_a_short_token_is_refused_at_start(starter_store: Store, tmp_path: Path) -> None:
    done = subprocess.run(
        errkb_command("mcp", "--http", "--port", "0"),
        env=mcp_env(starter_store, tmp_path, ERRKB_MCP_TOKEN="short"),
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1 and "ERRKB_MCP_TOKEN" in done.stderr and "short" not in done.stderr


@pytest.mark.slow
def test_sigterm_stops_it_cleanly(http_server: Any) -> None:
    server: HttpServer = http_server().ready()
    with connect(http(server.url)) as agent:
        assert "triage" in agent.tools()
        server.terminate()
        assert server.wait() == 0
    server.wait_for_line("errkb MCP stopped")
    assert all(
        json.loads(line) for line in server.lines if line.strip()
    )  # stderr: JSON log lines only
    assert "Traceback" not in "\n".join(server.lines)


@pytest.mark.slow
def test_sigterm_as_soon_as_it_says_it_serves_still_exits_0(http_server: Any) -> None:
    """The signal may come before uvicorn took over the socket, or while the knowledge base
    loads."""
    server: HttpServer = http_server().ready()
    server.terminate()
    assert server.wait() == 0
    assert "Traceback" not in "\n".join(server.lines)
