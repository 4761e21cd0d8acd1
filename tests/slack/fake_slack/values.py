"""The plain values the stand-in keeps: what installing gives, a refusal, a recorded call."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from tests.slack.fake_slack.catalog import manifest_scopes

#: An answer: the HTTP status, the JSON body and the extra response headers.
Reply = tuple[int, dict[str, Any], dict[str, str]]


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
    ``times``: for that many calls, then no more (None: until ``FakeSlack.allow``)."""

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
    """One request as the stand-in received it, with when (``time.monotonic``)."""

    method: str
    params: dict[str, Any]
    headers: dict[str, str]
    at: float
