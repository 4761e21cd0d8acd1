"""``FakeSlack``: what the stand-in remembers (calls, messages, grants, the bad day a test
asked for) and the controls a test sets it with. Answering lives in ``gate`` and the method
families; serving HTTP in ``server``."""

from __future__ import annotations

import itertools
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import ThreadingHTTPServer
from typing import Any

from tests.slack.fake_slack import gate, server
from tests.slack.fake_slack.catalog import KIND_BY_PREFIX, manifest_scopes
from tests.slack.fake_slack.values import Call, Grant, Refusal, Reply


@dataclass
class FakeSlack:
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    #: file name → where its download redirects
    moved: dict[str, str] = field(default_factory=dict)
    calls: list[Call] = field(default_factory=list)
    failures: dict[str, list[tuple[int, str | None]]] = field(default_factory=dict)
    #: channels errkb is not a member of
    not_in: set[str] = field(default_factory=set)
    #: channel → who created it
    creators: dict[str, str] = field(default_factory=dict)
    #: OAuth code → what installing gives
    grants: dict[str, Grant] = field(default_factory=dict)
    holds: dict[str, threading.Event] = field(default_factory=dict)
    #: method → delays of its next answers
    slow: dict[str, list[float]] = field(default_factory=dict)
    #: (channel, ts) → message
    messages: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    #: (channel, ts) → errkb's reactions
    reactions: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    #: every Web API call answers this HTTP status (an outage)
    down: int | None = None
    #: channel → (until, Retry-After)
    limited: dict[str, tuple[float, int]] = field(default_factory=dict)
    #: method → HTTP status it always answers
    broken: dict[str, int] = field(default_factory=dict)
    #: the installed workspace's (T1) bot token; None: any unknown token is T1's
    token: str | None = None
    #: what T1's token was granted
    scopes: tuple[str, ...] = field(default_factory=manifest_scopes)
    #: conversation → public | private | im | mpim
    kinds: dict[str, str] = field(default_factory=dict)
    refusals: list[Refusal] = field(default_factory=list)
    #: refresh token → OAuth code of its grant
    rotated: dict[str, str] = field(default_factory=dict)
    #: tokens replaced by a rotation
    retired: set[str] = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: numbers for file ids and rotated tokens
    serial: Iterator[int] = field(default_factory=lambda: itertools.count(1))
    #: the last message ts issued, in microseconds
    last_ts: int = 0
    server: ThreadingHTTPServer | None = None
    #: served over HTTPS with this server context (:mod:`tests.slack.fake_slack.tls`)
    tls: ssl.SSLContext | None = None

    # -- where it serves ---------------------------------------------------------

    @property
    def url(self) -> str:
        assert self.server is not None
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://127.0.0.1:{self.server.server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.url + "/api/"

    def response_url(self, name: str) -> str:
        return f"{self.url}/response/{name}"

    def start(self, port: int = 0) -> FakeSlack:
        """Serve on ``port`` (0: a free one); a stopped stand-in starts again on its old port
        to play Slack coming back."""
        self.server = server.serve(self, port, tls=self.tls)
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    # -- control -----------------------------------------------------------------

    def reset(self) -> None:
        with self.lock:
            self.calls.clear()
            self.failures.clear()
            self.not_in.clear()
            self.creators.clear()
            self.messages.clear()
            self.reactions.clear()
            self.limited.clear()
            self.broken.clear()
            self.refusals.clear()
            self.kinds.clear()
            self.retired.clear()
            self.moved.clear()
            self.slow.clear()
            self.down = None
            self.scopes = manifest_scopes()

    def outage(self, status: int = 503) -> None:
        """Every Web API call fails with ``status`` until :meth:`restore`."""
        with self.lock:
            self.down = status

    def restore(self) -> None:
        with self.lock:
            self.down = None

    def rate_limit(self, channel: str, seconds: float, retry_after: int) -> None:
        """Posts to ``channel`` answer 429 with ``Retry-After: retry_after`` for ``seconds``."""
        with self.lock:
            self.limited[channel] = (time.monotonic() + seconds, retry_after)

    def add_message(
        self,
        channel: str,
        ts: str,
        text: str,
        *,
        user: str = "UPERSON",
        thread_ts: str | None = None,
    ) -> None:
        """A message someone wrote (what ``conversations.replies`` shows of a thread)."""
        with self.lock:
            self.messages[(channel, ts)] = {
                "type": "message",
                "ts": ts,
                "user": user,
                "text": text,
                "thread_ts": thread_ts,
            }

    def thread(self, channel: str, thread_ts: str) -> list[dict[str, Any]]:
        """The thread's root and replies, oldest first."""
        with self.lock:
            found = [
                dict(m)
                for (c, ts), m in self.messages.items()
                if c == channel and (ts == thread_ts or m.get("thread_ts") == thread_ts)
            ]
        return sorted(found, key=lambda m: float(m["ts"]))

    def hold(self, method: str) -> None:
        """Answer no ``method`` call until :meth:`release` (the calls are recorded as they
        come)."""
        with self.lock:
            self.holds[method] = threading.Event()

    def release(self, method: str) -> None:
        with self.lock:
            event = self.holds.pop(method, None)
        if event is not None:
            event.set()

    def refuse(
        self,
        error: str,
        *,
        token: str | None = None,
        channel: str | None = None,
        method: str | None = None,
        times: int | None = None,
    ) -> Refusal:
        """Answer Slack's ``error`` to the calls with ``token``, about ``channel``, of ``method``
        (every one given must match) for ``times`` calls or until :meth:`allow`."""
        refusal = Refusal(error, token, channel, method, times)
        with self.lock:
            self.refusals.append(refusal)
        return refusal

    def allow(self, refusal: Refusal | None = None) -> None:
        """End one refusal (all of them without an argument)."""
        with self.lock:
            if refusal is None:
                self.refusals.clear()
            elif refusal in self.refusals:
                self.refusals.remove(refusal)

    def kind(self, channel: str) -> str:
        return self.kinds.get(channel) or KIND_BY_PREFIX.get(channel[:1], "public")

    def slow_next(self, method: str, seconds: float, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` take effect at once (a post is in the thread)
        but are answered only ``seconds`` later: a client that gives up sooner cannot know."""
        with self.lock:
            self.slow.setdefault(method, []).extend([seconds] * times)

    def fail_next(self, method: str, status: int, error: str | None = None, times: int = 1) -> None:
        with self.lock:
            self.failures.setdefault(method, []).extend([(status, error)] * times)

    # -- what happened -----------------------------------------------------------

    def record(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> None:
        with self.lock:
            self.calls.append(Call(method, params, headers, time.monotonic()))

    def of(self, method: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(
        self,
        method: str,
        count: int = 1,
        *,
        timeout: float = 10.0,
        where: Callable[[Call], bool] = lambda c: True,
    ) -> list[Call]:
        deadline = time.monotonic() + timeout
        while True:
            found = [c for c in self.of(method) if where(c)]
            if len(found) >= count or time.monotonic() > deadline:
                return found
            time.sleep(0.01)

    # -- answers -----------------------------------------------------------------

    def answer(self, method: str, params: dict[str, Any], token: str | None = None) -> Reply:
        """Slack's answer to one Web API call (a subclass may answer some methods itself)."""
        return gate.answer(self, method, params, token)

    def may_download(self, token: str | None) -> bool:
        """A file's ``url_private`` is read with a token Slack accepts that has files:read."""
        return gate.may_download(self, token)
