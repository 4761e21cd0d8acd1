"""Messages other apps post (monitoring alerts): their readable text, who posted them, and
whether errkb wrote them itself. Pure.

Monitoring tools put the error in different places of a Slack message: the
plain ``text``, Block Kit ``blocks`` (section text and fields, ``rich_text``
with its preformatted runs, context elements, headers) or the legacy
``attachments`` (pretext, title, text, fields, and a fallback that repeats
them for clients that show none of it). :func:`alert_text` reads all of them,
in the order a reader sees them, each line once, so the matcher gets the same
paste whichever layout the monitor chose.

:func:`is_errkb_message` is what keeps two errkb installs from answering each
other: a message is errkb's when it carries errkb's bot or app id, errkb's
message-metadata event type, or errkb's block and action ids.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

#: Block and action ids errkb gives its own messages all start with this (``bot.render.ids``).
ERRKB_ID_PREFIX = "errkb."
#: A label and its value on one line, as alert templates write annotations and fields:
#: ``- summary = …``, ``• *pod:* …``, ``*Details:* …`` (a bold label, or a name and ``=``).
_LABELLED = re.compile(r"^\s*(?:[-•]\s+)?(?:\*[^*\n]{1,40}\*:?|\*?[\w .-]{1,40}\s=)\s+(\S.*)$")
#: A labelled value shorter than this is a tag (``critical``, ``vllm-0``), not a message.
LABELLED_CHARS = 24
_LINK = re.compile(r"<([^<>|\s]+)\|([^<>]+)>")
_BARE_LINK = re.compile(r"<((?:https?|mailto):[^<>|\s]+)>")
_LEAD = re.compile(r"^\s*(?:(?::[a-z0-9_+-]+:|\[[^\]\n]{1,60}\])\s*)+")
_BOLD = re.compile(r"(?<![\w*])\*(\S(?:[^*\n]*\S)?)\*(?![\w*])")
#: How deep rich_text nesting is followed (lists in quotes in lists …); deeper is not text people
#: read.
MAX_DEPTH = 8


def _text_of(value: Any) -> str:
    """A Block Kit text object (``{"type": "mrkdwn", "text": …}``) or a plain string."""
    if isinstance(value, Mapping):
        value = value.get("text")
    return value if isinstance(value, str) else ""


def _rich_text(elements: Any, depth: int = 0) -> Iterator[str]:
    """The text of rich_text elements: each section, list item, quote or preformatted run its own
    part."""
    if depth > MAX_DEPTH or not isinstance(elements, list):
        return
    for element in elements:
        if not isinstance(element, Mapping):
            continue
        kind = element.get("type")
        if kind in ("rich_text_section", "rich_text_preformatted", "rich_text_quote"):
            yield "".join(_inline(element.get("elements"))).strip("\n")
        elif kind == "rich_text_list":
            yield from _rich_text(element.get("elements"), depth + 1)
        elif kind in ("text", "link"):
            yield "".join(_inline([element]))


def _inline(elements: Any) -> Iterator[str]:
    for element in elements if isinstance(elements, list) else []:
        if not isinstance(element, Mapping):
            continue
        if element.get("type") == "text":
            yield str(element.get("text") or "")
        elif element.get("type") == "link":
            yield str(element.get("text") or element.get("url") or "")


def _blocks(blocks: Any) -> Iterator[str]:
    for block in blocks if isinstance(blocks, list) else []:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind in ("section", "header"):
            yield _text_of(block.get("text"))
            for field in block.get("fields") or []:
                yield _text_of(field)
        elif kind == "rich_text":
            yield from _rich_text(block.get("elements"))
        elif kind == "context":
            for element in block.get("elements") or []:
                if isinstance(element, Mapping) and element.get("type") in ("mrkdwn", "plain_text"):
                    yield _text_of(element)


def _attachment(attachment: Mapping[str, Any]) -> Iterator[str]:
    shown = [_text_of(attachment.get(key)) for key in ("pretext", "author_name", "title", "text")]
    for field in attachment.get("fields") or []:
        if isinstance(field, Mapping):
            shown.append(
                " ".join(
                    p for p in (_text_of(field.get("title")), _text_of(field.get("value"))) if p
                )
            )
    shown.extend(_blocks(attachment.get("blocks")))
    shown = [s for s in shown if s.strip()]
    yield from shown
    if not shown:  # the fallback repeats the rest; it is read only when there is nothing else
        yield _text_of(attachment.get("fallback"))


def _plain(line: str) -> str:
    """A line of Slack markup as it reads: links by their label, no leading emoji or ``[tag]``
    (``:red_circle: [llm-serving] ValueError: …``), no bold around words."""
    line = _BARE_LINK.sub(r"\1", _LINK.sub(r"\2", line))
    return _BOLD.sub(r"\1", _LEAD.sub("", line))


def _lines(part: str) -> Iterator[str]:
    """A part's lines as they read; a labelled one (``- summary = …``, ``*Details:* …``) is
    followed by its value alone, so an error a monitor put after a label starts a line as in
    a log."""
    for line in part.splitlines():
        yield _plain(line)
        labelled = _LABELLED.match(line)
        if labelled and len(labelled.group(1)) >= LABELLED_CHARS:
            yield _plain(labelled.group(1))


def _once(parts: Iterable[str]) -> list[str]:
    """Each line once, in order: monitors repeat their title in text, blocks and fallback."""
    seen: set[str] = set()
    lines = []
    for part in parts:
        for line in _lines(part):
            key = line.strip()
            if key and key in seen:
                continue
            seen.add(key)
            lines.append(line)
    return lines


def alert_text(message: Mapping[str, Any]) -> str:
    """Everything readable in a Slack message, as one paste."""
    parts: list[str] = [_text_of(message.get("text"))]
    parts.extend(_blocks(message.get("blocks")))
    for attachment in message.get("attachments") or []:
        if isinstance(attachment, Mapping):
            parts.extend(_attachment(attachment))
    return "\n".join(_once(parts)).strip()


def source_app(message: Mapping[str, Any]) -> str:
    """The name of the app that posted ``message``, as Slack shows it."""
    profile = message.get("bot_profile")
    name = profile.get("name") if isinstance(profile, Mapping) else None
    return str(name or message.get("username") or message.get("bot_id") or "?")[:100]


def _ids(blocks: Any) -> Iterator[str]:
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, Mapping):
            yield str(block.get("block_id") or "")
            for element in block.get("elements") or []:
                if isinstance(element, Mapping):
                    yield str(element.get("action_id") or "")


def is_errkb_message(
    message: Mapping[str, Any],
    *,
    bot_ids: Iterable[str | None],
    app_ids: Iterable[str | None],
    marker_events: Iterable[str],
) -> bool:
    """Did errkb (this install or another) post ``message``?"""
    found = message.get("bot_profile")
    profile: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    bots = {b for b in bot_ids if b}
    apps = {a for a in app_ids if a}
    if (
        message.get("bot_id") in bots
        or message.get("app_id") in apps
        or profile.get("app_id") in apps
    ):
        return True
    metadata = message.get("metadata")
    if isinstance(metadata, Mapping) and metadata.get("event_type") in set(marker_events):
        return True
    return any(i.startswith(ERRKB_ID_PREFIX) for i in _ids(message.get("blocks")))


def is_from_app(message: Mapping[str, Any]) -> bool:
    """Posted by an app or a bot (an integration, a webhook), not typed by a person."""
    return bool(
        message.get("bot_id")
        or message.get("bot_profile")
        or message.get("subtype") == "bot_message"
    )


__all__ = ["alert_text", "is_errkb_message", "is_from_app", "source_app"]
