"""HTTP mode: ``POST /slack/events``, ``GET /healthz``, ``GET /metrics`` on waitress, in one
process.

In a multi-workspace install Bolt also serves ``GET /slack/install`` and
``GET /slack/oauth_redirect`` here. Each request gets a request id
(:mod:`bot.slack.adapter.scope`); Slack's requests pass :mod:`bot.slack.web.gate` (size
cap and signature, before anything is parsed) on their way to Bolt.

Why waitress (measured with ``benchmarks/bench_faults.py`` and
``benchmarks/bench_slack.py``; the README's deployment section has the
figures): one thread reads every connection without blocking and hands a
request to a worker thread only once it has fully arrived, so slow or
stalled clients hold a socket, never a worker; a body over the cap is
refused from its ``Content-Length`` without being read. One process keeps
one knowledge index and one set of metrics.

Limits: at most :data:`THREADS` requests are handled at once and
:data:`CONNECTIONS` connections are open; a connection idle for
:data:`IDLE_SECONDS`, or a request not fully received within
:data:`REQUEST_SECONDS` of its first byte, is closed. :meth:`Server.stop`
stops accepting, lets the requests in flight finish, then the lazy work
they started, so a deploy never drops an acknowledged paste.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from typing import Any

from slack_bolt import App
from slack_bolt.adapter.wsgi import SlackRequestHandler
from sqlalchemy import text
from waitress import wasyncore
from waitress.channel import HTTPChannel
from waitress.parser import HTTPRequestParser
from waitress.server import TcpWSGIServer

from bot.errors import ConfigError
from bot.slack.adapter import scope
from bot.slack.web.gate import MAX_BODY, gate
from bot.slack.web.metrics import Metrics
from bot.store.db import Store

log = logging.getLogger(__name__)
EVENTS_PATH = "/slack/events"

#: Requests handled at once (an acknowledgement takes a few milliseconds).
THREADS = 8
#: Open connections; past this, new ones wait in the listen backlog.
CONNECTIONS = 1000
#: A connection with nothing to do is closed after this many seconds.
IDLE_SECONDS = 10
#: A request must arrive whole within this many seconds of its first byte.
REQUEST_SECONDS = 10
#: How long :meth:`Server.stop` waits for requests in flight.
DRAIN_SECONDS = 30.0
_POLL_SECONDS = 0.2

StartResponse = Callable[..., Any]


Readiness = Callable[[], "tuple[str, int | None, str | None]"]


def health(
    store: Store,
    records: Callable[[], int | None],
    readiness: Readiness | None = None,
    slack: Callable[[], str | None] | None = None,
) -> tuple[bool, dict[str, Any]]:
    """Database reachable, knowledge base loaded and Slack taking the bot token.

    ``status``: ``ok``; ``starting`` while the first build runs (or, after a restart from
    a snapshot, until it has caught up with the database); ``broken`` when the database is
    unreachable, takes no writes (a full disk, read-only: :mod:`bot.store.writable`) or
    the first build failed, or Slack refuses the token or does not answer, with ``reason``
    in one line.
    ``readiness`` gives (state: starting | ready | broken, records, reason); without it,
    ``records`` alone says whether the knowledge base is loaded. ``slack`` gives the
    Slack problem (:meth:`bot.slack.adapter.link.SlackLink.problem`), None when there is none.
    """
    reason: str | None = None
    try:
        with store.engine.connect() as conn:
            conn.execute(text("SELECT 1"))
        database = True
    except Exception as error:  # noqa: BLE001 - any failure means unreachable
        database = False
        first = str(error).strip().splitlines()
        reason = "database unreachable: " + (first[0] if first else type(error).__name__)
    refused = store.check_writable() if database else None  # a full disk, a read-only database
    reason = reason or refused
    if readiness is not None:
        state, count, why = readiness()
    else:
        count = records()
        state = "ready" if count is not None else "starting"
        why = None
    slack_problem = slack() if slack is not None else None
    ok = database and refused is None and state == "ready" and slack_problem is None
    if state == "broken":
        reason = reason or why
    reason = reason or slack_problem
    broken = not database or refused is not None or state == "broken" or slack_problem is not None
    status = "ok" if ok else ("broken" if broken else "starting")
    data: dict[str, Any] = {
        "ok": ok,
        "status": status,
        "database": database,
        "writable": database and refused is None,
        "knowledge_base": {"loaded": state == "ready", "records": count or 0},
    }
    if slack is not None:
        data["slack"] = slack_problem is None
    if reason is not None and not ok:
        data["reason"] = reason
    return ok, data


def wsgi_app(
    app: App,
    store: Store,
    metrics: Metrics,
    records: Callable[[], int | None],
    readiness: Readiness | None = None,
    slack: Callable[[], str | None] | None = None,
) -> Callable[..., Iterable[bytes]]:
    secret = getattr(app, "_signing_secret", None)  # Bolt keeps it; there is no public accessor
    if not secret:
        raise ConfigError("the Slack app has no signing secret: requests cannot be verified")
    bolt = gate(SlackRequestHandler(app, path=EVENTS_PATH), secret, path=EVENTS_PATH)

    def route(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        path = environ.get("PATH_INFO", "")
        method = environ.get("REQUEST_METHOD", "")
        if method == "GET" and path == "/healthz":
            ok, data = health(store, records, readiness, slack)
            body = json.dumps(data).encode()
            start_response(
                "200 OK" if ok else "503 Service Unavailable",
                [("Content-Type", "application/json"), ("Content-Length", str(len(body)))],
            )
            return [body]
        if method == "GET" and path == "/metrics":
            body = metrics.render().encode()
            start_response(
                "200 OK",
                [
                    ("Content-Type", "text/plain; version=0.0.4; charset=utf-8"),
                    ("Content-Length", str(len(body))),
                ],
            )
            return [body]
        request_id = scope.new_request_id()
        environ["HTTP_" + scope.REQUEST_ID_HEADER.upper().replace("-", "_")] = request_id
        with scope.bound(request_id=request_id):
            return bolt(environ, start_response)

    return route


class _OncePer(logging.Filter):
    """Let one record through per ``seconds``; the next one says how many were held back.
    waitress warns of its task queue on every request that waits for a worker: under a
    burst (forged requests included) that would be a line per request."""

    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds, self._next, self._held = seconds, float("-inf"), 0
        self._lock = threading.Lock()

    def filter(self, record: logging.LogRecord) -> bool:
        with self._lock:
            now = time.monotonic()
            if now < self._next:
                self._held += 1
                return False
            held = self._held
            self._held = 0
            self._next = now + self.seconds
        if held:
            record.msg = f"{record.msg} (and {held} more such line(s) in the last %ds)"
            record.args = (*(record.args or ()), int(self.seconds))  # type: ignore[misc]
        return True


def _thin_queue_warnings() -> None:
    queue_log = logging.getLogger("waitress.queue")
    if not any(isinstance(f, _OncePer) for f in queue_log.filters):
        queue_log.addFilter(_OncePer(10.0))


class _TimedParser(HTTPRequestParser):
    """A request being received, with the time its first byte came."""

    def __init__(self, adj: Any) -> None:
        super().__init__(adj)
        self.started = time.monotonic()


class _Channel(HTTPChannel):
    parser_class = _TimedParser


class _Waitress(TcpWSGIServer):
    """waitress's TCP server that also cuts off requests arriving too slowly, and can stop
    accepting while it finishes what it has."""

    channel_class = _Channel
    closing = False

    def maintenance(self, now: float) -> None:
        super().maintenance(now)  # idle connections
        late = time.monotonic() - REQUEST_SECONDS
        for channel in list(self.active_channels.values()):
            partial = channel.request
            if partial is not None and not channel.requests and partial.started < late:
                channel.will_close = True

    def busy(self) -> bool:
        """A request is being handled or its answer is still being sent."""
        return any(c.requests or c.total_outbufs_len for c in list(self.active_channels.values()))

    def stop_accepting(self) -> None:
        """Close the listening socket (on the loop's thread): new connections are refused."""
        if self.accepting:  # type: ignore[has-type]
            self.accepting = False
            self.del_channel()
            self.socket.close()

    def close_all(self) -> None:
        for channel in list(self.active_channels.values()):
            channel.handle_close()
        self.trigger.close()


class Server:
    """The running HTTP server; ``port`` is the bound port (ask for 0 to get a free one)."""

    def __init__(
        self,
        app: App,
        store: Store,
        metrics: Metrics,
        executor: Executor,
        records: Callable[[], int | None],
        *,
        host: str = "0.0.0.0",
        port: int = 3000,
        readiness: Readiness | None = None,
        slack: Callable[[], str | None] | None = None,
    ) -> None:
        self.executor = executor
        _thin_queue_warnings()
        self._waitress = _Waitress(
            wsgi_app(app, store, metrics, records, readiness, slack),
            host=host,
            port=port,
            threads=THREADS,
            connection_limit=CONNECTIONS,
            channel_timeout=IDLE_SECONDS,
            cleanup_interval=1,
            max_request_body_size=MAX_BODY + 1,
            max_request_header_size=64 << 10,
            asyncore_use_poll=True,
            ident="errkb",
            expose_tracebacks=False,
        )
        self.port = int(self._waitress.effective_port)  # type: ignore[arg-type]
        self._stopping = threading.Event()
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def serve_forever(self) -> None:
        """Serve until :meth:`shutdown`; then stop accepting and finish the requests in flight."""
        server = self._waitress
        log.info("errkb listening", extra={"port": self.port})
        try:
            while not self._stopping.is_set():
                wasyncore.loop(timeout=_POLL_SECONDS, map=server._map, use_poll=True, count=1)
            server.stop_accepting()
            log.info("no longer accepting requests; finishing work in flight")
            deadline = time.monotonic() + DRAIN_SECONDS
            while server.busy() and time.monotonic() < deadline:
                wasyncore.loop(timeout=_POLL_SECONDS, map=server._map, use_poll=True, count=1)
        finally:
            server.stop_accepting()
            server.close_all()
            server.task_dispatcher.shutdown(cancel_pending=True, timeout=DRAIN_SECONDS)
            self._stopped.set()

    def shutdown(self) -> None:
        """Ask :meth:`serve_forever` to stop; safe from a signal handler, returns at once."""
        self._stopping.set()
        try:
            self._waitress.pull_trigger()
        except (OSError, ValueError):  # already closed: the loop has ended
            pass

    def start(self) -> None:
        """Serve on a background thread (tests, benchmarks)."""
        self._thread = threading.Thread(target=self.serve_forever, name="errkb-http", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop accepting, finish requests in flight, then the work they started."""
        self.shutdown()
        if self._thread is not None:
            self._thread.join(timeout=DRAIN_SECONDS + 10)
        elif not self._stopped.is_set():  # never served: release the socket
            self._waitress.stop_accepting()
            self._waitress.close_all()
            self._waitress.task_dispatcher.shutdown(cancel_pending=True, timeout=DRAIN_SECONDS)
        self.executor.shutdown(wait=True)
        log.info("work in flight finished")
