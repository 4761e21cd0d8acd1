"""What the stand-in knows of Slack before any call: the methods and their scopes
(``slack_methods.yaml``), the scopes errkb is installed with (``manifest.yaml``), and the
constants a test compares with."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import yaml

#: The bot user every answer of ``auth.test`` and ``oauth.v2.access`` names.
BOT_USER = "UBOT"
#: ``tests/slack``, where ``slack_methods.yaml`` lives.
SLACK_TESTS = Path(__file__).resolve().parents[1]
ROOT = SLACK_TESTS.parents[1]
#: Errors about the token itself: answered by every method, ``auth.test`` included.
TOKEN_ERRORS = frozenset(
    {"invalid_auth", "token_revoked", "token_expired", "account_inactive", "not_authed"}
)
#: Conversation kinds by the first letter of a conversation id (``kinds`` overrides one).
KIND_BY_PREFIX = {"C": "public", "G": "private", "D": "im"}
#: The most replies one page of ``conversations.replies`` holds, and the page size when
#: ``limit`` is not given (Slack's pagination guide asks for no more than 200).
REPLIES_PAGE = 200


@functools.cache
def methods_table() -> dict[str, Any]:
    """``slack_methods.yaml``: method → its row (doc, scopes or conversation), plus events and
    features."""
    text = (SLACK_TESTS / "slack_methods.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data


@functools.cache
def manifest_scopes() -> tuple[str, ...]:
    """The bot scopes errkb is installed with: ``manifest.yaml``'s, the one source."""
    manifest = yaml.safe_load((ROOT / "manifest.yaml").read_text(encoding="utf-8"))
    return tuple(manifest["oauth_config"]["scopes"]["bot"])


def needed_scopes(method: str, kind: str | None) -> tuple[str, ...]:
    """The scopes any one of which lets a bot token call ``method`` (for a ``kind`` of
    conversation)."""
    row = methods_table()["methods"][method]
    if "conversation" in row:
        by_kind = row["conversation"]
        return (by_kind[kind],) if kind in by_kind else tuple(by_kind.values())
    return tuple(row.get("scopes") or ())
