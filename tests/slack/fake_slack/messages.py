"""Messages and conversations: ``chat.*`` (posts keep their metadata), ``reactions.add``
(errkb's reactions per message), and ``conversations.*``, whose ``replies`` pages a thread as
Slack does (the root, then replies oldest first; ``limit``, ``oldest``/``latest``/
``inclusive``, ``cursor``)."""

from __future__ import annotations

import base64
import time
from typing import TYPE_CHECKING, Any

from tests.slack.fake_slack.catalog import REPLIES_PAGE
from tests.slack.fake_slack.values import Grant, Reply

if TYPE_CHECKING:
    from tests.slack.fake_slack.state import FakeSlack


def post_message(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    """``chat.postMessage`` and ``chat.update``: the message kept (an update keeps what it
    does not say: its thread, its metadata)."""
    ts = params.get("ts") or new_ts(fake, channel, params.get("thread_ts"))
    with fake.lock:
        known = fake.messages.get((channel, str(ts))) or {}
        fake.messages[(channel, str(ts))] = {
            **known,
            "type": "message",
            "ts": ts,
            "text": params.get("text"),
            "blocks": params.get("blocks"),
            "bot_id": "BBOT",
            "thread_ts": params.get("thread_ts") or known.get("thread_ts"),
            "metadata": params.get("metadata") or known.get("metadata"),
        }
    body = {"ok": True, "channel": channel, "ts": ts, "message": {"text": params.get("text")}}
    return 200, body, {}


def post_ephemeral(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    return 200, {"ok": True, "message_ts": new_ts(fake)}, {}


def permalink(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    link = f"https://test.slack.com/archives/{channel}/p{params.get('message_ts')}"
    return 200, {"ok": True, "permalink": link}, {}


def react(fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None) -> Reply:
    """``reactions.add`` as Slack answers it: a name without colons, on a message that exists,
    once."""
    name = str(params.get("name") or "")
    ts = str(params.get("timestamp") or "")
    if not channel or not ts:
        return 200, {"ok": False, "error": "no_item_specified"}, {}
    if not name or ":" in name or " " in name:
        return 200, {"ok": False, "error": "invalid_name"}, {}
    with fake.lock:
        if (channel, ts) not in fake.messages:
            return 200, {"ok": False, "error": "message_not_found"}, {}
        given = fake.reactions.setdefault((channel, ts), [])
        if name in given:
            return 200, {"ok": False, "error": "already_reacted"}, {}
        given.append(name)
    return 200, {"ok": True}, {}


def history(fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None) -> Reply:
    """``conversations.history`` as errkb reads it: the one message at ``latest``."""
    with fake.lock:
        found = fake.messages.get((channel, str(params.get("latest"))))
    return 200, {"ok": True, "messages": [found] if found else [], "has_more": False}, {}


def replies(fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None) -> Reply:
    """``conversations.replies`` paged as Slack pages it: the root, then its replies oldest
    first, those after ``oldest`` and before ``latest`` (either end kept with
    ``inclusive``), at most ``limit`` a page and never more than :data:`REPLIES_PAGE`
    (Slack may give fewer than asked), ``has_more`` with
    ``response_metadata.next_cursor`` while any are left; the root only on the
    first page."""
    try:
        limit = min(int(params.get("limit") or REPLIES_PAGE), REPLIES_PAGE)
        oldest = float(params["oldest"]) if params.get("oldest") else None
        latest = float(params["latest"]) if params.get("latest") else None
    except (TypeError, ValueError):
        return 200, {"ok": False, "error": "invalid_arguments"}, {}
    if limit < 1:
        return 200, {"ok": False, "error": "invalid_limit"}, {}
    thread_ts = str(params.get("ts") or "")
    messages = fake.thread(channel, thread_ts)
    # a root the test never added (a paste sent as an event only) is left out
    root = [m for m in messages if m["ts"] == thread_ts]
    inclusive = flag(params.get("inclusive"))
    later = [
        m
        for m in messages
        if m["ts"] != thread_ts and within(float(m["ts"]), oldest, latest, inclusive)
    ]
    cursor = params.get("cursor")
    if cursor:
        start = cursor_ts(str(cursor))
        if start is None:
            return 200, {"ok": False, "error": "invalid_cursor"}, {}
        page_of = [m for m in later if float(m["ts"]) >= start]
    else:
        page_of = [*root, *later]
    page = page_of[:limit]
    rest = page_of[limit:]
    if not flag(params.get("include_all_metadata")):
        page = [{k: v for k, v in m.items() if k != "metadata"} for m in page]
    more = {"next_cursor": make_cursor(rest[0]["ts"]) if rest else ""}
    body = {"ok": True, "messages": page, "has_more": bool(rest), "response_metadata": more}
    return 200, body, {}


def open_conversation(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    """``conversations.open``: a direct message's id made from the user's."""
    found = {"id": "D" + str(params.get("users", "")).lstrip("U")}
    return 200, {"ok": True, "channel": found}, {}


def conversation_info(
    fake: FakeSlack, params: dict[str, Any], channel: str, granted: Grant | None
) -> Reply:
    info = {
        "id": channel,
        "name": "errors",
        "is_member": True,
        "creator": fake.creators.get(channel, "UFOUNDER"),
    }
    return 200, {"ok": True, "channel": info}, {}


METHODS = {
    "chat.postMessage": post_message,
    "chat.update": post_message,
    "chat.postEphemeral": post_ephemeral,
    "chat.getPermalink": permalink,
    "reactions.add": react,
    "conversations.history": history,
    "conversations.replies": replies,
    "conversations.open": open_conversation,
    "conversations.info": conversation_info,
}


def new_ts(fake: FakeSlack, channel: str = "", thread_ts: str | None = None) -> str:
    """A new message's ts, as Slack gives them: the time it was posted, unique, and after
    every message of its thread (tests name pastes with made-up times, some ahead of now)."""
    with fake.lock:
        floor = [
            micros(ts)
            for (c, ts), m in fake.messages.items()
            if thread_ts and c == channel and (ts == thread_ts or m.get("thread_ts") == thread_ts)
        ]
        issued = max(
            int(time.time() * 1_000_000),
            fake.last_ts + 1,
            *(f + 1 for f in floor),
            micros(thread_ts) + 1 if thread_ts else 0,
        )
        fake.last_ts = issued
    return f"{issued // 1_000_000}.{issued % 1_000_000:06d}"


def micros(ts: str) -> int:
    """A message ts in microseconds."""
    whole, _, part = ts.partition(".")
    return int(whole) * 1_000_000 + int((part + "000000")[:6])


def flag(value: Any) -> bool:
    """A boolean argument as Slack reads it from a form or JSON body."""
    return value is True or str(value).lower() in ("1", "true")


def within(ts: float, oldest: float | None, latest: float | None, inclusive: bool) -> bool:
    """Whether ``ts`` lies between ``oldest`` and ``latest`` (either end kept with
    ``inclusive``)."""
    if oldest is not None and (ts < oldest or (ts == oldest and not inclusive)):
        return False
    return latest is None or ts < latest or (ts == latest and inclusive)


def make_cursor(ts: str) -> str:
    """An opaque cursor naming the next message (Slack's are ``next_ts:<ts>`` in base64)."""
    return base64.b64encode(f"next_ts:{ts.replace('.', '')}".encode()).decode()


def cursor_ts(cursor: str) -> float | None:
    """The ts a cursor names; None for a cursor the stand-in did not give."""
    try:
        text = base64.b64decode(cursor, validate=True).decode()
    except (ValueError, UnicodeDecodeError):
        return None
    digits = text.removeprefix("next_ts:")
    if not text.startswith("next_ts:") or not digits.isdigit() or len(digits) <= 6:
        return None
    return float(f"{digits[:-6]}.{digits[-6:]}")
