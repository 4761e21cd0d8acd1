"""The one way errkb talks to the Slack Web API.

:class:`SlackGateway` wraps a single ``WebClient`` (``base_url`` from
``SLACK_API_URL``). Nothing here sleeps on Slack's behalf: a rate limit
raises :class:`~bot.errors.SlackRateLimited` with Slack's ``Retry-After``, an
outage (5xx, a timeout, a refused connection, Slack's own transient error
codes) raises :class:`~bot.errors.SlackUnavailable`, and the job runner
(:mod:`bot.slack.queue.runner`) postpones that one job, not a worker thread. Every
other ``ok: false`` is permanent and comes back as a :class:`Sent` with
``ok=False`` and the error code, recorded in the metrics and not retried.
Only a dropped connection is retried here, once, at once.

Calls made for a Slack request or a job use that workspace's token
(:mod:`bot.slack.adapter.scope`; a multi-workspace install has one per team);
others use the token the gateway was built with. The token never appears in
a log line or an exception. When Slack refuses the gateway's own token
(:data:`TOKEN_ERRORS`) the call raises :class:`~bot.errors.SlackTokenRefused`
and ``on_token_refused`` hears of it (:mod:`bot.slack.adapter.link`), so the work
waits for a token Slack takes instead of ending half done.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.http_retry.builtin_handlers import ConnectionErrorRetryHandler
from slack_sdk.http_retry.builtin_interval_calculators import FixedValueRetryIntervalCalculator
from slack_sdk.webhook import WebhookClient

from bot.errors import SlackRateLimited, SlackTokenRefused, SlackUnavailable
from bot.slack.adapter.downloads import download, origin_of
from bot.slack.adapter.scope import current
from bot.slack.adapter.tls import client_context
from bot.slack.web.metrics import Metrics

log = logging.getLogger(__name__)

#: Error codes that describe the conversation, not an outage: results, logged at INFO.
EXPECTED = frozenset(
    {
        "channel_not_found",
        "not_in_channel",
        "is_archived",
        "user_not_found",
        "users_not_found",
        "message_not_found",
        "cant_update_message",
        "edit_window_closed",
        "expired_trigger_id",
        "invalid_trigger_id",
        "no_such_subteam",
        "subteam_not_found",
        "user_not_in_channel",
        "restricted_action",
        "thread_not_found",
        "file_not_found",
        "not_allowed_token_type",
        "already_reacted",
    }
)
#: Error codes Slack gives when it, not the call, is at fault: retried later.
TRANSIENT_ERRORS = frozenset(
    {
        "internal_error",
        "fatal_error",
        "service_unavailable",
        "request_timeout",
        "ratelimited",
        "team_added_to_org",
        "timeout",
    }
)
#: Error codes about the token itself, whatever the method.
TOKEN_ERRORS = frozenset(
    {"invalid_auth", "not_authed", "token_revoked", "token_expired", "account_inactive"}
)
RETRY_AFTER_DEFAULT = 30.0

#: The metadata event type of errkb's answers (see :meth:`SlackGateway.find_marked`).
MARKER_EVENT = "errkb_answer"

#: Replies asked for a page of ``conversations.replies`` (Slack's pagination guide asks
#: for no more than 200), and the pages read at most looking for one answer.
REPLIES_PAGE = 200
MAX_REPLY_PAGES = 100

JSON_METHODS = frozenset(
    {
        "chat.postMessage",
        "chat.postEphemeral",
        "chat.update",
        "views.open",
        "views.publish",
        "views.update",
        "assistant.threads.setSuggestedPrompts",
        "assistant.threads.setStatus",
        "assistant.threads.setTitle",
    }
)


@dataclass(frozen=True)
class Sent:
    ok: bool
    ts: str | None = None
    error: str | None = None
    data: dict[str, Any] | None = None


def retry_handlers() -> list[Any]:
    """A dropped connection is tried again once, at once; everything else is the runner's."""
    return [
        ConnectionErrorRetryHandler(
            max_retry_count=1,
            interval_calculator=FixedValueRetryIntervalCalculator(fixed_internal=0.05),
        )
    ]


def _carries(message: Any, marker: str) -> bool:
    """Whether a message from ``conversations.replies`` is errkb's answer marked ``marker``."""
    meta = message.get("metadata") if isinstance(message, dict) else None
    if not isinstance(meta, dict) or meta.get("event_type") != MARKER_EVENT:
        return False
    payload = meta.get("event_payload")
    return isinstance(payload, dict) and payload.get("job") == marker


def _retry_after(headers: Any) -> float:
    try:
        values = headers.get("retry-after") or headers.get("Retry-After")
        value = values[0] if isinstance(values, list) else values
        return max(0.0, float(value))
    except (TypeError, ValueError, AttributeError, IndexError):
        return RETRY_AFTER_DEFAULT


class _Reported(logging.Filter):
    """slack_sdk logs an error for every failed connection attempt; the gateway raises
    :class:`~bot.errors.SlackUnavailable` for it and whoever waits for Slack reports it, once
    (the runner's backoff, :mod:`bot.slack.adapter.link`), so the per-attempt lines are dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to send a request to Slack API server")


#: The logger of errkb's Web API clients (under slack_sdk's, whose level keeps request bodies out).
SDK_LOG = logging.getLogger("slack_sdk.web.errkb")
SDK_LOG.addFilter(_Reported())


class _TtlCache:
    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self.clock = clock
        self._data: dict[str, tuple[float, Any]] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> tuple[bool, Any]:
        with self._lock:
            found = self._data.get(key)
        if found is None or self.clock() - found[0] > self.seconds:
            return False, None
        return True, found[1]

    def put(self, key: str, value: Any) -> None:
        with self._lock:
            self._data[key] = (self.clock(), value)


class SlackGateway:
    def __init__(
        self,
        *,
        token: str | None,
        base_url: str,
        metrics: Metrics,
        cache_seconds: float = 3600,
        timeout: int = 10,
    ) -> None:
        self.client = WebClient(
            token=token,
            base_url=base_url,
            timeout=timeout,
            ssl=client_context(),
            retry_handlers=retry_handlers(),
            logger=SDK_LOG,
        )
        self.metrics = metrics
        self.on_token_refused: Callable[[str], None] | None = None
        self._users = _TtlCache(cache_seconds)
        self._groups = _TtlCache(min(cache_seconds, 300))

    # -- the one place calls go through -------------------------------------------

    def token(self) -> str | None:
        """The bot token for a call now: the current request's workspace's, else the default."""
        return current().bot_token or self.client.token

    def _own(self) -> bool:
        """This call goes out with the gateway's own token (not a request's workspace's)."""
        token = current().bot_token
        return not token or token == self.client.token

    def call(self, method: str, **params: Any) -> Sent:
        token = current().bot_token
        if token:
            params = {**params, "token": token}  # slack_sdk sends it as the Authorization header
        try:
            if method in JSON_METHODS:
                response = self.client.api_call(method, json=params)
            else:
                response = self.client.api_call(method, params=params)
        except SlackApiError as exc:
            return self._failed(
                method,
                exc.response.status_code,
                exc.response.get("error"),
                exc.response.headers,
                str(params.get("channel") or "") or None,
            )
        except (SlackRequestError, OSError) as exc:
            self.metrics.slack_error(method, type(exc).__name__)
            raise SlackUnavailable(f"Slack {method} unreachable: {type(exc).__name__}") from None
        data = dict(response.data) if isinstance(response.data, dict) else {}
        return Sent(ok=True, ts=data.get("ts"), data=data)

    def _failed(
        self, method: str, status: int, error: Any, headers: Any, channel: str | None
    ) -> Sent:
        """Slack said no: a rate limit or an outage raises (the job is retried), anything
        else is a permanent answer about this call."""
        code = str(error or f"http_{status}")
        self.metrics.slack_error(method, code)
        if status == 429 or code == "ratelimited":
            raise SlackRateLimited(method, _retry_after(headers), channel)
        if status >= 500 or code in TRANSIENT_ERRORS:
            raise SlackUnavailable(f"Slack {method} failed: {code}")
        if code in TOKEN_ERRORS and self._own() and self.client.token:
            if method == "auth.test":  # the token check itself: its caller says what it means, once
                return Sent(ok=False, error=code)
            if self.on_token_refused is not None:
                self.on_token_refused(code)
            raise SlackTokenRefused(f"Slack {method} refused the bot token: {code}")
        if code in EXPECTED:
            log.info("slack %s: %s", method, code, extra={"slack_method": method})
        else:
            log.warning("slack %s refused: %s", method, code, extra={"slack_method": method})
        return Sent(ok=False, error=code)

    # -- messages -----------------------------------------------------------------

    def post_message(
        self,
        *,
        channel: str,
        text: str,
        blocks: Sequence[dict[str, Any]],
        thread_ts: str | None = None,
        marker: str | None = None,
    ) -> Sent:
        """Post; ``marker`` is kept in the message's metadata so :meth:`find_marked`
        can tell later whether this very message went out."""
        params: dict[str, Any] = {
            "channel": channel,
            "text": text,
            "blocks": list(blocks),
            "unfurl_links": False,
        }
        if thread_ts:
            params["thread_ts"] = thread_ts
        if marker:
            params["metadata"] = {"event_type": MARKER_EVENT, "event_payload": {"job": marker}}
        return self.call("chat.postMessage", **params)

    def find_marked(
        self, *, channel: str, thread_ts: str, marker: str, after: str | None = None
    ) -> str | None:
        """The ts of errkb's message in the thread carrying ``marker``, if it was posted.

        Only replies newer than ``after`` (the pasted message, which the answer
        follows) can hold it, so only those are read, page after page to the end
        of the thread: Slack pages ``conversations.replies`` oldest first and may
        give fewer replies a page than asked, so a long thread's newest replies are
        never on the first page. A page Slack refuses ends the search (no duplicate
        check is possible then; a post follows).
        """
        params: dict[str, Any] = {
            "channel": channel,
            "ts": thread_ts,
            "limit": REPLIES_PAGE,
            "include_all_metadata": True,
        }
        if after:
            params["oldest"] = after
        for _ in range(MAX_REPLY_PAGES):
            found = self.call("conversations.replies", **params)
            data = (found.data or {}) if found.ok else {}
            for message in data.get("messages") or []:
                if _carries(message, marker):
                    return str(message.get("ts"))
            cursor = (data.get("response_metadata") or {}).get("next_cursor")
            if not data.get("has_more") or not cursor:
                return None
            params["cursor"] = cursor
        log.warning("gave up looking for an answer after %d pages", MAX_REPLY_PAGES)
        return None

    def thread_messages(
        self, *, channel: str, thread_ts: str, limit: int = 50, latest: str | None = None
    ) -> list[dict[str, Any]]:
        """The thread's root and its most recent ``limit`` replies (before ``latest`` when
        given), oldest first; empty when Slack will not say. Slack pages replies oldest
        first, so the cursor is followed to the end (at most :data:`MAX_REPLY_PAGES` pages
        of :data:`REPLIES_PAGE`), keeping only the last ``limit``."""
        root: list[dict[str, Any]] = []
        recent: deque[dict[str, Any]] = deque(maxlen=limit)
        params: dict[str, Any] = {"channel": channel, "ts": thread_ts, "limit": REPLIES_PAGE}
        if latest:
            params["latest"] = latest
        for _ in range(MAX_REPLY_PAGES):
            found = self.call("conversations.replies", **params)
            data = (found.data or {}) if found.ok else {}
            for message in data.get("messages") or []:
                if not isinstance(message, dict):
                    continue
                if message.get("ts") == thread_ts:
                    root = [message]
                else:
                    recent.append(message)
            cursor = (data.get("response_metadata") or {}).get("next_cursor")
            if not data.get("has_more") or not cursor:
                break
            params["cursor"] = cursor
        return [*root, *recent]

    def post_ephemeral(
        self,
        *,
        channel: str,
        user: str,
        text: str,
        blocks: Sequence[dict[str, Any]],
        thread_ts: str | None = None,
    ) -> Sent:
        params: dict[str, Any] = {
            "channel": channel,
            "user": user,
            "text": text,
            "blocks": list(blocks),
        }
        if thread_ts:
            params["thread_ts"] = thread_ts
        return self.call("chat.postEphemeral", **params)

    def add_reaction(self, *, channel: str, ts: str, name: str) -> Sent:
        """React to a message (``reactions.add``); ``already_reacted`` comes back as a result."""
        return self.call("reactions.add", channel=channel, timestamp=ts, name=name)

    def update_message(
        self, *, channel: str, ts: str, text: str, blocks: Sequence[dict[str, Any]]
    ) -> Sent:
        return self.call("chat.update", channel=channel, ts=ts, text=text, blocks=list(blocks))

    def delete_message(self, *, channel: str, ts: str) -> Sent:
        return self.call("chat.delete", channel=channel, ts=ts)

    def respond(self, response_url: str, payload: dict[str, Any]) -> Sent:
        """Post to a ``response_url`` (slash commands, shortcuts, buttons)."""
        hook = WebhookClient(
            response_url, timeout=10, ssl=client_context(), retry_handlers=retry_handlers()
        )
        try:
            result = hook.send_dict(payload)
        except OSError as exc:
            self.metrics.slack_error("response_url", type(exc).__name__)
            raise SlackUnavailable(f"response_url unreachable: {type(exc).__name__}") from None
        if result.status_code != 200:
            return self._failed("response_url", result.status_code, None, result.headers, None)
        return Sent(ok=True)

    def permalink(self, *, channel: str, ts: str) -> str | None:
        """A link to a message, or None: a permalink only decorates, so no failure stops the
        caller."""
        try:
            found = self.call("chat.getPermalink", channel=channel, message_ts=ts)
        except SlackUnavailable as exc:
            log.info("no permalink: %s", exc)
            return None
        return str(found.data.get("permalink")) if found.ok and found.data else None

    def open_view(self, *, trigger_id: str, view: dict[str, Any]) -> Sent:
        return self.call("views.open", trigger_id=trigger_id, view=view)

    def publish_home(self, *, user: str, view: dict[str, Any]) -> Sent:
        return self.call("views.publish", user_id=user, view=view)

    def upload_png(
        self,
        *,
        channel: str,
        content: bytes,
        filename: str,
        title: str,
        comment: str,
        thread_ts: str | None = None,
    ) -> Sent:
        try:
            response = self.client.files_upload_v2(
                channel=channel,
                content=content,
                filename=filename,
                title=title,
                initial_comment=comment,
                thread_ts=thread_ts,
                token=self.token(),
            )
        except SlackApiError as exc:
            return self._failed(
                "files_upload_v2",
                exc.response.status_code,
                exc.response.get("error"),
                exc.response.headers,
                channel,
            )
        except (SlackRequestError, OSError) as exc:
            self.metrics.slack_error("files_upload_v2", type(exc).__name__)
            raise SlackUnavailable(f"Slack file upload unreachable: {type(exc).__name__}") from None
        return Sent(ok=True, data=dict(response.data) if isinstance(response.data, dict) else {})

    # -- people (cached) ----------------------------------------------------------

    def user_locale(self, user_id: str) -> str | None:
        """The user's Slack locale (``users.info`` with ``include_locale``), cached; None
        when Slack will not say (a locale only decorates an answer: it never stops one)."""
        hit, value = self._users.get(user_id)
        if hit:
            return value  # type: ignore[no-any-return]
        try:
            found = self.call("users.info", user=user_id, include_locale=True)
        except SlackUnavailable as exc:
            log.info("no Slack locale for a user: %s", exc)
            return None  # not cached: the next answer asks again
        user = (found.data or {}).get("user", {}) if found.ok else {}
        locale = user.get("locale") if isinstance(user, dict) else None
        self._users.put(user_id, locale)
        return locale

    def group_members(self, group_id: str) -> frozenset[str]:
        """Members of a user group, cached (a failure raises: rights are never guessed)."""
        hit, value = self._groups.get(group_id)
        if hit:
            return value  # type: ignore[no-any-return]
        found = self.call("usergroups.users.list", usergroup=group_id)
        members = frozenset((found.data or {}).get("users", []) if found.ok else [])
        self._groups.put(group_id, members)
        return members

    def channel_creator(self, channel: str) -> str | None:
        """Who created a channel (``conversations.info``); None when Slack will not say."""
        found = self.call("conversations.info", channel=channel)
        info = (found.data or {}).get("channel") if found.ok else None
        creator = info.get("creator") if isinstance(info, dict) else None
        return str(creator) if creator else None

    def team_id(self) -> str | None:
        """The workspace of the gateway's own token (``auth.test``), None without one."""
        if not self.client.token:
            return None
        found = self.call("auth.test")
        return str(found.data.get("team_id")) if found.ok and found.data else None

    def org_id(self) -> str | None:
        """The organisation of the gateway's own token when it is an org-wide install
        (``auth.test``'s ``is_enterprise_install``), else None."""
        if not self.client.token:
            return None
        found = self.call("auth.test")
        data = found.data or {} if found.ok else {}
        org = data.get("enterprise_id") if data.get("is_enterprise_install") is True else None
        return str(org) if org else None

    # -- files --------------------------------------------------------------------

    def download_text(self, url: str, *, limit: int) -> str | None:
        """A snippet's text (at most ``limit`` characters), fetched with the bot token from
        Slack alone (:mod:`bot.slack.adapter.downloads`); None when it could not be read."""
        data = download(
            url, token=self.token(), api_origin=origin_of(self.client.base_url), max_bytes=limit * 4
        )
        if data is None:
            self.metrics.slack_error("files.download", "unread")
            return None
        return data.decode("utf-8", errors="replace")[:limit]
