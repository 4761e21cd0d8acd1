"""Installing errkb in a workspace as a person does, through the app's own pages:
``/slack/install`` hands out a state (and its cookie) on the way to Slack's authorize page,
``/slack/oauth_redirect`` comes back with the code the stand-in's ``grants`` know; and
reading back what the installation store kept, decrypted as errkb reads it."""

from __future__ import annotations

import http.client
from urllib.parse import parse_qs, urlparse

from sqlalchemy import Engine, select

from bot.store.oauth import oauth_metadata
from bot.store.secrets import TokenCipher


def get(url: str, path: str, headers: dict[str, str] | None = None) -> http.client.HTTPResponse:
    """A browser's GET of ``path`` on the app at ``url``, redirects not followed."""
    parsed = urlparse(url)
    conn = http.client.HTTPConnection(parsed.hostname or "127.0.0.1", parsed.port, timeout=10)
    conn.request("GET", path, headers=headers or {})
    response = conn.getresponse()
    response.read()
    conn.close()
    return response


def install(url: str, code: str) -> http.client.HTTPResponse:
    """Install the app at ``url`` with the OAuth ``code``: its redirect page's response."""
    started = get(url, "/slack/install")
    state = parse_qs(urlparse(started.headers["Location"]).query)["state"][0]
    cookie = started.headers["Set-Cookie"].split(";")[0]
    return get(url, f"/slack/oauth_redirect?code={code}&state={state}", {"Cookie": cookie})


def installed_tokens(engine: Engine, secret_key: str) -> list[tuple[str, str]]:
    """(team, bot token) of every installation row, then of every bot row."""
    tables = oauth_metadata().tables
    installations = tables["slack_installations"]
    bots = tables["slack_bots"]
    with engine.connect() as conn:
        rows = [
            *conn.execute(select(installations.c.team_id, installations.c.bot_token)),
            *conn.execute(select(bots.c.team_id, bots.c.bot_token)),
        ]
    cipher = TokenCipher(secret_key)  # tokens are kept encrypted: read them as errkb does
    return [(team, cipher.decrypt(token)) for team, token in rows]
