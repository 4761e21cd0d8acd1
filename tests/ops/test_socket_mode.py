"""``errkb serve --socket`` against a Socket Mode stand-in: it answers a paste, its probe says
when it is healthy, and SIGTERM drains it (the answer in flight reaches Slack) and exits 0
within 10 s."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.ops.conftest import ServeProcess, errkb_command
from tests.slack.conftest import EN_USER, PASTE
from tests.slack.fake_socket import SocketSlack

APP_TOKEN = "xapp-1-A1-1234-socketmodetoken"
PROBE = r"errkb health probe at http://[^:]+:(\d+)/healthz"
DRAIN_SECONDS = 10


@pytest.fixture(scope="module")
def fake_slack() -> Iterator[SocketSlack]:
    fake = SocketSlack(users={EN_USER: {"locale": "en-US"}}).start()
    yield fake
    fake.stop()


@pytest.fixture
def socket_bot(serve_env: dict[str, str], tmp_path: Path) -> Iterator[Any]:
    started: list[ServeProcess] = []

    def start() -> ServeProcess:
        env = {**serve_env, "SLACK_APP_TOKEN": APP_TOKEN}
        args = ("serve", "--socket", "--port", "0", "--host", "127.0.0.1")
        process = ServeProcess(env, tmp_path, args)
        started.append(process)
        process.port = int(process.wait_for_line(PROBE).group(1))
        process.url = f"http://127.0.0.1:{process.port}"
        return process

    yield start
    for process in started:
        process.kill()


def healthy(bot: ServeProcess, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        status, body = bot.health()
        if status == 200:
            return body
        assert time.monotonic() < deadline and bot.proc.poll() is None, (body, "\n".join(bot.lines))
        time.sleep(0.05)


def paste_event(ts: str) -> dict[str, Any]:
    event = {
        "type": "message",
        "channel": "C0ERRORS",
        "user": EN_USER,
        "text": PASTE,
        "ts": ts,
        "client_msg_id": f"cm-{ts}",
        "channel_type": "channel",
    }
    return {
        "token": "legacy",
        "team_id": "T1",
        "api_app_id": "A1",
        "type": "event_callback",
        "event_id": f"Ev{ts.replace('.', '')}",
        "event_time": int(time.time()),
        "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": True}],
        "event": event,
    }


@pytest.mark.slow
def test_a_paste_over_the_socket_is_answered_and_the_probe_says_ok(
    socket_bot: Any, fake_slack: SocketSlack
) -> None:
    bot: ServeProcess = socket_bot()
    body = healthy(bot)
    assert body["ok"] and body["knowledge_base"]["loaded"]
    assert (
        fake_slack.of("apps.connections.open")[0].headers["Authorization"] == f"Bearer {APP_TOKEN}"
    )
    envelope = fake_slack.socket.send_envelope("events_api", paste_event("1722500000.000101"))
    assert fake_slack.socket.wait_for_ack(envelope)
    answers = fake_slack.wait_for(
        "chat.postMessage", where=lambda c: c.params.get("thread_ts") == "1722500000.000101"
    )
    assert len(answers) == 1
    assert "errkb_events_total" in bot.get("/metrics")
    bot.terminate()
    assert bot.wait(timeout=DRAIN_SECONDS) == 0


@pytest.mark.slow
def test_sigterm_finishes_the_answer_in_flight_then_exits_0(
    socket_bot: Any, fake_slack: SocketSlack
) -> None:
    bot: ServeProcess = socket_bot()
    healthy(bot)
    fake_slack.hold("chat.postMessage")  # the answer is on its way to Slack, not yet there
    ts = "1722500000.000202"
    try:
        envelope = fake_slack.socket.send_envelope("events_api", paste_event(ts))
        assert fake_slack.socket.wait_for_ack(envelope)  # acknowledged: errkb owns it now
        assert fake_slack.wait_for(
            "chat.postMessage", where=lambda c: c.params.get("thread_ts") == ts
        )
        stopped = time.monotonic()
        bot.terminate()
        bot.wait_for_line("stopping on signal")
        deadline = time.monotonic() + 5
        while fake_slack.socket.open_connections() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert fake_slack.socket.open_connections() == 0, "the socket stayed open after SIGTERM"
        assert bot.proc.poll() is None, "exited before the answer in flight was delivered"
    finally:
        fake_slack.release("chat.postMessage")
    assert bot.wait(timeout=DRAIN_SECONDS) == 0
    assert time.monotonic() - stopped < DRAIN_SECONDS
    answers = [c for c in fake_slack.of("chat.postMessage") if c.params.get("thread_ts") == ts]
    assert len(answers) == 1
    assert any(r["msg"] == "work in flight finished" for r in bot.records())
    assert not bot.tracebacks(), bot.tracebacks()


@pytest.mark.slow
def test_sigterm_when_idle_exits_0_at_once(socket_bot: Any) -> None:
    bot: ServeProcess = socket_bot()
    healthy(bot)
    started = time.monotonic()
    bot.terminate()
    assert bot.wait(timeout=DRAIN_SECONDS) == 0
    assert time.monotonic() - started < DRAIN_SECONDS


class Pid1Process(ServeProcess):
    """``errkb serve --socket`` as PID 1 of a PID namespace of its own, as in a container
    without an init: the kernel gives PID 1 only the signals it has a handler for."""

    def __init__(self, env: dict[str, str], cwd: Path, args: tuple[str, ...]) -> None:
        self.proc = subprocess.Popen(
            ["unshare", "--pid", "--fork", "--kill-child", *errkb_command(*args)],
            env=env,
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines = []
        self._new = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()
        self.port = None
        self.url = ""

    def errkb_pid(self) -> int:
        """errkb's process id as this machine sees it (``unshare``'s one child)."""
        children = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children").read_text().split()
        assert len(children) == 1, children
        return int(children[0])


@pytest.mark.slow
def test_as_pid_1_sigterm_stops_it_and_exits_0(serve_env: dict[str, str], tmp_path: Path) -> None:
    probe = subprocess.run(["unshare", "--pid", "--fork", "true"], capture_output=True, check=False)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a PID namespace here: {probe.stderr.decode().strip()}")
    env = {**serve_env, "SLACK_APP_TOKEN": APP_TOKEN}
    bot = Pid1Process(env, tmp_path, ("serve", "--socket", "--port", "0", "--host", "127.0.0.1"))
    try:
        bot.port = int(bot.wait_for_line(PROBE).group(1))
        bot.url = f"http://127.0.0.1:{bot.port}"
        healthy(bot)
        started = time.monotonic()
        os.kill(bot.errkb_pid(), signal.SIGTERM)
        assert bot.wait(timeout=DRAIN_SECONDS) == 0
        assert time.monotonic() - started < DRAIN_SECONDS
        bot.wait_for_line("errkb stopped")
    finally:
        bot.kill()
