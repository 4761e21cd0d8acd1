"""Text from people, made safe for Slack's mrkdwn. Pure.

Slack reads ``<...>`` in a message's ``text`` and in every ``mrkdwn`` field as
a control sequence: a mention (``<@U123>``), a broadcast (``<!channel>``) or a
link (``<https://evil|click>``). Its documented escaping is exactly three
characters: ``&`` → ``&amp;``, ``<`` → ``&lt;``, ``>`` → ``&gt;`` (and nothing
else, since only those are decoded again). Every piece of text a person
supplied — a paste, search words, a record's fields (records can be added
from Slack), a reason, an error line — goes through :func:`escape_mrkdwn`
before it is put into a ``text`` or ``mrkdwn`` field; ``plain_text`` fields
need nothing. Formatting characters (``*``, ``_``, ``~``, `````) have no
escape in mrkdwn; they can only style text, never ping or link.
"""

from __future__ import annotations

import re

_USER_ID = re.compile(r"^[UW][A-Z0-9]{2,30}$")
_CHANNEL_ID = re.compile(r"^[CG][A-Z0-9]{2,30}$")


def escape_mrkdwn(text: str) -> str:
    """``text`` with ``&``, ``<`` and ``>`` escaped as Slack documents."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def mention(user_id: str) -> str:
    """A mention of a Slack user id (``<@U123>``); anything that is not an id, as escaped text."""
    return f"<@{user_id}>" if _USER_ID.match(user_id) else escape_mrkdwn(user_id)


def channel_link(channel_id: str) -> str:
    """A link to a channel by id (``<#C123>``); anything that is not a channel id, as escaped
    text."""
    return f"<#{channel_id}>" if _CHANNEL_ID.match(channel_id) else escape_mrkdwn(channel_id)


def escape_params(params: dict[str, object]) -> dict[str, object]:
    """Catalog parameters with every text escaped (numbers and dates stay as they are)."""
    return {k: escape_mrkdwn(v) if isinstance(v, str) else v for k, v in params.items()}


__all__ = ["channel_link", "escape_mrkdwn", "escape_params", "mention"]
