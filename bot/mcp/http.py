"""``errkb mcp --http``: the MCP server over streamable HTTP at ``/mcp``, behind a bearer token.

Without ``ERRKB_MCP_TOKEN`` the server only binds to a loopback address (the
SDK then also checks ``Host`` and ``Origin`` against DNS rebinding); with it,
every request must carry ``Authorization: Bearer <token>`` (compared in
constant time) or gets 401, but ``GET /healthz``, the container's probe. Logs go through errkb's
logging (stderr), the uvicorn access log included. SIGTERM or SIGINT stops it, giving open streams
a moment, and it exits 0.

Sessions are bounded: an agent opens one per conversation and most never close
theirs, and each costs its server task and streams. At most ``max_sessions``
(``ERRKB_MCP_MAX_SESSIONS``) are open at once (one more is answered 503, and
room frees as sessions end or expire), and a session with nothing in flight for
``idle_seconds`` (``ERRKB_MCP_IDLE_SECONDS``, minutes) is closed (its id then
answers 404, and the SDK's clients open a new one). The SDK's own defaults,
10,000 sessions kept half an hour, let one token holder pin tens of megabytes
for nothing.
"""

from __future__ import annotations

import hmac
import ipaddress
import logging
import signal
import socket
from collections.abc import Callable
from typing import Any

from mcp.server.mcpserver import MCPServer
from starlette.concurrency import run_in_threadpool
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from bot.errors import ConfigError

log = logging.getLogger(__name__)

PATH = "/mcp"
HEALTH_PATH = "/healthz"
#: Seconds open streams get to finish after SIGTERM before they are closed.
GRACE_SECONDS = 5
BACKLOG = 2048


def is_loopback(host: str) -> bool:
    """True when every address ``host`` names is a loopback address."""
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        found = socket.getaddrinfo(host, None, type=socket.SOCK_STREAM)
    except OSError:
        return False
    return bool(found) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in found)


def check_bind(host: str, token: str | None) -> None:
    """Refuse to serve without a token anywhere but loopback."""
    if token is None and not is_loopback(host):
        raise ConfigError(
            f"ERRKB_MCP_TOKEN: required for errkb mcp --http on {host} (not a loopback address); "
            "set it, or bind to 127.0.0.1"
        )


class BearerToken:
    """ASGI middleware: HTTP requests without ``Authorization: Bearer <token>`` get 401."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app, self.token = app, token.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not self._allowed(
            dict(scope["headers"]).get(b"authorization", b"")
        ):
            response = JSONResponse(
                {"error": "invalid_token", "error_description": "a valid bearer token is required"},
                status_code=401,
                headers={"WWW-Authenticate": 'Bearer realm="errkb"'},
            )
            await response(scope, receive, send)
            return
        await self.app(scope, receive, send)

    def _allowed(self, header: bytes) -> bool:
        scheme, _, value = header.partition(b" ")
        return scheme.lower() == b"bearer" and hmac.compare_digest(value.strip(), self.token)


class HealthRoute:
    """ASGI middleware: ``GET /healthz`` answered here, before the token check (a container's
    probe has no token, and the answer names no record): 200 when ``health`` says ok, else 503."""

    def __init__(self, app: ASGIApp, health: Callable[[], tuple[bool, dict[str, Any]]]) -> None:
        self.app = app
        self.health = health

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == HEALTH_PATH and scope["method"] == "GET":
            ok, data = await run_in_threadpool(self.health)  # it asks the database
            await JSONResponse(data, status_code=200 if ok else 503)(scope, receive, send)
            return
        await self.app(scope, receive, send)


def _bind(host: str, port: int) -> socket.socket:
    family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(address)
    sock.listen(BACKLOG)  # connections wait here until uvicorn takes over the socket
    return sock


def serve_http(
    server: MCPServer[Any],
    *,
    host: str,
    port: int,
    token: str | None,
    health: Callable[[], tuple[bool, dict[str, Any]]] | None = None,
    max_sessions: int = 256,
    idle_seconds: float = 300.0,
) -> None:
    """Serve until SIGTERM or SIGINT (uvicorn's own handling: open streams get a grace period)."""
    import uvicorn

    check_bind(host, token)
    app: ASGIApp = server.streamable_http_app(
        streamable_http_path=PATH,
        host=host,
        max_sessions=max_sessions,
        session_idle_timeout=idle_seconds,
    )
    if token is not None:
        app = BearerToken(app, token)
    if health is not None:
        app = HealthRoute(app, health)
    sock = _bind(host, port)
    bound = sock.getsockname()[1]
    config = uvicorn.Config(
        app, log_config=None, timeout_graceful_shutdown=GRACE_SECONDS, lifespan="on"
    )
    userver = uvicorn.Server(config)

    def stop(signum: int, _frame: object) -> None:
        log.info("stop requested by signal %s", signum, extra={"signal": signum})
        userver.should_exit = True

    # uvicorn takes SIGTERM/SIGINT while it serves and raises them again afterwards for the
    # handler it found: this one, so a signal before, during or after start is a clean stop.
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, stop)
    shown = f"[{host}]" if ":" in host else host
    log.info(
        "errkb MCP serving at http://%s:%s%s",
        shown,
        bound,
        PATH,
        extra={"port": bound, "token": token is not None},
    )
    userver.run(sockets=[sock])
    log.info("errkb MCP stopped")
