"""Block Kit as HTML that looks like Slack, and as the text a reader sees. Pure.

One table per kind of thing (:data:`BLOCKS`, :data:`ELEMENTS`,
:data:`RICH_BLOCKS`, :data:`RICH_ELEMENTS`): each entry gives the HTML and the
visible text of that type, so a picture and a character count read a payload
the same way. A type missing from the tables is an :class:`UnknownBlock`
error, never skipped: a picture shows the whole payload or fails.

Every string from the payload is HTML-escaped here; mrkdwn is read by
:mod:`scripts.mrkdwn`. Pages (:func:`message_page`, :func:`view_page`) wrap
the blocks in a Slack-like frame styled by ``blockkit.css``.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scripts.mrkdwn import EMOJI, href, mrkdwn_html, mrkdwn_text

Json = Mapping[str, Any]
CSS = Path(__file__).with_name("blockkit.css")


class UnknownBlock(ValueError):
    """A block, element or rich text part this renderer does not know."""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


# -- text objects -------------------------------------------------------------------


def text_html(obj: Json | None) -> str:
    """A ``mrkdwn`` or ``plain_text`` object as HTML."""
    if not obj:
        return ""
    kind = obj.get("type")
    if kind == "mrkdwn":
        return mrkdwn_html(str(obj.get("text", "")))
    if kind == "plain_text":
        return _e(_emoji(str(obj.get("text", "")), obj.get("emoji", True))).replace("\n", "<br>")
    raise UnknownBlock(f"text object of type {kind!r}")


def text_plain(obj: Json | None) -> str:
    if not obj:
        return ""
    kind = obj.get("type")
    if kind == "mrkdwn":
        return mrkdwn_text(str(obj.get("text", "")))
    if kind == "plain_text":
        return _emoji(str(obj.get("text", "")), obj.get("emoji", True))
    raise UnknownBlock(f"text object of type {kind!r}")


def _emoji(text: str, on: object) -> str:
    if not on:
        return text
    for name, char in EMOJI.items():
        text = text.replace(f":{name}:", char)
    return text


# -- interactive elements ----------------------------------------------------------


@dataclass(frozen=True)
class Kind:
    """How one type is drawn (``html``) and what of it a reader sees (``text``)."""

    html: Callable[[Json], str]
    text: Callable[[Json], str]


def kind_of(table: Mapping[str, Kind], node: Json, what: str) -> Kind:
    """``node``'s entry in ``table``, or :class:`UnknownBlock` naming what it is."""
    kind = table.get(str(node.get("type")))
    if kind is None:
        raise UnknownBlock(f"{what} of type {node.get('type')!r}")
    return kind


def _button(el: Json) -> str:
    style = {"primary": " primary", "danger": " danger"}.get(str(el.get("style")), "")
    label = _e(el.get("accessibility_label", "")) if el.get("accessibility_label") else ""
    aria = f' aria-label="{label}"' if label else ""
    return f'<span class="button{style}"{aria}>{text_html(el.get("text"))}</span>'


def _select_label(el: Json) -> str:
    initial = el.get("initial_option") or {}
    chosen = initial.get("text") or el.get("placeholder")
    return text_plain(chosen) if chosen else ""


def _select(el: Json) -> str:
    return f'<span class="select">{_e(_select_label(el))}<span class="caret">▾</span></span>'


def _input_value(el: Json) -> str:
    return str(el.get("initial_value") or el.get("initial_date") or el.get("initial_time") or "")


def _text_input(el: Json) -> str:
    value = _input_value(el)
    shown = (
        _e(value)
        if value
        else f'<span class="placeholder">{text_html(el.get("placeholder"))}</span>'
    )
    kind = "textarea" if el.get("multiline") else "line"
    return f'<div class="text-input {kind}">{shown}</div>'


def _options(el: Json, mark: str) -> str:
    chosen = {o.get("value") for o in el.get("initial_options", []) or []}
    if el.get("initial_option"):
        chosen.add(el["initial_option"].get("value"))
    rows = (
        f'<div class="option"><span class="mark">{mark if o.get("value") in chosen else "○"}</span>'
        f"{text_html(o.get('text'))}</div>"
        for o in el.get("options", [])
    )
    return f'<div class="options">{"".join(rows)}</div>'


def _options_text(el: Json) -> str:
    return " ".join(text_plain(o.get("text")) for o in el.get("options", []))


def _image_el(el: Json) -> str:
    return f'<span class="image-el" title="{_e(el.get("alt_text", ""))}"></span>'


_SELECTS = (
    "static_select",
    "external_select",
    "users_select",
    "conversations_select",
    "channels_select",
    "multi_static_select",
    "multi_external_select",
    "multi_users_select",
    "multi_conversations_select",
    "multi_channels_select",
)
_INPUTS = (
    "plain_text_input",
    "email_text_input",
    "url_text_input",
    "number_input",
    "datepicker",
    "timepicker",
    "datetimepicker",
)

ELEMENTS: dict[str, Kind] = {
    "button": Kind(_button, lambda el: text_plain(el.get("text"))),
    "overflow": Kind(
        lambda el: '<span class="button overflow" aria-label="more">⋮</span>', lambda el: ""
    ),
    **{name: Kind(_select, _select_label) for name in _SELECTS},
    **{name: Kind(_text_input, _input_value) for name in _INPUTS},
    "checkboxes": Kind(lambda el: _options(el, "☑"), _options_text),
    "radio_buttons": Kind(lambda el: _options(el, "◉"), _options_text),
    "image": Kind(_image_el, lambda el: ""),
}


def element_html(el: Json) -> str:
    return kind_of(ELEMENTS, el, "element").html(el)


def element_text(el: Json) -> str:
    return kind_of(ELEMENTS, el, "element").text(el)


# -- rich text ------------------------------------------------------------------------


def _styled(html_text: str, style: Json | None) -> str:
    style = style or {}
    for key, tag in (("code", "code"), ("strike", "s"), ("italic", "i"), ("bold", "b")):
        if style.get(key):
            html_text = f"<{tag}>{html_text}</{tag}>"
    return html_text


def _rich_text_part(el: Json) -> str:
    return _e(el.get("text", "")).replace("\n", "<br>")


def _rich_link(el: Json) -> str:
    return f"<a{href(str(el.get('url', '')))}>{_e(el.get('text') or el.get('url', ''))}</a>"


def _rich_emoji(el: Json) -> str:
    name = str(el.get("name", ""))
    if el.get("unicode"):
        return "".join(chr(int(part, 16)) for part in str(el["unicode"]).split("-"))
    return EMOJI.get(name, f":{name}:")


def _rich_mention(prefix: str, key: str) -> Callable[[Json], str]:
    return lambda el: f"{prefix}{el.get(key, '')}"


RICH_ELEMENTS: dict[str, Kind] = {
    "text": Kind(lambda el: _rich_text_part(el), lambda el: str(el.get("text", ""))),
    "link": Kind(_rich_link, lambda el: str(el.get("text") or el.get("url", ""))),
    "emoji": Kind(lambda el: _e(_rich_emoji(el)), _rich_emoji),
    "user": Kind(
        lambda el: f'<span class="mention">@{_e(el.get("user_id", ""))}</span>',
        _rich_mention("@", "user_id"),
    ),
    "usergroup": Kind(
        lambda el: f'<span class="mention">@{_e(el.get("usergroup_id", ""))}</span>',
        _rich_mention("@", "usergroup_id"),
    ),
    "channel": Kind(
        lambda el: f'<span class="mention">#{_e(el.get("channel_id", ""))}</span>',
        _rich_mention("#", "channel_id"),
    ),
    "broadcast": Kind(
        lambda el: f'<span class="mention">@{_e(el.get("range", ""))}</span>',
        _rich_mention("@", "range"),
    ),
    "date": Kind(lambda el: _e(el.get("fallback", "")), lambda el: str(el.get("fallback", ""))),
    "color": Kind(lambda el: _e(el.get("value", "")), lambda el: str(el.get("value", ""))),
}


def _rich_part(el: Json) -> Kind:
    return kind_of(RICH_ELEMENTS, el, "rich text element")


def _inline_html(elements: Iterable[Json]) -> str:
    return "".join(_styled(_rich_part(el).html(el), el.get("style")) for el in elements)


def _inline_text(elements: Iterable[Json]) -> str:
    return "".join(_rich_part(el).text(el) for el in elements)


def _rich_list(block: Json) -> str:
    tag = "ol" if block.get("style") == "ordered" else "ul"
    start = f' start="{int(block.get("offset", 0)) + 1}"' if tag == "ol" else ""
    indent = int(block.get("indent", 0))
    items = "".join(f"<li>{_rich_block(item)}</li>" for item in block.get("elements", []))
    return f'<{tag} class="indent-{indent}"{start}>{items}</{tag}>'


RICH_BLOCKS: dict[str, Kind] = {
    "rich_text_section": Kind(
        lambda b: f"<span>{_inline_html(b.get('elements', []))}</span>",
        lambda b: _inline_text(b.get("elements", [])),
    ),
    "rich_text_preformatted": Kind(
        lambda b: f"<pre>{_inline_html(b.get('elements', []))}</pre>",
        lambda b: _inline_text(b.get("elements", [])),
    ),
    "rich_text_quote": Kind(
        lambda b: f"<blockquote>{_inline_html(b.get('elements', []))}</blockquote>",
        lambda b: _inline_text(b.get("elements", [])),
    ),
    "rich_text_list": Kind(
        _rich_list, lambda b: "\n".join(_rich_block_text(i) for i in b.get("elements", []))
    ),
}


def _rich_kind(block: Json) -> Kind:
    return kind_of(RICH_BLOCKS, block, "rich text block")


def _rich_block(block: Json) -> str:
    return _rich_kind(block).html(block)


def _rich_block_text(block: Json) -> str:
    return _rich_kind(block).text(block)


# -- blocks ---------------------------------------------------------------------------


def _section(block: Json) -> str:
    parts = [f'<div class="text">{text_html(block.get("text"))}</div>' if block.get("text") else ""]
    if block.get("fields"):
        fields = "".join(f'<div class="field">{text_html(f)}</div>' for f in block["fields"])
        parts.append(f'<div class="fields">{fields}</div>')
    body = f'<div class="section-body">{"".join(parts)}</div>'
    accessory = block.get("accessory")
    side = f'<div class="accessory">{element_html(accessory)}</div>' if accessory else ""
    return f'<div class="block section">{body}{side}</div>'


def _section_text(block: Json) -> str:
    parts = [text_plain(block.get("text")), *(text_plain(f) for f in block.get("fields", []))]
    if block.get("accessory"):
        parts.append(element_text(block["accessory"]))
    return "\n".join(p for p in parts if p)


def _context(block: Json) -> str:
    parts = []
    for el in block.get("elements", []):
        if el.get("type") == "image":
            parts.append(_image_el(el))
        else:
            parts.append(f"<span>{text_html(el)}</span>")
    return f'<div class="block context">{"".join(parts)}</div>'


def _context_text(block: Json) -> str:
    return "  ".join(
        text_plain(el) for el in block.get("elements", []) if el.get("type") != "image"
    )


def _actions(block: Json) -> str:
    return (
        '<div class="block '
        f'actions">{"".join(element_html(el) for el in block.get("elements", []))}</div>'
    )


def _actions_text(block: Json) -> str:
    return "  ".join(t for t in (element_text(el) for el in block.get("elements", [])) if t)


def _image(block: Json) -> str:
    """An image block: remote images are never fetched; their alt text stands in for them."""
    title = (
        f'<div class="image-title">{text_html(block.get("title"))}</div>'
        if block.get("title")
        else ""
    )
    return (
        f'<div class="block image">{title}<div class="image-box" role="img" '
        f'aria-label="{_e(block.get("alt_text", ""))}">{_e(block.get("alt_text", ""))}</div></div>'
    )


def _input(block: Json) -> str:
    # "(optional)" is Slack's word, in the reader's language: the stylesheet writes it by lang
    optional = ' <span class="optional"></span>' if block.get("optional") else ""
    hint = f'<div class="hint">{text_html(block.get("hint"))}</div>' if block.get("hint") else ""
    return (
        '<div class="block input"><div '
        f'class="label">{text_html(block.get("label"))}{optional}</div>'
        f"{element_html(block['element'])}{hint}</div>"
    )


def _input_text(block: Json) -> str:
    parts = [
        text_plain(block.get("label")),
        element_text(block["element"]),
        text_plain(block.get("hint")),
    ]
    return "\n".join(p for p in parts if p)


BLOCKS: dict[str, Kind] = {
    "section": Kind(_section, _section_text),
    "context": Kind(_context, _context_text),
    "header": Kind(
        lambda b: f'<div class="block header">{text_html(b.get("text"))}</div>',
        lambda b: text_plain(b.get("text")),
    ),
    "divider": Kind(lambda b: '<hr class="block divider">', lambda b: ""),
    "actions": Kind(_actions, _actions_text),
    "rich_text": Kind(
        lambda b: (
            '<div class="block '
            f'rich">{"".join(_rich_block(e) for e in b.get("elements", []))}</div>'
        ),
        lambda b: "\n".join(_rich_block_text(e) for e in b.get("elements", [])),
    ),
    "image": Kind(_image, lambda b: text_plain(b.get("title"))),
    "input": Kind(_input, _input_text),
}


def _block(block: Json) -> Kind:
    return kind_of(BLOCKS, block, "block")


def block_html(block: Json) -> str:
    return _block(block).html(block)


def block_text(block: Json) -> str:
    """What a reader sees of ``block``: text as shown (links by their label, no markup),
    button and field labels; not what stays hidden (menu options, addresses)."""
    return _block(block).text(block)


def blocks_html(blocks: Iterable[Json]) -> str:
    return "".join(block_html(b) for b in blocks)


def visible_chars(blocks: Iterable[Json]) -> int:
    """Characters a reader sees in ``blocks``, line breaks not counted."""
    return sum(len(block_text(b).replace("\n", "")) for b in blocks)


# -- pages ----------------------------------------------------------------------------

#: Words of Slack's own frame around a payload (App Home's tabs), in the reader's language.
CHROME = {
    "en": ("Home", "Messages", "About"),
    "zh": ("主页", "消息", "关于"),
}


def _document(body: str, *, locale: str, width: int, font_face: str, kind: str) -> str:
    lang = {"zh": "zh-CN"}.get(locale.split("_")[0], locale)
    return (
        f'<!doctype html><html lang="{_e(lang)}"><head><meta charset="utf-8">'
        f"<style>{font_face}{CSS.read_text(encoding='utf-8')}"
        f"body{{width:{int(width)}px}}</style></head>"
        f'<body class="{_e(kind)}">{body}</body></html>'
    )


def font_face(cjk_font: Path | None) -> str:
    """``@font-face`` for the CJK font file (Latin text uses the machine's own sans-serif)."""
    if cjk_font is None:
        return ""
    return f'@font-face{{font-family:"errkb CJK";src:url("{_e(cjk_font.resolve().as_uri())}")}}'


def _frame(payload: Json, app: str) -> str:
    blocks = payload.get("blocks") or []
    body = (
        blocks_html(blocks)
        if blocks
        else f'<div class="block section">{mrkdwn_html(payload.get("text", ""))}</div>'
    )
    avatar = _e(app[:1].upper())
    return (
        f'<div class="message"><div class="avatar">{avatar}</div><div class="content">'
        f'<div class="meta"><span class="name">{_e(app)}</span><span class="badge">APP</span></div>'
        f"{body}</div></div>"
    )


def message_page(
    payload: Json, *, app: str, locale: str, width: int = 800, cjk_font: Path | None = None
) -> str:
    """A message as Slack shows it in a thread: the app's name and badge, then its blocks
    (or its ``text`` when it has none)."""
    return thread_page([(app, payload)], locale=locale, width=width, cjk_font=cjk_font)


def thread_page(
    messages: Sequence[tuple[str, Json]],
    *,
    locale: str,
    width: int = 800,
    cjk_font: Path | None = None,
) -> str:
    """Messages one under the other, each with its app's name: an alert and errkb's reply to it.
    A message's legacy ``attachments`` are drawn as their blocks and texts, as Slack shows them."""
    frames = "".join(_frame(_with_attachments(payload), app) for app, payload in messages)
    return _document(
        frames, locale=locale, width=width, font_face=font_face(cjk_font), kind="in-message"
    )


def _with_attachments(payload: Json) -> Json:
    """``payload`` with its legacy attachments' title, text and fields as mrkdwn sections."""
    extra: list[Json] = []
    for attachment in payload.get("attachments") or []:
        parts = [
            f"*{attachment['title']}*" if attachment.get("title") else "",
            attachment.get("text") or "",
        ]
        parts += [
            f"*{f.get('title', '')}*  {f.get('value', '')}" for f in attachment.get("fields") or []
        ]
        shown = "\n".join(p for p in parts if p)
        if shown:
            extra.append({"type": "section", "text": {"type": "mrkdwn", "text": shown}})
        extra.extend(attachment.get("blocks") or [])
    if not extra:
        return payload
    blocks = list(payload.get("blocks") or [])
    if not blocks and payload.get("text"):
        blocks = [{"type": "section", "text": {"type": "mrkdwn", "text": payload["text"]}}]
    return {**payload, "blocks": blocks + extra}


def view_page(
    view: Json, *, app: str, locale: str, width: int = 800, cjk_font: Path | None = None
) -> str:
    """A view: App Home as its Home tab, a modal as a dialog with its title and buttons."""
    blocks = blocks_html(view.get("blocks", []))
    if view.get("type") == "home":
        names = CHROME.get(locale.split("_")[0], CHROME["en"])
        tabs = "".join(
            f'<span class="tab{" on" if n == 0 else ""}">{_e(name)}</span>'
            for n, name in enumerate(names)
        )
        tabs = f'<div class="tabs">{tabs}</div>'
        frame = (
            '<div class="home"><div class="home-head"><div '
            f'class="avatar">{_e(app[:1].upper())}</div>'
            f'<span class="name">{_e(app)}</span></div>{tabs}<div '
            f'class="home-body">{blocks}</div></div>'
        )
        return _document(
            frame, locale=locale, width=width, font_face=font_face(cjk_font), kind="in-home"
        )
    if view.get("type") == "modal":
        buttons = "".join(
            f'<span class="button{extra}">{text_html(view[key])}</span>'
            for key, extra in (("close", ""), ("submit", " primary"))
            if view.get(key)
        )
        frame = (
            '<div class="modal"><div class="modal-head"><span '
            f'class="title">{text_html(view.get("title"))}'
            f'</span><span class="close">×</span></div><div class="modal-body">{blocks}</div>'
            f'<div class="modal-foot">{buttons}</div></div>'
        )
        return _document(
            frame, locale=locale, width=width, font_face=font_face(cjk_font), kind="in-modal"
        )
    raise UnknownBlock(f"view of type {view.get('type')!r}")


__all__ = [
    "BLOCKS",
    "ELEMENTS",
    "RICH_BLOCKS",
    "RICH_ELEMENTS",
    "UnknownBlock",
    "block_html",
    "block_text",
    "blocks_html",
    "element_html",
    "element_text",
    "message_page",
    "text_html",
    "text_plain",
    "view_page",
    "visible_chars",
]
