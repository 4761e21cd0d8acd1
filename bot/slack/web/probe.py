"""The health probe of a server Slack does not reach over HTTP: ``errkb serve --socket --port N``.

In Socket Mode Slack's requests come over the WebSocket errkb opens, so nothing
else listens; a container still needs something to ask. With ``--port`` errkb
serves only ``GET /healthz`` (the same JSON as HTTP mode's, 200 when healthy,
503 otherwise) and ``GET /metrics`` there; every other request gets 404. It is
the standard library's threaded server: a probe every few seconds needs no more.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

log = logging.getLogger(__name__)

Health = Callable[[], "tuple[bool, dict[str, Any]]"]


class Probe:
    """``/healthz`` and ``/metrics`` on ``host:port`` (0 picks a free port), on a thread."""

    def __init__(self, health: Health, metrics: Callable[[], str], *, host: str, port: int) -> None:
        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:
                pass  # a probe every few seconds is not worth a log line

            def do_GET(self) -> None:
                if self.path.split("?")[0] == "/healthz":
                    ok, data = health()
                    self._send(200 if ok else 503, json.dumps(data).encode(), "application/json")
                elif self.path.split("?")[0] == "/metrics":
                    self._send(200, metrics().encode(), "text/plain; version=0.0.4; charset=utf-8")
                else:
                    self._send(404, b"not found\n", "text/plain")

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self._server = ThreadingHTTPServer((host, port), Handler)
        self._server.daemon_threads = True
        self.port = int(self._server.server_address[1])
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.2},
            name="errkb-probe",
            daemon=True,
        )

    def start(self) -> Probe:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
