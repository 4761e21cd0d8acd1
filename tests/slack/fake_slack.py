"""A loopback stand-in for the Slack Web API that records every call and answers like Slack.

Serves ``/api/<method>`` (form or JSON bodies), the upload URLs of
``files_upload_v2``, ``response_url`` posts (``/response/<id>``) and snippet
downloads (``/files/<name>``, or a redirect to where ``moved`` says). ``fail_next`` makes the next
calls of a method answer with an HTTP status (429 with ``Retry-After``, 500 …) or a Slack error;
``hold`` keeps a method's answers back (the call is recorded) until ``release``.
``grants`` are the OAuth codes ``oauth.v2.access`` exchanges (code → team id,
bot token, scopes, refresh token); ``auth.test`` answers for the workspace of
the token it gets, and ``oauth.v2.access`` with ``grant_type=refresh_token``
rotates a grant's token as Slack's token rotation does.

Strict as Slack: every method needs a token (``not_authed``) that Slack knows
(``invalid_auth``; with ``token`` set, only that one and the grants' are
known) and the bot scopes ``slack_methods.yaml`` lists for it; the token's
scopes are the bot scopes of ``manifest.yaml`` (or a grant's own), and a
method whose scope is not granted is answered ``missing_scope`` with
``needed`` and ``provided``, a method with no row ``unknown_method``.
``refuse`` answers a Slack error (``token_revoked``, ``invalid_auth``,
``not_in_channel``, ``channel_not_found`` …) for one token, one channel, one
method or the next N calls, until ``allow``.

Bad days: ``outage`` makes every Web API call answer an HTTP status until
``restore``; ``slow_next`` answers a call that took effect late; ``rate_limit`` answers a channel's
posts 429 with ``Retry-After`` for a while; ``broken`` methods always fail. Threads: messages errkb
posts are kept with their metadata, people's messages are added with ``add_message``,
and ``conversations.replies`` pages a thread's root and replies as Slack does
(oldest first, ``limit``, ``oldest``/``latest``/``inclusive``, ``cursor``);
``reactions.add`` keeps errkb's reactions per message (``reactions``). Custom steps
(``functions.completeSuccess`` / ``completeError``) and assistant threads
(``assistant.threads.*``) answer ``invalid_arguments`` without what Slack requires.
"""

from __future__ import annotations

import base64
import functools
import itertools
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import yaml

BOT_USER = "UBOT"
HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
#: Errors about the token itself: answered by every method, ``auth.test`` included.
TOKEN_ERRORS = frozenset(
    {"invalid_auth", "token_revoked", "token_expired", "account_inactive", "not_authed"}
)
#: Conversation kinds by the first letter of a conversation id (``kinds`` overrides one).
KIND_BY_PREFIX = {"C": "public", "G": "private", "D": "im"}


@functools.cache
def methods_table() -> dict[str, Any]:
    """``slack_methods.yaml``: method → its row (doc, scopes or conversation), plus events and
    features."""
    data: dict[str, Any] = yaml.safe_load((HERE / "slack_methods.yaml").read_text(encoding="utf-8"))
    return data


@functools.cache
def manifest_scopes() -> tuple[str, ...]:
    """The bot scopes errkb is installed with: ``manifest.yaml``'s, the one source."""
    manifest = yaml.safe_load((ROOT / "manifest.yaml").read_text(encoding="utf-8"))
    return tuple(manifest["oauth_config"]["scopes"]["bot"])


def needed_scopes(method: str, kind: str | None) -> tuple[str, ...]:
    """The scopes any one of which lets a bot token call ``method`` (for a ``kind`` of
    conversation)."""
    row = methods_table()["methods"][method]
    if "conversation" in row:
        by_kind = row["conversation"]
        return (by_kind[kind],) if kind in by_kind else tuple(by_kind.values())
    return tuple(row.get("scopes") or ())


#: Custom-step and assistant-thread methods, with the arguments Slack requires of each.
SURFACE_METHODS: dict[str, tuple[str, ...]] = {
    "functions.completeSuccess": ("function_execution_id", "outputs"),
    "functions.completeError": ("function_execution_id", "error"),
    "assistant.threads.setStatus": ("channel_id", "thread_ts", "status"),
    "assistant.threads.setTitle": ("channel_id", "thread_ts", "title"),
    "assistant.threads.setSuggestedPrompts": ("channel_id", "thread_ts", "prompts"),
}


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
    """What ``oauth.v2.access`` gives for one code: a workspace, its bot token and scopes, and
    with token rotation a refresh token and the token's lifetime in seconds."""

    team_id: str
    token: str
    team_name: str = "Other workspace"
    app_id: str = "A1"
    installer: str = "UINSTALLER"
    scopes: tuple[str, ...] = field(default_factory=manifest_scopes)
    refresh_token: str | None = None
    expires_in: int | None = None


@dataclass
class Refusal:
    """Answer ``error`` (HTTP 200, ``ok: false``) to calls matching every field given;
    ``times``: for that many calls, then no more (None: until :meth:`FakeSlack.allow`)."""

    error: str
    token: str | None = None
    channel: str | None = None
    method: str | None = None
    times: int | None = None

    def matches(self, method: str, token: str | None, channel: str) -> bool:
        if self.times is not None and self.times <= 0:
            return False
        if self.method is not None and self.method != method:
            return False
        if self.token is not None and self.token != token:
            return False
        return self.channel is None or self.channel == channel


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
    slow: dict[str, list[float]] = field(
        default_factory=dict
    )  # method → delays of its next answers
    messages: dict[tuple[str, str], dict[str, Any]] = field(
        default_factory=dict
    )  # (channel, ts) → message
    reactions: dict[tuple[str, str], list[str]] = field(
        default_factory=dict
    )  # (channel, ts) → errkb's reactions
    down: int | None = None  # every Web API call answers this HTTP status (an outage)
    limited: dict[str, tuple[float, int]] = field(
        default_factory=dict
    )  # channel → (until, Retry-After)
    broken: dict[str, int] = field(default_factory=dict)  # method → HTTP status it always answers
    token: str | None = (
        None  # the installed workspace's (T1) bot token; None: any unknown token is T1's
    )
    scopes: tuple[str, ...] = field(default_factory=manifest_scopes)  # what T1's token was granted
    kinds: dict[str, str] = field(
        default_factory=dict
    )  # conversation → public | private | im | mpim
    refusals: list[Refusal] = field(default_factory=list)
    rotated: dict[str, str] = field(default_factory=dict)  # refresh token → OAuth code of its grant
    retired: set[str] = field(default_factory=set)  # tokens replaced by a rotation
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
        """Answer no ``method`` call until :meth:`release` (the calls are recorded as they come)."""
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

    # -- answers ---------------------------------------------------------------

    def answer(
        self, method: str, params: dict[str, Any], token: str | None = None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        channel = str(params.get("channel", ""))
        with self.lock:
            queue = self.failures.get(method)
            failure = queue.pop(0) if queue else None
            down = self.down
            broken = self.broken.get(method)
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
        if method not in methods_table()["methods"]:
            return 200, {"ok": False, "error": "unknown_method", "req_method": method}, {}
        if method == "oauth.v2.access":
            return self._oauth(params)
        granted = next((g for g in self.grants.values() if g.token == token), None)
        refused = self._refused(method, token, channel, granted)
        if refused is not None:
            return 200, refused, {}
        provided = granted.scopes if granted is not None else self.scopes
        needed = needed_scopes(method, self.kind(channel) if channel else None)
        if needed and not set(needed) & set(provided):
            return (
                200,
                {
                    "ok": False,
                    "error": "missing_scope",
                    "needed": ",".join(needed),
                    "provided": ",".join(provided),
                },
                {},
            )
        status, body, headers = self._answer(method, params, channel, granted)
        return status, body, {"X-OAuth-Scopes": ",".join(provided), **headers}

    def _refused(
        self, method: str, token: str | None, channel: str, granted: Grant | None
    ) -> dict[str, Any] | None:
        """Slack's error for this call's token or conversation, if it has one."""
        if not token:
            return {"ok": False, "error": "not_authed"}
        app_level = methods_table()["methods"].get(method, {}).get("token") == "app"
        if app_level != token.startswith("xapp-"):
            return {"ok": False, "error": "not_allowed_token_type"}
        # a custom step completes with the token its function_executed event carried (xwfp-)
        step = method.startswith("functions.") and token.startswith("xwfp-")
        if (
            granted is None
            and self.token is not None
            and token != self.token
            and not app_level
            and not step
        ):
            return {"ok": False, "error": "invalid_auth"}
        with self.lock:
            if token in self.retired:
                return {"ok": False, "error": "token_expired"}
            refusal = next((r for r in self.refusals if r.matches(method, token, channel)), None)
            if refusal is not None and refusal.times is not None:
                refusal.times -= 1
        if refusal is not None:
            return {"ok": False, "error": refusal.error}
        if (
            method in ("chat.postMessage", "chat.update", "chat.postEphemeral")
            and channel in self.not_in
        ):
            return {"ok": False, "error": "not_in_channel"}
        return None

    def _oauth(self, params: dict[str, Any]) -> tuple[int, dict[str, Any], dict[str, str]]:
        """``oauth.v2.access``: a code for its grant's token, or (token rotation) a refresh token
        for a new token and refresh token, the old token then no longer accepted."""
        refreshing = params.get("grant_type") == "refresh_token"
        if refreshing:
            with self.lock:
                code = self.rotated.get(str(params.get("refresh_token")))
                grant = self.grants.get(code) if code else None
                if grant is None or code is None:
                    return 200, {"ok": False, "error": "invalid_refresh_token"}, {}
                n = next(self._ts)
                grant = replace(
                    grant,
                    token=f"{grant.token.split('~')[0]}~{n}",
                    refresh_token=f"{str(grant.refresh_token).split('~')[0]}~{n}",
                )
                self.retired.add(self.grants[code].token)
                self.grants[code] = grant
                del self.rotated[str(params.get("refresh_token"))]
                self.rotated[str(grant.refresh_token)] = code
        else:
            code = str(params.get("code"))
            grant = self.grants.get(code)
            if grant is None:
                return 200, {"ok": False, "error": "invalid_code"}, {}
            with self.lock:
                self.retired.discard(grant.token)  # installed again: this token is new
                if grant.refresh_token:
                    self.rotated[grant.refresh_token] = code
        body: dict[str, Any] = {
            "ok": True,
            "app_id": grant.app_id,
            "authed_user": {"id": grant.installer},
            "scope": ",".join(grant.scopes),
            "token_type": "bot",
            "access_token": grant.token,
            "bot_user_id": BOT_USER,
            "team": {"id": grant.team_id, "name": grant.team_name},
            "enterprise": None,
            "is_enterprise_install": False,
        }
        if grant.refresh_token:  # a refreshed token lives Slack's 12 hours
            body.update(
                refresh_token=grant.refresh_token,
                expires_in=refreshing and 43200 or grant.expires_in or 43200,
            )
        return 200, body, {}

    def _answer(
        self, method: str, params: dict[str, Any], channel: str, granted: Grant | None
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        if (
            method == "apps.connections.open"
        ):  # the stand-in serves no WebSocket: nothing answers there
            return 200, {"ok": True, "url": "ws://127.0.0.1:9/link"}, {}
        if method == "auth.test" and granted is not None:
            return (
                200,
                {
                    "ok": True,
                    "user_id": BOT_USER,
                    "bot_id": "BBOT2",
                    "team_id": granted.team_id,
                    "user": "errkb",
                    "team": granted.team_name,
                    "url": "https://other.slack.com/",
                },
                {},
            )
        if method == "auth.test":
            return (
                200,
                {
                    "ok": True,
                    "user_id": BOT_USER,
                    "bot_id": "BBOT",
                    "team_id": "T1",
                    "user": "errkb",
                    "team": "Test",
                    "url": "https://test.slack.com/",
                },
                {},
            )
        if method in ("chat.postMessage", "chat.update"):
            ts = params.get("ts") or self._new_ts(channel, params.get("thread_ts"))
            with self.lock:
                known = self.messages.get((channel, str(ts))) or {}
                self.messages[(channel, str(ts))] = {
                    **known,
                    "type": "message",
                    "ts": ts,
                    "text": params.get("text"),
                    "blocks": params.get("blocks"),
                    "bot_id": "BBOT",
                    "thread_ts": params.get("thread_ts") or known.get("thread_ts"),
                    "metadata": params.get("metadata") or known.get("metadata"),
                }
            return (
                200,
                {"ok": True, "channel": channel, "ts": ts, "message": {"text": params.get("text")}},
                {},
            )
        if method == "chat.postEphemeral":
            return 200, {"ok": True, "message_ts": self._new_ts()}, {}
        if method == "reactions.add":
            return self._react(channel, params)
        if method == "users.info":
            user = self.users.get(str(params.get("user")))
            if user is None:
                return 200, {"ok": False, "error": "user_not_found"}, {}
            return 200, {"ok": True, "user": {"id": params.get("user"), **user}}, {}
        if method == "chat.getPermalink":
            return (
                200,
                {
                    "ok": True,
                    "permalink": f"https://test.slack.com/archives/{channel}/p{params.get('message_ts')}",
                },
                {},
            )
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
            return (
                200,
                {"ok": True, "channel": {"id": "D" + str(params.get("users", "")).lstrip("U")}},
                {},
            )
        if method == "conversations.info":
            info = {
                "id": channel,
                "name": "errors",
                "is_member": True,
                "creator": self.creators.get(channel, "UFOUNDER"),
            }
            return 200, {"ok": True, "channel": info}, {}
        if method == "files.getUploadURLExternal":
            file_id = f"F{next(self._ts)}"
            return (
                200,
                {"ok": True, "upload_url": f"{self.url}/upload/{file_id}", "file_id": file_id},
                {},
            )
        if method == "files.completeUploadExternal":
            files = params.get("files")
            files = json.loads(files) if isinstance(files, str) else files or []
            return (
                200,
                {"ok": True, "files": [{"id": f["id"], "title": f.get("title")} for f in files]},
                {},
            )
        if method in SURFACE_METHODS:
            problem = self._surface_problem(method, params)
            return 200, ({"ok": False, "error": problem} if problem else {"ok": True}), {}
        return 200, {"ok": True}, {}

    def _react(
        self, channel: str, params: dict[str, Any]
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
        """``reactions.add`` as Slack answers it: a name without colons, on a message that
        exists, once."""
        name = str(params.get("name") or "")
        ts = str(params.get("timestamp") or "")
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
        missing = [
            p
            for p in SURFACE_METHODS[method]
            if params.get(p) is None or (params[p] == "" and p != "status")
        ]
        if missing:
            return "invalid_arguments"
        if method == "functions.completeSuccess":
            outputs = params["outputs"]
            outputs = json.loads(outputs) if isinstance(outputs, str) else outputs
            return None if isinstance(outputs, dict) else "invalid_arguments"
        if method == "assistant.threads.setSuggestedPrompts":
            prompts = params["prompts"]
            prompts = json.loads(prompts) if isinstance(prompts, str) else prompts
            good = (
                isinstance(prompts, list)
                and 1 <= len(prompts) <= 4
                and all(
                    isinstance(p, dict) and p.get("title") and p.get("message") for p in prompts
                )
            )
            return None if good else "invalid_arguments"
        return None

    def may_download(self, token: str | None) -> bool:
        """A file's ``url_private`` is read with a token Slack accepts that has files:read."""
        granted = next((g for g in self.grants.values() if g.token == token), None)
        if self._refused("files.download", token, "", granted) is not None:
            return False
        provided = granted.scopes if granted is not None else self.scopes
        return bool(set(methods_table()["downloads"]["scopes"]) & set(provided))

    def _new_ts(self, channel: str = "", thread_ts: str | None = None) -> str:
        """A new message's ts, as Slack gives them: the time it was posted, unique, and after
        every message of its thread (tests name pastes with made-up times, some ahead of now)."""

        def micros(ts: str) -> int:
            whole, _, part = ts.partition(".")
            return int(whole) * 1_000_000 + int((part + "000000")[:6])

        with self.lock:
            floor = [
                micros(ts)
                for (c, ts), m in self.messages.items()
                if thread_ts
                and c == channel
                and (ts == thread_ts or m.get("thread_ts") == thread_ts)
            ]
            issued = max(
                int(time.time() * 1_000_000),
                self._last_ts + 1,
                *(f + 1 for f in floor),
                micros(thread_ts) + 1 if thread_ts else 0,
            )
            self._last_ts = issued
        return f"{issued // 1_000_000}.{issued % 1_000_000:06d}"

    def _replies(
        self, channel: str, params: dict[str, Any]
    ) -> tuple[int, dict[str, Any], dict[str, str]]:
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
        replies = [
            m
            for m in messages
            if m["ts"] != thread_ts and _within(float(m["ts"]), oldest, latest, inclusive)
        ]
        cursor = params.get("cursor")
        if cursor:
            start = _cursor_ts(str(cursor))
            if start is None:
                return 200, {"ok": False, "error": "invalid_cursor"}, {}
            page_of = [m for m in replies if float(m["ts"]) >= start]
        else:
            page_of = [*root, *replies]
        page = page_of[:limit]
        rest = page_of[limit:]
        if not _flag(params.get("include_all_metadata")):
            page = [{k: v for k, v in m.items() if k != "metadata"} for m in page]
        more = {"next_cursor": _make_cursor(rest[0]["ts"]) if rest else ""}
        return (
            200,
            {"ok": True, "messages": page, "has_more": bool(rest), "response_metadata": more},
            {},
        )

    def start(self, port: int = 0) -> FakeSlack:
        """Serve on ``port`` (0: a free one); a stopped stand-in starts again on its old port
        to play Slack coming back."""
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _send(
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

            def do_GET(self) -> None:
                path = urlparse(self.path).path
                if path.startswith("/files/") and path[7:] in fake.moved:
                    fake._record("files.download", {"name": path[7:]}, dict(self.headers))
                    self._send(302, b"", "text/plain", {"Location": fake.moved[path[7:]]})
                elif path.startswith("/files/") and path[7:] in fake.files:
                    fake._record("files.download", {"name": path[7:]}, dict(self.headers))
                    if not fake.may_download(_bearer(dict(self.headers))):
                        self._send(403, b"forbidden", "text/plain")
                        return
                    self._send(200, fake.files[path[7:]].encode(), "text/plain")
                else:
                    self._send(404, b"not found", "text/plain")

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                path = urlparse(self.path).path
                headers = dict(self.headers)
                if path.startswith("/upload/"):
                    fake._record(
                        "upload", {"file_id": path[8:], "bytes": len(raw), "head": raw[:8]}, headers
                    )
                    self._send(200, b"OK - uploaded", "text/plain")
                    return
                if path.startswith("/response/"):
                    fake._record(
                        "response_url", {"name": path[10:], **json.loads(raw or b"{}")}, headers
                    )
                    self._send(200, b"ok", "text/plain")
                    return
                method = path.removeprefix("/api/")
                params = fake._params(raw, headers, self.path)
                fake._record(method, params, headers)
                with fake.lock:
                    held = fake.holds.get(method)
                if held is not None:
                    held.wait(timeout=30)
                token = _bearer(headers) or (str(params["token"]) if params.get("token") else None)
                status, body, extra = fake.answer(method, params, token)
                with fake.lock:
                    delays = fake.slow.get(method)
                    delay = delays.pop(0) if delays else 0.0
                time.sleep(delay)
                self._send(
                    status, json.dumps(body).encode(), "application/json; charset=utf-8", extra
                )

        self.server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.server.daemon_threads = True
        threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        ).start()
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


def _bearer(headers: dict[str, str]) -> str | None:
    auth = headers.get("Authorization") or ""
    return auth.removeprefix("Bearer ") if auth.startswith("Bearer ") else None
