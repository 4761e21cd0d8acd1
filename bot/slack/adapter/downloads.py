"""Snippet downloads that send the bot token to Slack and nowhere else.

A file in a message event names its own URL (``url_private_download``), and
whoever can post an event to errkb chooses it, so the URL is checked before
the token goes with it: only HTTPS to Slack's own domains (``slack.com``,
``slack-gov.com`` and their subdomains, where Slack serves files:
``files.slack.com``) or the origin (scheme, host and port) errkb calls the
Web API at (``SLACK_API_URL``: the stand-in of the tests) may carry it. Any
other URL is not fetched at all. The token rides as an unredirected header,
so a redirect never carries it; a redirect is followed only to an origin that
passes the same check, and anywhere else it ends the download. A download
that ends so, or fails, is reported as not read (None), never as an error.
"""

from __future__ import annotations

import logging
import urllib.error
import urllib.request
from typing import IO, Any
from urllib.parse import urlsplit

from bot.slack.adapter.tls import client_context

log = logging.getLogger(__name__)

#: Slack's own domains: a host that is one of these or under one may see the token.
SLACK_DOMAINS = ("slack.com", "slack-gov.com")
DEFAULT_PORTS = {"http": 80, "https": 443}

Origin = tuple[str, str, int]


def origin_of(url: str) -> Origin | None:
    """(scheme, host, port) of ``url``, None when it has no scheme or host."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if scheme not in DEFAULT_PORTS or not host:
        return None
    return scheme, host, port or DEFAULT_PORTS[scheme]


def may_carry_token(url: str, api_origin: Origin | None) -> bool:
    """Whether ``url`` is Slack's (or the Web API's own origin) and may be sent the bot token."""
    found = origin_of(url)
    if found is None:
        return False
    if found == api_origin:
        return True
    scheme, host, port = found
    slack = any(host == d or host.endswith("." + d) for d in SLACK_DOMAINS)
    return scheme == "https" and port == 443 and slack


class _SlackOnlyRedirects(urllib.request.HTTPRedirectHandler):
    """Follow a redirect only to an origin that may carry the token (urllib drops an
    unredirected header on the way, so the redirected request goes without it)."""

    def __init__(self, api_origin: Origin | None) -> None:
        self.api_origin = api_origin

    def redirect_request(
        self,
        req: urllib.request.Request,
        fp: IO[bytes],
        code: int,
        msg: str,
        headers: Any,
        newurl: str,
    ) -> urllib.request.Request | None:
        if not may_carry_token(newurl, self.api_origin):
            log.info("snippet download redirected off Slack: not followed")
            return None  # urllib then raises HTTPError for the redirect itself
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def download(
    url: str, *, token: str | None, api_origin: Origin | None, max_bytes: int, timeout: float = 10
) -> bytes | None:
    """At most ``max_bytes`` of the file at ``url``, or None when it is not Slack's or
    could not be read."""
    if not may_carry_token(url, api_origin):
        log.info("snippet URL is not Slack's: not fetched")
        return None
    request = urllib.request.Request(url)
    if token:
        request.add_unredirected_header("Authorization", f"Bearer {token}")
    opener = urllib.request.build_opener(
        urllib.request.HTTPSHandler(context=client_context()), _SlackOnlyRedirects(api_origin)
    )
    try:
        with opener.open(request, timeout=timeout) as response:
            data: bytes = response.read(max_bytes)
    except (OSError, ValueError) as exc:  # HTTPError and URLError are OSErrors
        log.info("snippet download failed: %s", type(exc).__name__)
        return None
    return data


__all__ = ["download", "may_carry_token", "origin_of"]
