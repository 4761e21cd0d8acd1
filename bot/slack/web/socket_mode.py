"""Socket Mode: ``errkb serve --socket``, Slack's requests over a WebSocket errkb opens.

Bolt's :class:`SocketModeHandler` holds the connection; this module adds what a
service needs around it: a clean stop on SIGTERM or SIGINT (the socket closed
with the handler's ``close()``, the answers in flight finished, exit 0) and,
with ``--port``, the health probe of :mod:`bot.slack.web.probe`, whose ``/healthz``
says broken while the socket is not connected.
"""

from __future__ import annotations

import logging
import signal
import threading
from typing import Any

from slack_bolt.adapter.socket_mode import SocketModeHandler

from bot.slack.adapter.link import SOCKET_LOG, connect_socket
from bot.slack.web.probe import Probe
from bot.slack.web.server import health

log = logging.getLogger(__name__)


def serve_socket(
    bot: Any, store: Any, metrics: Any, knowledge: Any, app_token: str, host: str, port: int | None
) -> None:
    """Socket Mode until SIGTERM or SIGINT: then the socket is closed (Slack delivers what was
    not acknowledged to another connection) and the work in flight is finished.

    The handler is installed before the socket connects, so the signal stops errkb even as
    a container's PID 1 (the kernel drops the signals PID 1 has no handler for)."""
    stopping = threading.Event()

    def stop(signum: int, _frame: object) -> None:
        log.info(
            "stopping on signal %s: finishing work in flight", signum, extra={"signal": signum}
        )
        stopping.set()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    handler = SocketModeHandler(bot.app, app_token, logger=SOCKET_LOG)

    def readiness() -> tuple[str, int | None, str | None]:
        now = knowledge.readiness()
        problem = bot.link.problem() if bot.link is not None else None
        if now.state == "ready" and problem is not None:
            return "broken", now.records, problem
        if now.state == "ready" and not handler.client.is_connected():
            return "broken", now.records, "Socket Mode is not connected to Slack"
        return now.state, now.records, now.reason

    probe = None
    if port is not None:
        probe = Probe(
            lambda: health(store, lambda: None, readiness), metrics.render, host=host, port=port
        ).start()
        log.info(
            "errkb health probe at http://%s:%s/healthz",
            host,
            probe.port,
            extra={"port": probe.port},
        )
    try:
        if not stopping.is_set():
            # Slack away or the app token refused: one line, then tries again, while the
            # signal handler can still stop errkb
            threading.Thread(
                target=connect_socket,
                args=(handler.connect,),
                kwargs={"sleep": stopping.wait},
                name="errkb-socket-connect",
                daemon=True,
            ).start()
        while not stopping.wait(0.5):
            pass
    finally:
        handler.close()  # no new envelopes; the workers dispatching one finish it
        if probe is not None:
            probe.stop()
        bot.runner.stop()
        log.info("work in flight finished")
        log.info("errkb stopped")
