"""The stand-in over HTTP: ``POST /api/<method>`` (form or JSON bodies, the token as a
Bearer header or a ``token`` argument), ``POST /upload/<file id>`` (``files_upload_v2``'s
bytes), ``POST /response/<name>`` (``response_url`` posts) and ``GET /files/<name>`` (snippet
downloads, or a redirect to where ``moved`` says). Every request is recorded before it is
answered; ``hold`` and ``slow_next`` delay the answer, not the effect."""

from __future__ import annotations

import json
import ssl
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

if TYPE_CHECKING:
    from tests.slack.fake_slack.state import FakeSlack

#: How long a held method's call waits for ``release`` before it is answered anyway.
HOLD_SECONDS = 30


def serve(fake: FakeSlack, port: int, *, tls: ssl.SSLContext | None = None) -> ThreadingHTTPServer:
    """Serve ``fake`` on ``port`` (0: a free one) from a daemon thread, over HTTPS with
    ``tls``; each connection's handshake is made in its own thread."""
    handler = type("Handler", (SlackHandler,), {"fake": fake})
    server = _Server(("127.0.0.1", port), handler)
    if tls is not None:
        server.socket = tls.wrap_socket(
            server.socket, server_side=True, do_handshake_on_connect=False
        )
    server.daemon_threads = True
    threading.Thread(
        target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
    ).start()
    return server


class _Server(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (ssl.SSLError, ConnectionError)):
            super().handle_error(request, client_address)  # a handshake refused is no news


class SlackHandler(BaseHTTPRequestHandler):
    """One request to the stand-in ``fake`` (set on the subclass :func:`serve` makes)."""

    protocol_version = "HTTP/1.1"
    fake: FakeSlack

    def setup(self) -> None:
        if isinstance(self.request, ssl.SSLSocket):
            self.request.do_handshake()  # a client that refuses the certificate ends here
        super().setup()

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        fake = self.fake
        path = urlparse(self.path).path
        name = path.removeprefix("/files/")
        if path.startswith("/files/") and name in fake.moved:
            fake.record("files.download", {"name": name}, dict(self.headers))
            self.send(302, b"", "text/plain", {"Location": fake.moved[name]})
        elif path.startswith("/files/") and name in fake.files:
            fake.record("files.download", {"name": name}, dict(self.headers))
            if not fake.may_download(bearer(dict(self.headers))):
                self.send(403, b"forbidden", "text/plain")
                return
            self.send(200, fake.files[name].encode(), "text/plain")
        else:
            self.send(404, b"not found", "text/plain")

    def do_POST(self) -> None:
        fake = self.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        path = urlparse(self.path).path
        headers = dict(self.headers)
        if path.startswith("/upload/"):
            uploaded = {"file_id": path[8:], "bytes": len(raw), "head": raw[:8]}
            fake.record("upload", uploaded, headers)
            self.send(200, b"OK - uploaded", "text/plain")
            return
        if path.startswith("/response/"):
            posted = {"name": path[10:], **json.loads(raw or b"{}")}
            fake.record("response_url", posted, headers)
            self.send(200, b"ok", "text/plain")
            return
        method = path.removeprefix("/api/")
        params = parse_params(raw, headers, self.path)
        fake.record(method, params, headers)
        with fake.lock:
            held = fake.holds.get(method)
        if held is not None:
            held.wait(timeout=HOLD_SECONDS)
        token = bearer(headers) or (str(params["token"]) if params.get("token") else None)
        status, body, extra = fake.answer(method, params, token)
        with fake.lock:
            delays = fake.slow.get(method)
            delay = delays.pop(0) if delays else 0.0
        time.sleep(delay)
        self.send(status, json.dumps(body).encode(), "application/json; charset=utf-8", extra)

    def send(
        self,
        status: int,
        body: bytes,
        content_type: str,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up waiting (or was killed)


def parse_params(raw: bytes, headers: dict[str, str], path: str) -> dict[str, Any]:
    """A call's arguments: the query string's, then the form or JSON body's."""
    params: dict[str, Any] = {k: v[0] for k, v in parse_qs(urlparse(path).query).items()}
    kind = headers.get("Content-Type", "")
    if "json" in kind and raw:
        params.update(json.loads(raw))
    elif raw:
        params.update({k: v[0] for k, v in parse_qs(raw.decode()).items()})
    return params


def bearer(headers: dict[str, str]) -> str | None:
    """The token of an ``Authorization: Bearer`` header."""
    auth = headers.get("Authorization") or ""
    return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
