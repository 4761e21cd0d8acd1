"""The HTTP server against hostile clients: bodies over the cap, unsigned and malformed requests,
slow connections. Refused, never a 500 or a traceback, logged at most once per interval."""

from __future__ import annotations

import json
import logging
import socket
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import closing

import pytest
from slack_bolt import App

from bot.slack.web import server
from bot.slack.web.gate import MAX_BODY, RefusalLog
from bot.slack.web.metrics import Metrics
from bot.slack.web.server import Server
from bot.store.db import Store
from tests.slack.conftest import ACK_S, PASTE, SECRET, Bot, sign


def raw_post(url: str, body: bytes, headers: dict[str, str]) -> tuple[int, bytes]:
    request = urllib.request.Request(
        url + "/slack/events", data=body, headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def signed(body: bytes, content_type: str = "application/json") -> dict[str, str]:
    ts = int(time.time())
    return {
        "Content-Type": content_type,
        "X-Slack-Request-Timestamp": str(ts),
        "X-Slack-Signature": sign(body, ts),
    }


def port_of(url: str) -> int:
    return int(url.rsplit(":", 1)[1])


def head_only(port: int, length: int) -> socket.socket:
    """A connection that sends a POST's headers announcing ``length`` bytes, and one byte."""
    conn = socket.create_connection(("127.0.0.1", port), timeout=10)
    conn.sendall(
        f"POST /slack/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        f"Content-Length: {length}\r\n\r\n{{".encode()
    )
    return conn


def status_of(conn: socket.socket) -> int:
    """The status of the response on ``conn`` (read before the body is sent)."""
    head = conn.recv(4096).decode("latin-1")
    return int(head.split(" ", 2)[1])


def closed_by_server(conn: socket.socket, timeout: float) -> bool:
    conn.settimeout(timeout)
    try:
        while True:
            data = conn.recv(4096)
            if not data:
                return True
    except (TimeoutError, OSError) as exc:
        return not isinstance(exc, TimeoutError)


MALFORMED = {
    "unsigned JSON": (b'{"type": "event_callback"}', {"Content-Type": "application/json"}, 401),
    "unsigned non-JSON": (b"\x00\x01garbage{{{", {"Content-Type": "application/json"}, 401),
    "timestamp not a number": (
        b"{}",
        {
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": "soon",
            "X-Slack-Signature": "v0=abc",
        },
        401,
    ),
    "wrong signature": (
        b"{}",
        {
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": str(int(time.time())),
            "X-Slack-Signature": "v0=" + "0" * 64,
        },
        401,
    ),
    "signed, not UTF-8": (b'{"a": "\xff\xfe"}', {}, 400),
    "signed, not JSON": (b"{not json", {}, 400),
    "signed, a JSON list": (b"[1, 2]", {}, 400),
    "signed form, payload not JSON": (
        b"payload=%7Bnope",
        {"Content-Type": "application/x-www-form-urlencoded"},
        400,
    ),
}


@pytest.mark.parametrize("name", sorted(MALFORMED))
def test_malformed_or_unsigned_requests_are_refused_without_a_traceback(
    bot: Bot, name: str, caplog: pytest.LogCaptureFixture
) -> None:
    body, headers, expected = MALFORMED[name]
    if "X-Slack-Signature" not in headers and expected == 400:
        headers = {**signed(body), **headers}
    with caplog.at_level(logging.DEBUG):
        status, answer = raw_post(bot.url, body, headers)
    assert status == expected, answer
    assert json.loads(answer)["ok"] is False
    assert not any(r.exc_info for r in caplog.records)
    assert "Traceback" not in caplog.text


def test_a_flood_of_forged_requests_is_logged_in_one_line_with_its_count(
    bot: Bot, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.WARNING, logger="bot.slack.web.gate"):
        with ThreadPoolExecutor(8) as pool:
            statuses = list(
                pool.map(
                    lambda _: raw_post(bot.url, b"{}", {"Content-Type": "application/json"})[0],
                    range(200),
                )
            )
    assert statuses == [401] * 200
    lines = [r for r in caplog.records if r.name == "bot.slack.web.gate"]
    assert len(lines) <= 1  # the first of the window, or none if an earlier test opened it


def test_the_refusal_log_counts_what_it_held_back(caplog: pytest.LogCaptureFixture) -> None:
    now = [100.0]
    refusals = RefusalLog(every=10.0, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="bot.slack.web.gate"):
        for second in range(25):
            now[0] = 100.0 + second
            refusals.refused("unsigned", "/slack/events")
            refusals.refused("body over 1 MiB", "/slack/events")
    lines = [r.getMessage() for r in caplog.records]
    assert lines == [
        "refused 1 request(s) to /slack/events: 1 unsigned",
        "refused 20 request(s) to /slack/events: 10 body over 1 MiB, 10 unsigned",
        "refused 20 request(s) to /slack/events: 10 body over 1 MiB, 10 unsigned",
    ]


def test_a_body_over_1_mib_is_refused_before_it_is_sent(bot: Bot) -> None:
    with closing(head_only(port_of(bot.url), 50 << 20)) as conn:
        assert status_of(conn) == 413  # answered from the headers: the 50 MB never had to come
    with closing(head_only(port_of(bot.url), MAX_BODY + 1)) as conn:
        assert status_of(conn) == 413


def test_a_body_just_under_the_cap_gets_through_the_gate(bot: Bot) -> None:
    body = json.dumps(
        {"type": "url_verification", "challenge": "c", "pad": " " * (MAX_BODY - 100)}
    ).encode()
    assert len(body) <= MAX_BODY
    status, answer = raw_post(bot.url, body, signed(body))
    assert status == 200 and json.loads(answer)["challenge"] == "c"


def test_slow_connections_hold_no_worker(bot: Bot) -> None:
    """Twice as many stalled requests as worker threads: a signed paste is still acked at once."""
    port = port_of(bot.url)
    stalled = [head_only(port, 5_000) for _ in range(server.THREADS * 2)]
    try:
        response, _ = bot.send.message(PASTE)
        assert response.status == 200 and response.seconds < ACK_S
        assert bot.fake.wait_for("chat.postMessage")
    finally:
        for conn in stalled:
            conn.close()


@pytest.fixture
def quick_server(store: Store, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    """A server whose idle and request time limits are one second, with a bare Bolt app."""
    monkeypatch.setattr(server, "IDLE_SECONDS", 1)
    monkeypatch.setattr(server, "REQUEST_SECONDS", 1)
    app = App(signing_secret=SECRET, token="xoxb-unused", token_verification_enabled=False)
    running = Server(
        app, store, Metrics(), ThreadPoolExecutor(1), lambda: 0, host="127.0.0.1", port=0
    )
    running.start()
    yield running
    running.stop()


def test_stalled_and_trickling_connections_are_cut_off(quick_server: Server) -> None:
    idle = socket.create_connection(("127.0.0.1", quick_server.port), timeout=10)
    stalled = head_only(quick_server.port, 5_000)
    trickle = head_only(quick_server.port, 5_000)
    with closing(idle), closing(stalled), closing(trickle):
        started = time.monotonic()
        cut = False
        while (
            not cut and time.monotonic() - started < 5.0
        ):  # a byte every 0.2 s: active, never whole
            try:
                trickle.sendall(b" ")
            except OSError:
                cut = True
            time.sleep(0.2)
        assert cut or closed_by_server(trickle, 3.0)
        assert closed_by_server(idle, 3.0)
        assert closed_by_server(stalled, 3.0)


def test_stop_refuses_new_connections(quick_server: Server) -> None:
    quick_server.stop()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", quick_server.port), timeout=2).close()
