"""A loopback stand-in for the Slack Web API that records every call and answers like Slack.

Serves ``/api/<method>`` (form or JSON bodies), the upload URLs of
``files_upload_v2``, ``response_url`` posts (``/response/<id>``) and snippet
downloads (``/files/<name>``). ``fail_next`` makes the next calls of a method
answer with an HTTP status (429 with ``Retry-After``, 500 …) or a Slack error;
``hold`` keeps a method's answers back (the call is recorded) until ``release``.
``grants`` are the OAuth codes ``oauth.v2.access`` exchanges (code → team id
and bot token); ``auth.test`` answers for the workspace of the token it gets.

Bad days: ``outage`` makes every Web API call answer an HTTP status until
``restore``; ``rate_limit`` answers a channel's posts 429 with ``Retry-After``
for a while; ``broken`` methods always fail. Threads: messages errkb posts are
kept with their metadata, people's messages are added with ``add_message``,
and ``conversations.replies`` answers with a thread's root and replies;
``reactions.add`` keeps errkb's reactions per message (``reactions``). Custom steps
(``functions.completeSuccess`` / ``completeError``) and assistant threads
(``assistant.threads.*``) answer ``invalid_arguments`` without what Slack requires.
"""

from __future__ import annotations

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
#: Custom-step and assistant-thread methods, with the arguments Slack requires of each.
SURFACE_METHODS: dict[str, tuple[str, ...]] = {
    "functions.completeSuccess": ("function_execution_id", "outputs"),
    "functions.completeError": ("function_execution_id", "error"),
    "assistant.threads.setStatus": ("channel_id", "thread_ts", "status"),
    "assistant.threads.setTitle": ("channel_id", "thread_ts", "title"),
    "assistant.threads.setSuggestedPrompts": ("channel_id", "thread_ts", "prompts"),
}


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
    calls: list[Call] = field(default_factory=list)
    failures: dict[str, list[tuple[int, str | None]]] = field(default_factory=dict)
    not_in: set[str] = field(default_factory=set)  # channels errkb is not a member of
    creators: dict[str, str] = field(default_factory=dict)  # channel → who created it
    grants: dict[str, Grant] = field(default_factory=dict)  # OAuth code → what installing gives
    holds: dict[str, threading.Event] = field(default_factory=dict)
    messages: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (channel, ts) → message
    reactions: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # (channel, ts) → errkb's reactions
    down: int | None = None  # every Web API call answers this HTTP status (an outage)
    limited: dict[str, tuple[float, int]] = field(default_factory=dict)  # channel → (until, Retry-After)
    broken: dict[str, int] = field(default_factory=dict)  # method → HTTP status it always answers
    lock: threading.Lock = field(default_factory=threading.Lock)
    _ts: Any = field(default_factory=lambda: itertools.count(1))
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
            self.reactions.clear()
            self.limited.clear()
            self.broken.clear()
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
            ts = params.get("ts") or f"1700000000.{next(self._ts):06d}"
            with self.lock:
                known = self.messages.get((channel, str(ts))) or {}
                self.messages[(channel, str(ts))] = {
                    **known, "type": "message", "ts": ts, "text": params.get("text"), "blocks": params.get("blocks"),
                    "bot_id": "BBOT", "thread_ts": params.get("thread_ts") or known.get("thread_ts"),
                    "metadata": params.get("metadata") or known.get("metadata"),
                }  # fmt: skip
            return 200, {"ok": True, "channel": channel, "ts": ts, "message": {"text": params.get("text")}}, {}
        if method == "chat.postEphemeral":
            return 200, {"ok": True, "message_ts": f"1700000000.{next(self._ts):06d}"}, {}
        if method == "reactions.add":
            return self._react(channel, params)
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
            messages = self.thread(channel, str(params.get("ts")))
            if not params.get("include_all_metadata") or params.get("include_all_metadata") in ("0", "false"):
                messages = [{k: v for k, v in m.items() if k != "metadata"} for m in messages]
            return 200, {"ok": True, "messages": messages, "has_more": False}, {}
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
        if method in SURFACE_METHODS:
            problem = self._surface_problem(method, params)
            return 200, ({"ok": False, "error": problem} if problem else {"ok": True}), {}
        return 200, {"ok": True}, {}

    def _react(self, channel: str, params: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        """``reactions.add`` as Slack answers it: a name without colons, on a message that exists, once."""
        name, ts = str(params.get("name") or ""), str(params.get("timestamp") or "")
        if not channel or not ts:
            return 200, {"ok": False, "error": "no_item_specified"}, {}
        if not name or ":" in name or " " in name:
            return 200, {"ok": False, "error": "invalid_name"}, {}
        with self.lock:
            if (channel, ts) not in self.messages:
                return 200, {"ok": False, "error": "message_not_found"}, {}
            given = self.reactions.setdefault((channel, ts), [])
            if name in given:
                return 200, {"ok": False, "error": "already_reacted"}, {}
            given.append(name)
        return 200, {"ok": True}, {}

    @staticmethod
    def _surface_problem(method: str, params: dict[str, Any]) -> str | None:
        """Slack's error for a custom-step or assistant-thread call missing what it requires."""
        # an empty status is allowed: it clears the thread's status
        missing = [p for p in SURFACE_METHODS[method] if params.get(p) is None or (params[p] == "" and p != "status")]
        if missing:
            return "invalid_arguments"
        if method == "functions.completeSuccess":
            outputs = params["outputs"]
            outputs = json.loads(outputs) if isinstance(outputs, str) else outputs
            return None if isinstance(outputs, dict) else "invalid_arguments"
        if method == "assistant.threads.setSuggestedPrompts":
            prompts = params["prompts"]
            prompts = json.loads(prompts) if isinstance(prompts, str) else prompts
            good = isinstance(prompts, list) and 1 <= len(prompts) <= 4 and all(
                isinstance(p, dict) and p.get("title") and p.get("message") for p in prompts)  # fmt: skip
            return None if good else "invalid_arguments"
        return None

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
                self.wfile.write(body)

            def do_GET(self) -> None:
                path = urlparse(self.path).path
                if path.startswith("/files/") and path[7:] in fake.files:
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
