"""The request scope: ids of the Slack request being handled and the bot token to answer it with.

The HTTP server binds a fresh request id for each request; the middleware,
once Bolt has verified and authorised the request, adds the team, the event
id and the workspace's bot token. :class:`ContextExecutor` runs the lazy
work a request submits inside a copy of that context, so its log lines carry
the same request id and its Web API calls use the same workspace's token.
"""

from __future__ import annotations

import contextvars
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, Future
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

T = TypeVar("T")

#: Header the HTTP server puts on each request for Bolt (never sent by Slack).
REQUEST_ID_HEADER = "x-errkb-request-id"


@dataclass(frozen=True)
class Scope:
    request_id: str | None = None
    team_id: str | None = None
    event_id: str | None = None
    bot_token: str | None = field(default=None, repr=False)
    #: An org-wide (Enterprise Grid) install's enterprise: its jobs are authorised by it, not the
    #: workspace.
    enterprise_id: str | None = None

    def log_fields(self) -> dict[str, str]:
        """The ids worth a log field (never the token)."""
        found = {"request_id": self.request_id, "team_id": self.team_id, "event_id": self.event_id}
        return {k: v for k, v in found.items() if v}


NO_REQUEST = Scope()
_SCOPE: contextvars.ContextVar[Scope] = contextvars.ContextVar("errkb_scope", default=NO_REQUEST)


def current() -> Scope:
    return _SCOPE.get()


def new_request_id() -> str:
    return uuid.uuid4().hex[:16]


def bind(**changes: Any) -> Scope:
    """Change the current scope for the rest of this context (a request's thread or its work)."""
    scope = replace(current(), **changes)
    _SCOPE.set(scope)
    return scope


@contextmanager
def bound(**changes: Any) -> Iterator[Scope]:
    """Change the current scope until the block ends."""
    token = _SCOPE.set(replace(current(), **changes))
    try:
        yield _SCOPE.get()
    finally:
        _SCOPE.reset(token)


class ContextExecutor(Executor):
    """Runs each submitted call in a copy of the submitter's context (ids, token)."""

    def __init__(self, inner: Executor) -> None:
        self.inner = inner

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        context = contextvars.copy_context()
        return self.inner.submit(context.run, fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self.inner.shutdown(wait=wait, cancel_futures=cancel_futures)
