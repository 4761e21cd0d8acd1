"""A loopback stand-in for the Slack Web API that records every call and answers like Slack.

Strict as Slack: every method needs a token Slack knows and the bot scopes
``slack_methods.yaml`` lists for it (the token's scopes are ``manifest.yaml``'s, or a
grant's own); a method with no row answers ``unknown_method``. A test starts one with
``FakeSlack(...).start()``, points errkb's ``SLACK_API_URL`` at ``api_url``, and reads
``calls`` (or ``of`` / ``wait_for``) afterwards.

Where each part lives:

- ``state``: :class:`FakeSlack`, what it remembers and the controls a test sets —
  ``fail_next`` (an HTTP status or a Slack error for the next calls of a method),
  ``hold``/``release``, ``refuse``/``allow`` (a Slack error for one token, channel, method
  or the next N calls), ``outage``/``restore``, ``slow_next`` (a call that took effect but
  is answered late), ``rate_limit``, ``broken`` methods, ``add_message`` for people's
  messages, ``grants`` (the OAuth codes ``oauth.v2.access`` exchanges).
- ``gate``: what every call passes before its method answers (outage, limits, queued
  failures, the token, the scopes), and the table of methods by family.
- the families: ``oauth`` (``oauth.v2.access`` with token rotation, ``auth.test``),
  ``messages`` (``chat.*``, ``reactions.add``, ``conversations.*`` with Slack's paging),
  ``people`` (``users.info``, ``usergroups.users.list``), ``files`` (``files_upload_v2``'s
  two calls), ``surfaces`` (modals, custom steps, assistant threads).
- ``server``: the HTTP side (``/api/<method>``, uploads, ``response_url`` posts, snippet
  downloads).
- ``catalog``: ``slack_methods.yaml``, the manifest's scopes and the constants tests use.
"""

from __future__ import annotations

from tests.slack.fake_slack.catalog import (
    BOT_USER,
    REPLIES_PAGE,
    TOKEN_ERRORS,
    manifest_scopes,
    methods_table,
    needed_scopes,
)
from tests.slack.fake_slack.state import FakeSlack
from tests.slack.fake_slack.surfaces import SURFACE_METHODS
from tests.slack.fake_slack.values import Call, Grant, Refusal, Reply

__all__ = [
    "BOT_USER",
    "REPLIES_PAGE",
    "SURFACE_METHODS",
    "TOKEN_ERRORS",
    "Call",
    "FakeSlack",
    "Grant",
    "Refusal",
    "Reply",
    "manifest_scopes",
    "methods_table",
    "needed_scopes",
]
