"""Whether Slack takes errkb's bot token (a single-workspace install), learned without stopping
errkb.

A bad, revoked or rotated token, or Slack unreachable, must not stop the
process: it would only restart into the same state. So nothing checks the
token inside Bolt's ``App()`` (``token_verification_enabled=False``);
:class:`SlackLink` asks ``auth.test`` on a thread of its own at start and,
while the answer is not good, again with a backoff of 1, 2, 4 … 30 seconds.
Bolt's ``authorize`` is :meth:`SlackLink.authorize`, which is lazy: it
gives the workspace's identity once Slack took the token, and otherwise
refuses the request with :class:`~bot.errors.SlackTokenRefused` (Slack is
answered 503 and delivers the event again; the backoff holds). A Web API
call refused for the token later (:meth:`SlackLink.refused`) starts the
checks again; ``app_uninstalled`` / ``tokens_revoked`` end them for good
(:meth:`SlackLink.revoke`): that token never comes back.

States and what they are::

    checking ──auth.test ok──▶ ok ◀──────────────┐
       │                       │ a call refused   │ auth.test ok
       ├──refused──▶ token ◀───┘ for the token    │
       └──no answer─▶ unreachable ────────────────┘
    any ──app_uninstalled / tokens_revoked──▶ revoked (final)

Each change of state is one log line; ``/healthz`` is ``broken`` with
:meth:`SlackLink.problem` as its reason while the state is token,
unreachable or revoked.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from slack_bolt.authorization import AuthorizeResult
from slack_sdk.errors import SlackApiError, SlackRequestError

from bot.errors import SlackTokenRefused, SlackUnavailable, SlackUninstalled
from bot.slack.adapter.gateway import SlackGateway

log = logging.getLogger(__name__)

#: How long a request waits for the very first check before Slack is told to come back.
FIRST_CHECK_SECONDS = 2.0


class LinkState(StrEnum):
    CHECKING = "checking"
    OK = "ok"
    TOKEN = "token"  # Slack refuses the token
    UNREACHABLE = "unreachable"  # Slack does not answer
    REVOKED = "revoked"  # the workspace uninstalled errkb or revoked its tokens


@dataclass(frozen=True)
class Identity:
    """Who the token is, from ``auth.test``."""

    team_id: str
    bot_user_id: str | None
    bot_id: str | None
    org_id: str | None = None  # the organisation of an org-wide install, None for a workspace's


class SlackLink:
    """The one place that knows whether Slack takes the bot token (see the module docstring)."""

    def __init__(
        self, gateway: SlackGateway, *, first_backoff: float = 1.0, max_backoff: float = 30.0
    ) -> None:
        self.gateway = gateway
        self.first_backoff = first_backoff
        self.max_backoff = max_backoff
        self._state = LinkState.CHECKING
        self._why = ""
        self._identity: Identity | None = None
        self._failures = 0
        self._lock = threading.Lock()
        self._checked = threading.Event()  # the first check has an answer
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        #: Called when Slack takes the token again after refusing it (work that waited goes now).
        self.on_ok: Callable[[], None] | None = None

    # -- what others read ------------------------------------------------------------

    @property
    def state(self) -> LinkState:
        with self._lock:
            return self._state

    def team(self) -> str | None:
        """The installed workspace, once Slack has said which (it stays known through an outage)."""
        with self._lock:
            return self._identity.team_id if self._identity else None

    def org(self) -> str | None:
        """The organisation of an org-wide install (``auth.test``'s ``is_enterprise_install``),
        None for a workspace's or before Slack has said."""
        with self._lock:
            return self._identity.org_id if self._identity else None

    def problem(self) -> str | None:
        """One line for ``/healthz`` while Slack cannot be used, else None."""
        with self._lock:
            state = self._state
            why = self._why
        if state is LinkState.TOKEN:
            return f"Slack refuses the bot token ({why}): set a valid SLACK_BOT_TOKEN"
        if state is LinkState.UNREACHABLE:
            return f"Slack unreachable ({why})"
        if state is LinkState.REVOKED:
            return (
                f"Slack bot token revoked ({why}): reinstall errkb and set its new SLACK_BOT_TOKEN"
            )
        return None

    def usable(self) -> None:
        """Raise unless work may be sent to Slack now: :class:`SlackUninstalled` (the work ends)
        after an uninstall, :class:`SlackTokenRefused` (it waits) while the token is refused or
        Slack is away. Checking, Slack is tried: the work's own calls find out."""
        with self._lock:
            state = self._state
            why = self._why
        if state is LinkState.REVOKED:
            raise SlackUninstalled(f"errkb's token was revoked ({why})")
        if state in (LinkState.TOKEN, LinkState.UNREACHABLE):
            raise SlackTokenRefused(self.problem() or state.value)

    def bolt_authorize(self) -> Callable[..., AuthorizeResult]:
        """:meth:`authorize` as Bolt calls it (by the names of its arguments, ``self`` not one)."""

        def authorize(team_id: str | None) -> AuthorizeResult:
            return self.authorize(team_id)

        return authorize

    def authorize(self, team_id: str | None = None) -> AuthorizeResult:
        """Bolt's ``authorize``: the workspace's identity and token, or a refusal (Slack gets
        503)."""
        if not self._checked.is_set():
            self._wake.set()
            self._checked.wait(FIRST_CHECK_SECONDS)
        self.usable()
        with self._lock:
            identity = self._identity
        if identity is None:  # still checking after a while: Slack is slow to answer
            raise SlackTokenRefused("Slack has not answered auth.test yet")
        return AuthorizeResult(
            enterprise_id=None,
            team_id=identity.team_id,
            bot_user_id=identity.bot_user_id,
            bot_id=identity.bot_id,
            bot_token=self.gateway.client.token,
        )

    # -- what changes it ---------------------------------------------------------------

    def check(self) -> LinkState:
        """Ask ``auth.test`` now and note the answer."""
        try:
            found = self.gateway.call("auth.test")
        except SlackUnavailable as exc:
            return self._note(LinkState.UNREACHABLE, str(exc).split(": ", 1)[-1])
        if not found.ok or not found.data or not found.data.get("team_id"):
            return self._note(LinkState.TOKEN, found.error or "no workspace")
        data = found.data
        org = data.get("enterprise_id") if data.get("is_enterprise_install") is True else None
        identity = Identity(
            str(data["team_id"]), data.get("user_id"), data.get("bot_id"), str(org) if org else None
        )
        return self._note(LinkState.OK, "", identity)

    def refused(self, error: str) -> None:
        """A Web API call was refused for the token (``token_revoked``, ``invalid_auth`` …)."""
        if self._note(LinkState.TOKEN, error) is LinkState.TOKEN:
            self._wake.set()

    def revoke(self, why: str) -> None:
        """``app_uninstalled`` or ``tokens_revoked``: the token is dead; nothing is tried again."""
        self._note(LinkState.REVOKED, why)
        self._wake.set()

    def _note(self, state: LinkState, why: str, identity: Identity | None = None) -> LinkState:
        with self._lock:
            before = self._state
            if before is LinkState.REVOKED:
                return before
            self._state = state
            self._why = why
            self._identity = identity or self._identity
            self._failures = 0 if state is LinkState.OK else self._failures + 1
        self._checked.set()
        if state is not before:
            self._say(before, state, why)
            if (
                state is LinkState.OK
                and before is not LinkState.CHECKING
                and self.on_ok is not None
            ):
                self.on_ok()
        return state

    def _say(self, before: LinkState, state: LinkState, why: str) -> None:
        """The one line for a change of state."""
        if state is LinkState.OK:
            again = "" if before is LinkState.CHECKING else " again"
            log.info(
                "Slack accepts the bot token%s (workspace %s)",
                again,
                self.team(),
                extra={"slack": state.value},
            )
        elif state is LinkState.TOKEN:
            log.error(
                "Slack refuses the bot token (%s): set a valid "
                "SLACK_BOT_TOKEN; errkb keeps running and "
                "checks again",
                why,
                extra={"slack": state.value},
            )
        elif state is LinkState.UNREACHABLE:
            log.error(
                "Slack unreachable (%s): errkb keeps running and tries again",
                why,
                extra={"slack": state.value},
            )
        elif state is LinkState.REVOKED:
            log.warning(
                "errkb's bot token was revoked (%s): its "
                "pending work ends; reinstall errkb and set the "
                "new SLACK_BOT_TOKEN",
                why,
                extra={"slack": state.value},
            )

    # -- the checking thread -----------------------------------------------------------

    def backoff(self, failures: int) -> float:
        """Seconds before the next check after ``failures`` failed ones in a row."""
        return float(min(self.max_backoff, self.first_backoff * 2 ** max(0, failures - 1)))

    def start(self) -> None:
        self._thread = threading.Thread(target=self._loop, name="errkb-slack-link", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=15)

    def _loop(self) -> None:
        last = float("-inf")
        while not self._stop.is_set():
            self._wake.clear()
            with self._lock:
                state = self._state
                failures = self._failures
            if state is LinkState.REVOKED:
                return
            if state is LinkState.OK:
                self._wake.wait()  # until a call is refused for the token
                continue
            due = last + (self.backoff(failures) if state is not LinkState.CHECKING else 0.0)
            if time.monotonic() < due:
                self._wake.wait(due - time.monotonic())
                if time.monotonic() < due:
                    continue  # woken early (stopping, or the first check wanted): the backoff holds
            last = time.monotonic()
            self.check()


class _Reported(logging.Filter):
    """slack_sdk's Socket Mode client logs each refused ``apps.connections.open``;
    :func:`connect_socket` says it once instead."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not str(record.msg).startswith("Failed to retrieve WSS URL")


#: The logger to give the Socket Mode client (under slack_sdk's, whose level keeps payloads out).
SOCKET_LOG = logging.getLogger("slack_sdk.socket_mode.errkb")
SOCKET_LOG.addFilter(_Reported())


def connect_socket(
    connect: Callable[[], None],
    *,
    first_backoff: float = 1.0,
    max_backoff: float = 30.0,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Open the Socket Mode connection, trying again with backoff while Slack is away or refuses
    the app token (``apps.connections.open``); one log line per kind of failure, none per try."""
    said = ""
    failures = 0
    while True:
        try:
            connect()
        except (SlackApiError, SlackRequestError, OSError) as exc:
            failures += 1
            code = (
                exc.response.get("error") if isinstance(exc, SlackApiError) else type(exc).__name__
            )
            if code != said:
                said = str(code)
                if isinstance(exc, SlackApiError):
                    log.error(
                        "Slack refuses the app token (%s): set "
                        "a valid SLACK_APP_TOKEN; errkb keeps "
                        "trying",
                        code,
                        extra={"slack": LinkState.TOKEN.value},
                    )
                else:
                    log.error(
                        "Slack unreachable (%s): errkb keeps trying to connect",
                        code,
                        extra={"slack": LinkState.UNREACHABLE.value},
                    )
            sleep(min(max_backoff, first_backoff * 2 ** (failures - 1)))
            continue
        if failures:
            log.info("connected to Slack (Socket Mode)")
        return
