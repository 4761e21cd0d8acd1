"""A loopback stand-in for the Slack Web API that records every call and answers like Slack.

Serves ``/api/<method>`` (form or JSON bodies), the upload URLs of
``files_upload_v2``, ``response_url`` posts (``/response/<id>``) and snippet
downloads (``/files/<name>``, or a redirect to where ``moved`` says). ``fail_next`` makes the next calls of a method
answer with an HTTP status (429 with ``Retry-After``, 500 …) or a Slack error;
``hold`` keeps a method's answers back (the call is recorded) until ``release``.
``grants`` are the OAuth codes ``oauth.v2.access`` exchanges (code → team id
and bot token); ``auth.test`` answers for the workspace of the token it gets.

Bad days: ``outage`` makes every Web API call answer an HTTP status until
``restore``; ``slow_next`` answers a call that took effect late; ``rate_limit`` answers a channel's posts 429 with ``Retry-After``
for a while; ``broken`` methods always fail. Threads: messages errkb posts are
kept with their metadata, people's messages are added with ``add_message``,
and ``conversations.replies`` pages a thread's root and replies as Slack does
(oldest first, ``limit``, ``oldest``/``latest``/``inclusive``, ``cursor``).
"""

from __future__ import annotations

import base64
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

BOT_USER = "UBOT"
#: The most replies one page of ``conversations.replies`` holds, and the page size when
#: ``limit`` is not given (Slack's pagination guide asks for no more than 200).
REPLIES_PAGE = 200


def _flag(value: Any) -> bool:
    """A boolean argument as Slack reads it from a form or JSON body."""
    return value is True or str(value).lower() in ("1", "true")


def _within(ts: float, oldest: float | None, latest: float | None, inclusive: bool) -> bool:
    if oldest is not None and (ts < oldest or (ts == oldest and not inclusive)):
        return False
    return latest is None or ts < latest or (ts == latest and inclusive)


def _make_cursor(ts: str) -> str:
    """An opaque cursor naming the next message (Slack's are ``next_ts:<ts>`` in base64)."""
    return base64.b64encode(f"next_ts:{ts.replace('.', '')}".encode()).decode()


def _cursor_ts(cursor: str) -> float | None:
    try:
        text = base64.b64decode(cursor, validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    digits = text.removeprefix("next_ts:")
    if not text.startswith("next_ts:") or not digits.isdigit() or len(digits) <= 6:
        return None
    return float(f"{digits[:-6]}.{digits[-6:]}")


@dataclass(frozen=True)
class Grant:
    """What ``oauth.v2.access`` gives for one code: a workspace and its bot token."""

    team_id: str
    token: str
    team_name: str = "Other workspace"
    app_id: str = "A1"
    installer: str = "UINSTALLER"


@dataclass
class Call:
    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    at: float


@dataclass
class FakeSlack:
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    groups: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    moved: dict[str, str] = field(default_factory=dict)  # file name → where its download redirects
    calls: list[Call] = field(default_factory=list)
    failures: dict[str, list[tuple[int, str | None]]] = field(default_factory=dict)
    not_in: set[str] = field(default_factory=set)  # channels errkb is not a member of
    creators: dict[str, str] = field(default_factory=dict)  # channel → who created it
    grants: dict[str, Grant] = field(default_factory=dict)  # OAuth code → what installing gives
    holds: dict[str, threading.Event] = field(default_factory=dict)
    slow: dict[str, list[float]] = field(default_factory=dict)  # method → delays of its next answers
    messages: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (channel, ts) → message
    down: int | None = None  # every Web API call answers this HTTP status (an outage)
    limited: dict[str, tuple[float, int]] = field(default_factory=dict)  # channel → (until, Retry-After)
    broken: dict[str, int] = field(default_factory=dict)  # method → HTTP status it always answers
    lock: threading.Lock = field(default_factory=threading.Lock)
    _ts: Any = field(default_factory=lambda: itertools.count(1))
    _last_ts: int = 0  # the last message ts issued, in microseconds
    server: ThreadingHTTPServer | None = None

    # -- control ---------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self.server is not None
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def api_url(self) -> str:
        return self.url + "/api/"

    def response_url(self, name: str) -> str:
        return f"{self.url}/response/{name}"

    def reset(self) -> None:
        with self.lock:
            self.calls.clear()
            self.failures.clear()
            self.not_in.clear()
            self.creators.clear()
            self.messages.clear()
            self.limited.clear()
            self.broken.clear()
            self.moved.clear()
            self.slow.clear()
            self.down = None

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

    def add_message(self, channel: str, ts: str, text: str, *, user: str = "UPERSON",
                    thread_ts: str | None = None) -> None:  # fmt: skip
        """A message someone wrote (what ``conversations.replies`` shows of a thread)."""
        with self.lock:
            self.messages[(channel, ts)] = {"type": "message", "ts": ts, "user": user, "text": text,
                                            "thread_ts": thread_ts}  # fmt: skip

    def thread(self, channel: str, thread_ts: str) -> list[dict[str, Any]]:
        """The thread's root and replies, oldest first."""
        with self.lock:
            found = [dict(m) for (c, ts), m in self.messages.items()
                     if c == channel and (ts == thread_ts or m.get("thread_ts") == thread_ts)]  # fmt: skip
        return sorted(found, key=lambda m: float(m["ts"]))

    def hold(self, method: str) -> None:
        """Answer no ``method`` call until :meth:`release` (the calls are recorded as they come)."""
        with self.lock:
            self.holds[method] = threading.Event()

    def release(self, method: str) -> None:
        with self.lock:
            event = self.holds.pop(method, None)
        if event is not None:
            event.set()

    def slow_next(self, method: str, seconds: float, times: int = 1) -> None:
        """The next ``times`` calls of ``method`` take effect at once (a post is in the thread)
        but are answered only ``seconds`` later: a client that gives up sooner cannot know."""
        with self.lock:
            self.slow.setdefault(method, []).extend([seconds] * times)

    def fail_next(self, method: str, status: int, error: str | None = None, times: int = 1) -> None:
        with self.lock:
            self.failures.setdefault(method, []).extend([(status, error)] * times)

    def of(self, method: str) -> list[Call]:
        with self.lock:
            return [c for c in self.calls if c.method == method]

    def wait_for(self, method: str, count: int = 1, *, timeout: float = 10.0,
                 where: Callable[[Call], bool] = lambda c: True) -> list[Call]:  # fmt: skip
        deadline = time.monotonic() + timeout
        while True:
            found = [c for c in self.of(method) if where(c)]
            if len(found) >= count or time.monotonic() > deadline:
                return found
            time.sleep(0.01)

    # -- answers ---------------------------------------------------------------

    def answer(self, method: str, params: dict[str, Any], token: str | None = None
               ) -> tuple[int, dict[str, Any], dict[str, str]]:  # fmt: skip
        channel = str(params.get("channel", ""))
        with self.lock:
            queue = self.failures.get(method)
            failure = queue.pop(0) if queue else None
            down, broken = self.down, self.broken.get(method)
            limit = self.limited.get(channel) if method == "chat.postMessage" else None
        if down is not None or broken is not None:
            return down or broken or 500, {"ok": False, "error": "service_unavailable"}, {}
        if limit is not None and time.monotonic() < limit[0]:
            return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": str(limit[1])}
        if failure is not None:
            status, error = failure
            if status == 429:
                return 429, {"ok": False, "error": "ratelimited"}, {"Retry-After": "0"}
            if status != 200:
                return status, {"ok": False, "error": "internal_error"}, {}
            return 200, {"ok": False, "error": error}, {}
        if method in ("chat.postMessage", "chat.update", "chat.postEphemeral") and channel in self.not_in:
            return 200, {"ok": False, "error": "not_in_channel"}, {}
        if method == "oauth.v2.access":
            grant = self.grants.get(str(params.get("code")))
            if grant is None:
                return 200, {"ok": False, "error": "invalid_code"}, {}
            return 200, {"ok": True, "app_id": grant.app_id, "authed_user": {"id": grant.installer},
                         "scope": "chat:write,commands", "token_type": "bot", "access_token": grant.token,
                         "bot_user_id": BOT_USER, "team": {"id": grant.team_id, "name": grant.team_name},
                         "enterprise": None, "is_enterprise_install": False}, {}  # fmt: skip
        granted = next((g for g in self.grants.values() if g.token == token), None)
        if method == "auth.test" and granted is not None:
            return 200, {"ok": True, "user_id": BOT_USER, "bot_id": "BBOT2", "team_id": granted.team_id,
                         "user": "errkb", "team": granted.team_name, "url": "https://other.slack.com/"}, {}  # fmt: skip
        if method == "auth.test":
            return 200, {"ok": True, "user_id": BOT_USER, "bot_id": "BBOT", "team_id": "T1", "user": "errkb",
                         "team": "Test", "url": "https://test.slack.com/"}, {}  # fmt: skip
        if method in ("chat.postMessage", "chat.update"):
            ts = params.get("ts") or self._new_ts(channel, params.get("thread_ts"))
            with self.lock:
                known = self.messages.get((channel, str(ts))) or {}
                self.messages[(channel, str(ts))] = {
                    **known, "type": "message", "ts": ts, "text": params.get("text"), "blocks": params.get("blocks"),
                    "bot_id": "BBOT", "thread_ts": params.get("thread_ts") or known.get("thread_ts"),
                    "metadata": params.get("metadata") or known.get("metadata"),
                }  # fmt: skip
            return 200, {"ok": True, "channel": channel, "ts": ts, "message": {"text": params.get("text")}}, {}
        if method == "chat.postEphemeral":
            return 200, {"ok": True, "message_ts": self._new_ts()}, {}
        if method == "users.info":
            user = self.users.get(str(params.get("user")))
            if user is None:
                return 200, {"ok": False, "error": "user_not_found"}, {}
            return 200, {"ok": True, "user": {"id": params.get("user"), **user}}, {}
        if method == "chat.getPermalink":
            return 200, {"ok": True, "permalink": f"https://test.slack.com/archives/{channel}/p{params.get('message_ts')}"}, {}
        if method == "usergroups.users.list":
            group = self.groups.get(str(params.get("usergroup")))
            if group is None:
                return 200, {"ok": False, "error": "no_such_subteam"}, {}
            return 200, {"ok": True, "users": group}, {}
        if method == "views.open":
            return 200, {"ok": True, "view": {"id": "V1", **(params.get("view") or {})}}, {}
        if method == "conversations.history":
            with self.lock:
                found = self.messages.get((channel, str(params.get("latest"))))
            return 200, {"ok": True, "messages": [found] if found else [], "has_more": False}, {}
        if method == "conversations.replies":
            return self._replies(channel, params)
        if method == "conversations.open":
            return 200, {"ok": True, "channel": {"id": "D" + str(params.get("users", "")).lstrip("U")}}, {}
        if method == "conversations.info":
            info = {"id": channel, "name": "errors", "is_member": True, "creator": self.creators.get(channel, "UFOUNDER")}
            return 200, {"ok": True, "channel": info}, {}
        if method == "files.getUploadURLExternal":
            file_id = f"F{next(self._ts)}"
            return 200, {"ok": True, "upload_url": f"{self.url}/upload/{file_id}", "file_id": file_id}, {}
        if method == "files.completeUploadExternal":
            files = params.get("files")
            files = json.loads(files) if isinstance(files, str) else files or []
            return 200, {"ok": True, "files": [{"id": f["id"], "title": f.get("title")} for f in files]}, {}
        return 200, {"ok": True}, {}

    def _new_ts(self, channel: str = "", thread_ts: str | None = None) -> str:
        """A new message's ts, as Slack gives them: the time it was posted, unique, and after
        every message of its thread (tests name pastes with made-up times, some ahead of now)."""

        def micros(ts: str) -> int:
            whole, _, part = ts.partition(".")
            return int(whole) * 1_000_000 + int((part + "000000")[:6])

        with self.lock:
            floor = [micros(ts) for (c, ts), m in self.messages.items()
                     if thread_ts and c == channel and (ts == thread_ts or m.get("thread_ts") == thread_ts)]  # fmt: skip
            issued = max(int(time.time() * 1_000_000), self._last_ts + 1, *(f + 1 for f in floor),
                         micros(thread_ts) + 1 if thread_ts else 0)  # fmt: skip
            self._last_ts = issued
        return f"{issued // 1_000_000}.{issued % 1_000_000:06d}"

    def _replies(self, channel: str, params: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        """``conversations.replies`` paged as Slack pages it: the root, then its replies oldest
        first, those after ``oldest`` and before ``latest`` (either end kept with
        ``inclusive``), at most ``limit`` a page and never more than :data:`REPLIES_PAGE`
        (Slack may give fewer than asked), ``has_more`` with
        ``response_metadata.next_cursor`` while any are left; the root only on the
        first page."""
        try:
            limit = min(int(params.get("limit") or REPLIES_PAGE), REPLIES_PAGE)
            oldest = float(params["oldest"]) if params.get("oldest") else None
            latest = float(params["latest"]) if params.get("latest") else None
        except (TypeError, ValueError):
            return 200, {"ok": False, "error": "invalid_arguments"}, {}
        if limit < 1:
            return 200, {"ok": False, "error": "invalid_limit"}, {}
        thread_ts = str(params.get("ts") or "")
        messages = self.thread(channel, thread_ts)
        # a root the test never added (a paste sent as an event only) is left out
        root = [m for m in messages if m["ts"] == thread_ts]
        inclusive = _flag(params.get("inclusive"))
        replies = [m for m in messages if m["ts"] != thread_ts and _within(float(m["ts"]), oldest, latest, inclusive)]
        cursor = params.get("cursor")
        if cursor:
            start = _cursor_ts(str(cursor))
            if start is None:
                return 200, {"ok": False, "error": "invalid_cursor"}, {}
            page_of = [m for m in replies if float(m["ts"]) >= start]
        else:
            page_of = [*root, *replies]
        page, rest = page_of[:limit], page_of[limit:]
        if not _flag(params.get("include_all_metadata")):
            page = [{k: v for k, v in m.items() if k != "metadata"} for m in page]
        more = {"next_cursor": _make_cursor(rest[0]["ts"]) if rest else ""}
        return 200, {"ok": True, "messages": page, "has_more": bool(rest), "response_metadata": more}, {}

    def start(self) -> FakeSlack:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None) -> None:
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

            def do_GET(self) -> None:
                path = urlparse(self.path).path
                if path.startswith("/files/") and path[7:] in fake.moved:
                    fake._record("files.download", {"name": path[7:]}, dict(self.headers))
                    self._send(302, b"", "text/plain", {"Location": fake.moved[path[7:]]})
                elif path.startswith("/files/") and path[7:] in fake.files:
                    fake._record("files.download", {"name": path[7:]}, dict(self.headers))
                    self._send(200, fake.files[path[7:]].encode(), "text/plain")
                else:
                    self._send(404, b"not found", "text/plain")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                path = urlparse(self.path).path
                headers = dict(self.headers)
                if path.startswith("/upload/"):
                    fake._record("upload", {"file_id": path[8:], "bytes": len(raw), "head": raw[:8]}, headers)
                    self._send(200, b"OK - uploaded", "text/plain")
                    return
                if path.startswith("/response/"):
                    fake._record("response_url", {"name": path[10:], **json.loads(raw or b"{}")}, headers)
                    self._send(200, b"ok", "text/plain")
                    return
                method = path.removeprefix("/api/")
                params = fake._params(raw, headers, self.path)
                fake._record(method, params, headers)
                with fake.lock:
                    held = fake.holds.get(method)
                if held is not None:
                    held.wait(timeout=30)
                auth = headers.get("Authorization") or ""
                token = auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
                status, body, extra = fake.answer(method, params, token)
                with fake.lock:
                    delays = fake.slow.get(method)
                    delay = delays.pop(0) if delays else 0.0
                time.sleep(delay)
                self._send(status, json.dumps(body).encode(), "application/json; charset=utf-8", extra)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.server is not None:
            self.server.shutdown()
            self.server.server_close()

    def _record(self, method: str, params: dict[str, Any], headers: dict[str, str]) -> None:
        with self.lock:
            self.calls.append(Call(method, params, headers, time.monotonic()))

    @staticmethod
    def _params(raw: bytes, headers: dict[str, str], path: str) -> dict[str, Any]:
        params: dict[str, Any] = {k: v[0] for k, v in parse_qs(urlparse(path).query).items()}
        kind = headers.get("Content-Type", "")
        if "json" in kind and raw:
            params.update(json.loads(raw))
        elif raw:
            params.update({k: v[0] for k, v in parse_qs(raw.decode()).items()})
        return params
