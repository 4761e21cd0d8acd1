"""Events delivered the way Slack delivers them, and what errkb answered, counted.

Slack retries an event errkb did not acknowledge with a 2xx within three
seconds: three more times, immediately, after one minute and after five
minutes (``X-Slack-Retry-Num`` 1..3). :class:`Deliveries` does the same,
with the waits multiplied by ``scale`` so a test takes seconds, not minutes.
:func:`answers_by_thread` counts errkb's thread posts per pasted message: the
figure "0 lost, 0 doubled" is read from it.
"""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tests.slack.conftest import CHANNEL, EN_USER, PASTE, sign
from tests.slack.fake_slack import FakeSlack

SLACK_RETRY_WAITS = (0.0, 60.0, 300.0)
ACK_TIMEOUT = 3.0


@dataclass
class Outcome:
    """One event's deliveries: each attempt's HTTP status (0: no answer in time) and time."""

    ts: str
    sent_at: float
    attempts: list[tuple[int, float]] = field(default_factory=list)

    @property
    def acknowledged(self) -> bool:
        return any(200 <= status < 300 for status, _ in self.attempts)


def paste_event(ts: str, *, channel: str = CHANNEL, n: int = 0) -> dict[str, Any]:
    text = PASTE.replace("512", str(400 + n % 500))
    return {
        "type": "message",
        "channel": channel,
        "user": EN_USER,
        "text": text,
        "ts": ts,
        "client_msg_id": f"cm-{ts}",
        "channel_type": "channel",
    }


class Deliveries:
    """Signed event deliveries to ``url`` with Slack's retries; bounded by ``workers`` threads."""

    def __init__(self, url: str, *, scale: float = 0.02, workers: int = 64) -> None:
        self.url = url
        self.scale = scale
        self.outcomes: list[Outcome] = []
        self._pool = ThreadPoolExecutor(workers)
        self._futures: list[Future[None]] = []
        self._lock = threading.Lock()
        self._n = 0

    def set_url(self, url: str) -> None:
        self.url = url

    def send(self, event: dict[str, Any]) -> Outcome:
        with self._lock:
            self._n += 1
            event_id = f"EvFAULT{self._n:06d}"
        outcome = Outcome(str(event["ts"]), time.monotonic())
        self.outcomes.append(outcome)
        body = {
            "token": "legacy",
            "team_id": "T1",
            "api_app_id": "A1",
            "type": "event_callback",
            "event_id": event_id,
            "event_time": int(time.time()),
            "authorizations": [{"team_id": "T1", "user_id": "UBOT", "is_bot": True}],
            "event": event,
        }
        self._futures.append(self._pool.submit(self._deliver, json.dumps(body).encode(), outcome))
        return outcome

    def _post(self, data: bytes, retry: int) -> int:
        ts = int(time.time())
        headers = {
            "Content-Type": "application/json",
            "X-Slack-Request-Timestamp": str(ts),
            "X-Slack-Signature": sign(data, ts),
        }
        if retry:
            headers |= {"X-Slack-Retry-Num": str(retry), "X-Slack-Retry-Reason": "http_error"}
        request = urllib.request.Request(
            self.url + "/slack/events", data=data, headers=headers, method="POST"
        )
        try:
            with urllib.request.urlopen(request, timeout=ACK_TIMEOUT) as response:
                return int(response.status)
        except urllib.error.HTTPError as exc:
            return int(exc.code)
        except OSError:
            return 0  # refused, reset or too slow: Slack counts it as a failure

    def _deliver(self, data: bytes, outcome: Outcome) -> None:
        for retry, wait in enumerate((0.0, *SLACK_RETRY_WAITS)):
            time.sleep(wait * self.scale)
            status = self._post(data, retry)
            outcome.attempts.append((status, time.monotonic()))
            if 200 <= status < 300:
                return

    def wait(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        for future in list(self._futures):
            future.result(timeout=max(0.1, deadline - time.monotonic()))
        self._pool.shutdown(wait=True)


def answers_by_thread(fake: FakeSlack) -> Counter[str]:
    """errkb's thread answers per pasted message (the thread's ts), as Slack holds them."""
    with fake.lock:
        posted = [m for m in fake.messages.values() if m.get("bot_id") and m.get("thread_ts")]
    return Counter(str(m["thread_ts"]) for m in posted)


def wait_for_answers(fake: FakeSlack, threads: list[str], timeout: float) -> Counter[str]:
    """Until every thread has an answer (or ``timeout``); the counts then."""
    deadline = time.monotonic() + timeout
    while True:
        counts = answers_by_thread(fake)
        if all(counts[t] for t in threads) or time.monotonic() > deadline:
            return counts
        time.sleep(0.05)


def lost_and_doubled(counts: Counter[str], threads: list[str]) -> tuple[list[str], list[str]]:
    return [t for t in threads if counts[t] == 0], [t for t in threads if counts[t] > 1]
