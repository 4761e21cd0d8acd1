"""Raw MCP sessions over streamable HTTP, as cheap as a client can make them: initialize, the
initialized notification, then tool calls, each one POST (the answer JSON or one SSE event)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

PROTOCOL = "2025-06-18"


class RawSession:
    def __init__(self, url: str, *, token: str | None = None, client: str = "raw") -> None:
        self.url = url
        self.id = ""
        self.status = 0
        self.headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
        }
        if token:
            self.headers["Authorization"] = f"Bearer {token}"
        self.client = client
        self._n = 0

    def post(self, message: dict[str, Any]) -> tuple[int, dict[str, Any] | None]:
        headers = {**self.headers, **({"mcp-session-id": self.id} if self.id else {})}
        request = urllib.request.Request(
            self.url, json.dumps(message).encode(), headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                self.id = self.id or response.headers.get("mcp-session-id", "")
                return response.status, _message(response.read().decode())
        except urllib.error.HTTPError as exc:
            with exc:
                return exc.code, None

    def open(self) -> int:
        """The initialize handshake: the HTTP status of the initialize request."""
        status, _ = self.post(
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": PROTOCOL,
                    "capabilities": {},
                    "clientInfo": {"name": self.client, "version": "1"},
                },
            }
        )
        if status == 200:
            self.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return status

    def call(self, tool: str, **arguments: Any) -> tuple[int, dict[str, Any] | None]:
        self._n += 1
        status, answer = self.post(
            {
                "jsonrpc": "2.0",
                "id": self._n,
                "method": "tools/call",
                "params": {"name": tool, "arguments": arguments},
            }
        )
        return status, (answer or {}).get("result")


def _message(body: str) -> dict[str, Any] | None:
    if body.lstrip().startswith("{"):
        found: dict[str, Any] = json.loads(body)
        return found
    data = [line[5:].strip() for line in body.splitlines() if line.startswith("data:")]
    return json.loads(data[-1]) if data and data[-1] else None
