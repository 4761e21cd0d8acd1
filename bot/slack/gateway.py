"""The one way errkb talks to the Slack Web API.

:class:`SlackGateway` wraps a single ``WebClient`` (``base_url`` from
``SLACK_API_URL``) with slack_sdk's retry handlers: rate limits are retried
after ``Retry-After``, 5xx and dropped connections a few times. Error codes
errkb expects (the bot is not in the channel, the message is gone, a trigger
expired …) come back as a :class:`Sent` with ``ok=False``; anything else
becomes :class:`~bot.errors.SlackUnavailable`. Every failure is counted in
the metrics; the token never appears in a log line or an exception.

Calls made while a Slack request is handled use that request's workspace
token (:mod:`bot.slack.scope`; a multi-workspace install has one per team);
others use the token the gateway was built with.
"""

from __future__ import annotations

import logging
import threading
import time
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError, SlackRequestError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.webhook import WebhookClient

from bot.errors import SlackUnavailable
from bot.slack.metrics import Metrics
from bot.slack.scope import current

log = logging.getLogger(__name__)

#: Error codes that describe the conversation, not an outage: results, not exceptions.
EXPECTED = frozenset({
    "channel_not_found", "not_in_channel", "is_archived", "user_not_found", "users_not_found",
    "message_not_found", "cant_update_message", "edit_window_closed", "expired_trigger_id",
    "invalid_trigger_id", "no_such_subteam", "subteam_not_found", "user_not_in_channel",
    "restricted_action", "thread_not_found", "file_not_found", "not_allowed_token_type",
})  # fmt: skip

JSON_METHODS = frozenset({"chat.postMessage", "chat.postEphemeral", "chat.update", "views.open"})


@dataclass(frozen=True)
class Sent:
    ok: bool
    ts: str | None = None
    error: str | None = None
    data: dict[str, Any] | None = None


def retry_handlers(max_retries: int = 2) -> list[Any]:
    return [
        RateLimitErrorRetryHandler(max_retry_count=max_retries),
        ServerErrorRetryHandler(max_retry_count=max_retries),
        ConnectionErrorRetryHandler(max_retry_count=max_retries),
    ]


class _TtlCache:
    def __init__(self, seconds: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.seconds, self.clock = seconds, clock
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
            token=token, base_url=base_url, timeout=timeout, retry_handlers=retry_handlers()
        )
        self.metrics = metrics
        self._users = _TtlCache(cache_seconds)
        self._groups = _TtlCache(min(cache_seconds, 300))

    # -- the one place calls go through -------------------------------------------

    def token(self) -> str | None:
        """The bot token for a call now: the current request's workspace's, else the default."""
        return current().bot_token or self.client.token

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
            error = str(exc.response.get("error", "unknown_error"))
            self.metrics.slack_error(method, error)
            if error in EXPECTED:
                log.info("slack %s: %s", method, error, extra={"slack_method": method})
                return Sent(ok=False, error=error)
            raise SlackUnavailable(f"Slack {method} failed: {error}") from None
        except (SlackRequestError, OSError) as exc:
            self.metrics.slack_error(method, type(exc).__name__)
            raise SlackUnavailable(f"Slack {method} unreachable: {type(exc).__name__}") from None
        data = dict(response.data) if isinstance(response.data, dict) else {}
        return Sent(ok=True, ts=data.get("ts"), data=data)

    # -- messages -----------------------------------------------------------------

    def post_message(self, *, channel: str, text: str, blocks: Sequence[dict[str, Any]],
                     thread_ts: str | None = None) -> Sent:  # fmt: skip
        params: dict[str, Any] = {
            "channel": channel,
            "text": text,
            "blocks": list(blocks),
            "unfurl_links": False,
        }
        if thread_ts:
            params["thread_ts"] = thread_ts
        return self.call("chat.postMessage", **params)

    def post_ephemeral(self, *, channel: str, user: str, text: str, blocks: Sequence[dict[str, Any]],
                       thread_ts: str | None = None) -> Sent:  # fmt: skip
        params: dict[str, Any] = {
            "channel": channel,
            "user": user,
            "text": text,
            "blocks": list(blocks),
        }
        if thread_ts:
            params["thread_ts"] = thread_ts
        return self.call("chat.postEphemeral", **params)

    def update_message(
        self, *, channel: str, ts: str, text: str, blocks: Sequence[dict[str, Any]]
    ) -> Sent:
        return self.call("chat.update", channel=channel, ts=ts, text=text, blocks=list(blocks))

    def respond(self, response_url: str, payload: dict[str, Any]) -> Sent:
        """Post to a ``response_url`` (slash commands, shortcuts, buttons)."""
        hook = WebhookClient(response_url, timeout=10, retry_handlers=retry_handlers())
        try:
            result = hook.send_dict(payload)
        except OSError as exc:
            self.metrics.slack_error("response_url", type(exc).__name__)
            raise SlackUnavailable(f"response_url unreachable: {type(exc).__name__}") from None
        if result.status_code != 200:
            self.metrics.slack_error("response_url", str(result.status_code))
            return Sent(ok=False, error=f"http_{result.status_code}")
        return Sent(ok=True)

    def permalink(self, *, channel: str, ts: str) -> str | None:
        found = self.call("chat.getPermalink", channel=channel, message_ts=ts)
        return str(found.data.get("permalink")) if found.ok and found.data else None

    def open_view(self, *, trigger_id: str, view: dict[str, Any]) -> Sent:
        return self.call("views.open", trigger_id=trigger_id, view=view)

    def upload_png(self, *, channel: str, content: bytes, filename: str, title: str,
                   comment: str, thread_ts: str | None = None) -> Sent:  # fmt: skip
        try:
            response = self.client.files_upload_v2(
                channel=channel, content=content, filename=filename, title=title,
                initial_comment=comment, thread_ts=thread_ts, token=self.token(),
            )  # fmt: skip
        except SlackApiError as exc:
            error = str(exc.response.get("error", "unknown_error"))
            self.metrics.slack_error("files_upload_v2", error)
            if error in EXPECTED:
                return Sent(ok=False, error=error)
            raise SlackUnavailable(f"Slack file upload failed: {error}") from None
        except (SlackRequestError, OSError) as exc:
            self.metrics.slack_error("files_upload_v2", type(exc).__name__)
            raise SlackUnavailable(f"Slack file upload unreachable: {type(exc).__name__}") from None
        return Sent(ok=True, data=dict(response.data) if isinstance(response.data, dict) else {})

    # -- people (cached) ----------------------------------------------------------

    def user_locale(self, user_id: str) -> str | None:
        """The user's Slack locale (``users.info`` with ``include_locale``), cached."""
        hit, value = self._users.get(user_id)
        if hit:
            return value  # type: ignore[no-any-return]
        found = self.call("users.info", user=user_id, include_locale=True)
        user = (found.data or {}).get("user", {}) if found.ok else {}
        locale = user.get("locale") if isinstance(user, dict) else None
        self._users.put(user_id, locale)
        return locale

    def group_members(self, group_id: str) -> frozenset[str]:
        hit, value = self._groups.get(group_id)
        if hit:
            return value  # type: ignore[no-any-return]
        found = self.call("usergroups.users.list", usergroup=group_id)
        members = frozenset((found.data or {}).get("users", []) if found.ok else [])
        self._groups.put(group_id, members)
        return members

    # -- files --------------------------------------------------------------------

    def download_text(self, url: str, *, limit: int) -> str | None:
        """A snippet's text (at most ``limit`` characters), fetched with the bot token."""
        request = urllib.request.Request(url, headers={"Authorization": f"Bearer {self.token()}"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                data: bytes = response.read(limit * 4)
        except OSError as exc:
            self.metrics.slack_error("files.download", type(exc).__name__)
            log.info("snippet download failed: %s", type(exc).__name__)
            return None
        return data.decode("utf-8", errors="replace")[:limit]
