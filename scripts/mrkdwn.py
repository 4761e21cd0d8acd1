"""Slack's mrkdwn read the way Slack reads it, as HTML for a picture or as the plain text a
reader sees. Pure.

What is read: Slack's three escapes (``&amp;``, ``&lt;``, ``&gt;``, and only
those), ````` ``` ````` preformatted blocks, `` `code` ``, ``*bold*``,
``_italic_``, ``~strike~``, ``<url|label>`` and ``<url>`` links, ``<@U…>``,
``<#C…>``, ``<!here>``-style mentions, ``>`` quotes at the start of a line
(sent escaped as ``&gt;``), ``:emoji:`` names of a short table, and line
breaks. A formatting marker counts only at a word boundary, as in Slack: a
letter, digit or CJK character right outside ``*…*`` leaves the asterisks
as text. Anything else is text, shown as it was sent.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

#: The ``:name:`` emoji errkb's messages may use, and a few common ones.
EMOJI = {
    "warning": "⚠️",
    "grey_question": "❔",
    "question": "❓",
    "white_check_mark": "✅",
    "heavy_check_mark": "✔️",
    "x": "❌",
    "bulb": "💡",
    "mag": "🔍",
    "wrench": "🔧",
    "books": "📚",
    "memo": "📝",
    "link": "🔗",
    "tada": "🎉",
    "+1": "👍",
    "-1": "👎",
    "eyes": "👀",
    "rotating_light": "🚨",
    "hourglass": "⌛",
    "zzz": "💤",
    "wave": "👋",
    "information_source": "ℹ️",
    "arrow_right": "➡️",
    "speech_balloon": "💬",
}


@dataclass(frozen=True)
class Node:
    """One piece of read mrkdwn: ``kind`` is text, br, bold, italic, strike, code, pre, link,
    mention, emoji or quote; ``text`` is what it shows (decoded), ``url`` a link's target."""

    kind: str
    text: str = ""
    children: tuple[Node, ...] = ()
    url: str = ""


_FENCE = re.compile(r"```(.*?)```", re.DOTALL)
_QUOTE = re.compile(r"^(?:&gt;|>) ?")
# A marker opens only after a non-word character (or the start) and closes only before one;
# between them, links and code may hold the marker's character.
_OPEN = r"(?<![\w{m}])"
_CLOSE = r"(?![\w{m}])"
_INLINE = re.compile(
    r"`(?P<code>[^`\n]+)`"
    r"|<(?P<angle>[^<>\n]+)>"
    + "".join(
        rf"|{_OPEN.format(m=re.escape(m))}{re.escape(m)}"
        rf"(?P<{name}>(?=\S)(?:<[^<>\n]*>|`[^`\n]*`|[^{re.escape(m)}\n])+?(?<=\S))"
        rf"{re.escape(m)}{_CLOSE.format(m=re.escape(m))}"
        for m, name in (("*", "bold"), ("_", "italic"), ("~", "strike"))
    )
    + r"|:(?P<emoji>[a-z0-9_+-]+):"
)
_BROADCAST = {"here": "@here", "channel": "@channel", "everyone": "@everyone"}


def unescape(text: str) -> str:
    """Slack's three escapes decoded (``&amp;lt;`` is the text ``&lt;``)."""
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


def _angle(inner: str) -> Node:
    target, _, label = inner.partition("|")
    if target.startswith("@"):
        return Node("mention", "@" + (label or target[1:]))
    if target.startswith("#"):
        return Node("mention", "#" + (label or target[1:]))
    if target.startswith("!"):
        name = target[1:].split("^")[0]
        if name in _BROADCAST:
            return Node("mention", _BROADCAST[name])
        return Node("text", unescape(label or target))  # <!date^…|fallback>, <!subteam^…|@team>
    return Node("link", unescape(label or target), url=unescape(target))


def parse_inline(text: str) -> list[Node]:
    """One line (or a run of lines) of mrkdwn without fences or quotes."""
    out: list[Node] = []
    at = 0
    for found in _INLINE.finditer(text):
        if found.start() > at:
            out.extend(_plain(text[at : found.start()]))
        kind = found.lastgroup or ""
        inner = found.group(kind)
        if kind == "code":
            out.append(Node("code", unescape(inner)))
        elif kind == "angle":
            out.append(_angle(inner))
        elif kind == "emoji":
            out.append(
                Node("emoji", EMOJI[inner]) if inner in EMOJI else Node("text", f":{inner}:")
            )
        else:
            out.append(Node(kind, children=tuple(parse_inline(inner))))
        at = found.end()
    if at < len(text):
        out.extend(_plain(text[at:]))
    return out


def _plain(text: str) -> list[Node]:
    out: list[Node] = []
    for n, line in enumerate(text.split("\n")):
        if n:
            out.append(Node("br"))
        if line:
            out.append(Node("text", unescape(line)))
    return out


def _lines(text: str) -> list[Node]:
    """Text between fences: quotes at line starts, the rest inline."""
    out: list[Node] = []
    quoted: list[str] = []
    plain: list[str] = []

    def flush_plain() -> None:
        if plain:
            out.extend(parse_inline("\n".join(plain)))
            plain.clear()

    def flush_quote() -> None:
        if quoted:
            out.append(Node("quote", children=tuple(parse_inline("\n".join(quoted)))))
            quoted.clear()

    for line in text.split("\n"):
        mark = _QUOTE.match(line)
        if mark:
            flush_plain()
            quoted.append(line[mark.end() :])
        else:
            flush_quote()
            plain.append(line)
    flush_plain()
    flush_quote()
    return _tidy(out)


def _tidy(nodes: list[Node]) -> list[Node]:
    """No line break right before or after a quote or preformatted block (they are blocks)."""
    out: list[Node] = []
    for node in nodes:
        if node.kind == "br" and out and out[-1].kind in ("quote", "pre"):
            continue
        if node.kind in ("quote", "pre") and out and out[-1].kind == "br":
            out.pop()
        out.append(node)
    return out


def parse(text: str) -> list[Node]:
    """A whole mrkdwn text."""
    out: list[Node] = []
    at = 0
    for fence in _FENCE.finditer(text):
        out.extend(_lines(text[at : fence.start()]) if fence.start() > at else [])
        body = fence.group(1).removeprefix("\n").removesuffix("\n")
        out.append(Node("pre", unescape(body)))
        at = fence.end()
    if at < len(text):
        out.extend(_lines(text[at:]))
    return _tidy(out)


_TAGS = {"bold": "b", "italic": "i", "strike": "s"}
_SCHEMES = ("http://", "https://", "mailto:")


def href(url: str) -> str:
    """An ``href`` attribute for web and mail addresses; other schemes are shown, not linked."""
    return f' href="{html.escape(url)}"' if url.lower().startswith(_SCHEMES) else ""


def to_html(nodes: list[Node] | tuple[Node, ...]) -> str:
    out = []
    for node in nodes:
        if node.kind in ("text", "emoji"):
            out.append(html.escape(node.text, quote=False))
        elif node.kind == "br":
            out.append("<br>")
        elif node.kind in _TAGS:
            tag = _TAGS[node.kind]
            out.append(f"<{tag}>{to_html(node.children)}</{tag}>")
        elif node.kind == "code":
            out.append(f"<code>{html.escape(node.text, quote=False)}</code>")
        elif node.kind == "pre":
            out.append(f"<pre>{html.escape(node.text, quote=False)}</pre>")
        elif node.kind == "link":
            out.append(f"<a{href(node.url)}>{html.escape(node.text, quote=False)}</a>")
        elif node.kind == "mention":
            out.append(f'<span class="mention">{html.escape(node.text, quote=False)}</span>')
        elif node.kind == "quote":
            out.append(f"<blockquote>{to_html(node.children)}</blockquote>")
    return "".join(out)


def to_text(nodes: list[Node] | tuple[Node, ...]) -> str:
    """What a reader sees, as text: link labels, not addresses; blocks on lines of their own."""
    out = []
    for node in nodes:
        if node.kind == "br":
            out.append("\n")
        elif node.children or node.kind == "quote":
            inner = to_text(node.children)
            out.append(f"\n{inner}\n" if node.kind == "quote" else inner)
        elif node.kind == "pre":
            out.append(f"\n{node.text}\n")
        else:
            out.append(node.text)
    return "".join(out)


def mrkdwn_html(text: str) -> str:
    return to_html(parse(text))


def mrkdwn_text(text: str) -> str:
    return to_text(parse(text)).strip("\n")


__all__ = [
    "EMOJI",
    "Node",
    "href",
    "mrkdwn_html",
    "mrkdwn_text",
    "parse",
    "parse_inline",
    "to_html",
    "to_text",
    "unescape",
]
