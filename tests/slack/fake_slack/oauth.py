"""Installing and knowing who you are: ``oauth.v2.access`` (a code, or with token rotation a
refresh token) and ``auth.test``."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from tests.slack.fake_slack.catalog import BOT_USER
from tests.slack.fake_slack.values import Grant, Reply

if TYPE_CHECKING:
    from tests.slack.fake_slack.state import FakeSlack

#: The lifetime Slack gives a rotating bot token, in seconds (12 hours).
TOKEN_LIFETIME = 43200


def exchange(fake: FakeSlack, params: dict[str, Any]) -> Reply:
    """``oauth.v2.access``: a code for its grant's token, or (token rotation) a refresh token
    for a new token and refresh token, the old token then no longer accepted."""
    refreshing = params.get("grant_type") == "refresh_token"
    if refreshing:
        with fake.lock:
            code = fake.rotated.get(str(params.get("refresh_token")))
            grant = fake.grants.get(code) if code else None
            if grant is None or code is None:
                return 200, {"ok": False, "error": "invalid_refresh_token"}, {}
            n = next(fake.serial)
            grant = replace(
                grant,
                token=f"{grant.token.split('~')[0]}~{n}",
                refresh_token=f"{str(grant.refresh_token).split('~')[0]}~{n}",
            )
            fake.retired.add(fake.grants[code].token)
            fake.grants[code] = grant
            del fake.rotated[str(params.get("refresh_token"))]
            fake.rotated[str(grant.refresh_token)] = code
    else:
        code = str(params.get("code"))
        grant = fake.grants.get(code)
        if grant is None:
            return 200, {"ok": False, "error": "invalid_code"}, {}
        with fake.lock:
            fake.retired.discard(grant.token)  # installed again: this token is new
            if grant.refresh_token:
                fake.rotated[grant.refresh_token] = code
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
        lifetime = TOKEN_LIFETIME if refreshing else grant.expires_in or TOKEN_LIFETIME
        body.update(refresh_token=grant.refresh_token, expires_in=lifetime)
    return 200, body, {}


def auth_test(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    """``auth.test``: the workspace of a granted token, else the installed one (T1)."""
    if granted is not None:
        body = {
            "ok": True,
            "user_id": BOT_USER,
            "bot_id": "BBOT2",
            "team_id": granted.team_id,
            "user": "errkb",
            "team": granted.team_name,
            "url": "https://other.slack.com/",
        }
        return 200, body, {}
    body = {
        "ok": True,
        "user_id": BOT_USER,
        "bot_id": "BBOT",
        "team_id": "T1",
        "user": "errkb",
        "team": "Test",
        "url": "https://test.slack.com/",
    }
    return 200, body, {}


METHODS = {"auth.test": auth_test}
