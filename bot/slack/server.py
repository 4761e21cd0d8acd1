"""HTTP mode: one threaded WSGI server for ``POST /slack/events``, ``GET /healthz``, ``GET /metrics``.

In a multi-workspace install Bolt also serves ``GET /slack/install`` and
``GET /slack/oauth_redirect`` here. Stdlib only (``wsgiref`` with a thread
per request); each request gets a request id (:mod:`bot.slack.scope`).
:meth:`Server.stop` stops accepting, waits for requests in flight, then for
the lazy work they started, so a deploy never drops an acknowledged paste.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from sqlalchemy import text

from bot.slack import scope
from bot.slack.metrics import Metrics
from bot.store.db import Store

log = logging.getLogger(__name__)
EVENTS_PATH = "/slack/events"

StartResponse = Callable[..., Any]


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = False
    block_on_close = True  # server_close() waits for requests in flight
    allow_reuse_address = True
    request_queue_size = 256


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        log.debug("http %s", format % args)


def health(store: Store, records: Callable[[], int | None]) -> tuple[bool, dict[str, Any]]:
    """Database reachable and knowledge base loaded."""
    try:
        with store.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        database = True
    except Exception:  # noqa: BLE001 - any failure means unreachable
        database = False
    count = records()
    ok = database and count is not None
    return ok, {
        "ok": ok,
        "database": database,
        "knowledge_base": {"loaded": count is not None, "records": count or 0},
    }


def wsgi_app(
    app: App, store: Store, metrics: Metrics, records: Callable[[], int | None]
) -> Callable[..., Iterable[bytes]]:
    bolt = SlackRequestHandler(app, path=EVENTS_PATH)

    def route(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path, method = environ.get("PATH_INFO", ""), environ.get("REQUEST_METHOD", "")
        if method == "GET" and path == "/healthz":
            ok, data = health(store, records)
            body = json.dumps(data).encode()
            start_response("200 OK" if ok else "503 Service Unavailable",
                           [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])  # fmt: skip
            return [body]
        if method == "GET" and path == "/metrics":
            body = metrics.render().encode()
            start_response("200 OK", [("Content-Type", "text/plain; version=0.0.4; charset=utf-8"),
                                      ("Content-Length", str(len(body)))])  # fmt: skip
            return [body]
        request_id = scope.new_request_id()
        environ["HTTP_" + scope.REQUEST_ID_HEADER.upper().replace("-", "_")] = request_id
        with scope.bound(request_id=request_id):
            return bolt(environ, start_response)

    return route


class Server:
    """The running HTTP server; ``port`` is the bound port (ask for 0 to get a free one)."""

    def __init__(self, app: App, store: Store, metrics: Metrics, executor: Executor,
                 records: Callable[[], int | None], *, host: str = "0.0.0.0", port: int = 3000) -> None:  # fmt: skip
        self.executor = executor
        self.httpd = make_server(host, port, wsgi_app(app, store, metrics, records),
                                 server_class=_ThreadingServer, handler_class=_QuietHandler)  # fmt: skip
        self.port = int(self.httpd.server_address[1])
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        log.info("errkb listening", extra={"port": self.port})
        self.httpd.serve_forever(poll_interval=0.2)

    def start(self) -> None:
        """Serve on a background thread (tests, benchmarks)."""
        self._thread = threading.Thread(target=self.serve_forever, name="errkb-http", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop accepting, finish requests in flight, then the work they started."""
        self.httpd.shutdown()
        self.httpd.server_close()
        log.info("no longer accepting requests; finishing work in flight")
        self.executor.shutdown(wait=True)
        log.info("work in flight finished")
        if self._thread is not None:
            self._thread.join(timeout=10)
