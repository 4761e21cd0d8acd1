"""``errkb mcp --http`` answers ``GET /healthz`` for its container's probe, without the token."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from typing import Any

import pytest

from tests.mcp.conftest import TOKEN, HttpServer


def healthz(server: HttpServer) -> tuple[int, dict[str, Any]]:
    url = server.url.removesuffix("/mcp") + "/healthz"
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


@pytest.mark.slow
def test_healthz_says_ok_once_loaded_and_needs_no_token(http_server: Any) -> None:
    server: HttpServer = http_server(ERRKB_MCP_TOKEN=TOKEN).ready()
    deadline = time.monotonic() + 60
    status, body = healthz(server)
    while status != 200 and time.monotonic() < deadline:
        assert status == 503 and body["status"] == "starting", body
        time.sleep(0.1)
        status, body = healthz(server)
    assert status == 200 and body["ok"] and body["database"], body
    assert body["knowledge_base"]["loaded"] and body["knowledge_base"]["records"] > 0
    # the tools still want the token
    request = urllib.request.Request(
        server.url, data=b"{}", method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        urllib.request.urlopen(request, timeout=10).close()
        raise AssertionError("the MCP endpoint answered without the token")
    except urllib.error.HTTPError as error:
        with error:
            assert error.code == 401
    server.terminate()
    assert server.wait() == 0
