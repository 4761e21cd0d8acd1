"""The README's pictures draw every block errkb sends, and draw people's text as text.

Every Slack renderer (the table ``tests/slack/test_escaping.py`` keeps complete)
and every answer to the starter knowledge base goes through the HTML renderer:
no block, element or rich text part may be unknown to it, and hostile text in
record fields, search words and pastes ends up shown, never as markup.
No browser is needed here.
"""

from __future__ import annotations

import json
import re
from datetime import date
from typing import Any

import pytest

from bot.render.escape import escape_mrkdwn
from bot.render.stored import stored_view
from bot.store.slack_repo import Reply
from scripts.blockkit_html import (
    UnknownBlock,
    block_html,
    block_text,
    blocks_html,
    message_page,
    view_page,
    visible_chars,
)
from scripts.starter_answers import example_pastes, knowledge, starter_replies
from tests.slack.test_escaping import renders, texts

DAY = date(2026, 12, 1)
#: Every tag and attribute a page may hold: nothing that runs, loads or submits.
TAGS = {
    "html",
    "head",
    "meta",
    "style",
    "body",
    "div",
    "span",
    "hr",
    "b",
    "i",
    "s",
    "code",
    "pre",
    "a",
    "blockquote",
    "br",
    "ul",
    "ol",
    "li",
}
ATTRIBUTES = {"lang", "charset", "class", "href", "aria-label", "role", "title", "start"}
HOSTILE = [
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    '" onmouseover="alert(1)',
    "</div></body>",
    "<https://evil.example|click>",
    "javascript:alert(1)",
    "*bold* _it_",
    "错误 &amp;",
]
_TAG = re.compile(r"<(/?)([a-zA-Z!][^\s<>/]*)([^<>]*)>")
_ATTRIBUTE = re.compile(r'\s([a-z-]+)(?:="([^"]*)")?')


def assert_safe(page: str) -> None:
    """Only :data:`TAGS`, only :data:`ATTRIBUTES`, links only to web or mail addresses."""
    body = page.split("</style>", 1)[-1]  # the stylesheet is ours
    for _closing, tag, attributes in _TAG.findall(body):
        assert tag.lower() in TAGS, f"<{tag}> in the page"
        for name, value in _ATTRIBUTE.findall(attributes):
            assert name in ATTRIBUTES, f"attribute {name} on <{tag}>"
            if name == "href":
                assert value.startswith(("http://", "https://", "mailto:")), value
    text = _TAG.sub("", body)
    assert "<" not in text and ">" not in text


def draw(payload: dict[str, Any], locale: str) -> str:
    if payload.get("type") in ("modal", "home"):
        return view_page(payload, app="errkb", locale=locale)
    return message_page(payload, app="errkb", locale=locale)


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_every_slack_renderer_is_drawn_with_hostile_text_shown_as_text(locale: str) -> None:
    shown_somewhere = False
    for name, payload in renders(HOSTILE, locale).items():
        page = draw(payload, locale)
        try:
            assert_safe(page)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None
        if payload.get("type") in ("modal", "home"):
            continue
        sent = "\n".join(texts(payload["blocks"]))
        seen = "\n".join(block_text(b) for b in payload["blocks"])
        for word in HOSTILE[:5]:
            if escape_mrkdwn(word) in sent:  # errkb sent it as text: a reader sees it as typed
                assert word in seen, f"{name}: {word!r} is not shown as typed"
                shown_somewhere = True
    assert shown_somewhere


@pytest.mark.slow
@pytest.mark.parametrize("locale", ["en", "zh"])
def test_every_reply_to_the_starter_knowledge_base_is_drawn(locale: str) -> None:
    """Each record as an answer (folded and expanded by "More"), as ``/errkb show``, and as a
    candidate: rendered by ``stored_view``, the function that renders every stored reply."""
    kb = knowledge()
    for record_id in kb.graph.record_ids:
        for kind, args in (
            ("answer", {"records": [record_id], "view": {"page": 0, "expanded": False}}),
            ("answer", {"records": [record_id], "view": {"page": 0, "expanded": True}}),
            ("record", {"record": record_id}),
            ("candidates", {"candidates": [[record_id, 0.4]]}),
        ):
            reply = Reply(
                id=7,
                kind=kind,
                locale=locale,
                user_id="U1",
                channel="C1",
                thread_ts="1.0",
                args=args,
            )
            payload = stored_view(
                reply,
                kb=kb.index,
                kg=kb.graph,
                counts={(record_id, 0): (3, 1)},
                today=DAY,
                ephemeral=True,
            )
            assert_safe(draw(payload, locale))
            assert visible_chars(payload["blocks"]) > 0


def test_the_starter_replies_are_drawn_and_counted() -> None:
    replies = starter_replies()
    examples = {p.stem for p in example_pastes()}
    assert {r.example for r in replies} == examples and {r.locale for r in replies} == {"en", "zh"}
    for reply in replies:
        assert reply.payload, f"{reply.example}: nothing posted"
        assert_safe(draw(reply.payload, reply.locale))
        assert 0 < visible_chars(reply.payload["blocks"]) < len(json.dumps(reply.payload["blocks"]))


BLOCKS = [
    (
        {
            "type": "section",
            "text": {"type": "mrkdwn", "text": "*Cause* <https://d.example|docs>"},
            "accessory": {
                "type": "overflow",
                "action_id": "o",
                "options": [
                    {"text": {"type": "plain_text", "text": "Hidden option"}, "value": "1"}
                ],
            },
        },
        ['<b>Cause</b> <a href="https://d.example">docs</a>', 'class="button overflow"'],
        "Cause docs",
    ),
    (
        {
            "type": "section",
            "fields": [{"type": "mrkdwn", "text": "*A*"}, {"type": "plain_text", "text": "B <c>"}],
        },
        ['<div class="field"><b>A</b></div>', "B &lt;c&gt;"],
        "A\nB <c>",
    ),
    (
        {
            "type": "header",
            "text": {"type": "plain_text", "text": "Stale :warning:", "emoji": True},
        },
        ['class="block header">Stale ⚠️'],
        "Stale ⚠️",
    ),
    ({"type": "divider"}, ["<hr"], ""),
    (
        {
            "type": "context",
            "elements": [
                {"type": "image", "image_url": "https://i.example/a.png", "alt_text": "a"},
                {"type": "mrkdwn", "text": "_Last confirmed_"},
            ],
        },
        ["<i>Last confirmed</i>", 'class="image-el"'],
        "Last confirmed",
    ),
    (
        {
            "type": "actions",
            "elements": [
                {
                    "type": "button",
                    "text": {"type": "plain_text", "text": "Fixed it"},
                    "action_id": "f",
                    "style": "primary",
                    "accessibility_label": "This workaround fixed my error",
                },
                {
                    "type": "button",
                    "text": {"type": "plain_text", "text": "Remove"},
                    "action_id": "r",
                    "style": "danger",
                },
                {
                    "type": "static_select",
                    "action_id": "s",
                    "placeholder": {"type": "plain_text", "text": "Pick one"},
                    "options": [{"text": {"type": "plain_text", "text": "x"}, "value": "x"}],
                },
            ],
        },
        [
            'class="button primary" aria-label="This workaround fixed my error">Fixed it',
            'class="button danger"',
            'class="select">Pick one',
        ],
        "Fixed it  Remove  Pick one",
    ),
    (
        {
            "type": "rich_text",
            "elements": [
                {
                    "type": "rich_text_section",
                    "elements": [
                        {"type": "text", "text": "Run "},
                        {"type": "text", "text": "pip", "style": {"code": True}},
                        {"type": "text", "text": " now", "style": {"bold": True, "italic": True}},
                        {"type": "link", "url": "https://p.example", "text": "why"},
                        {"type": "emoji", "name": "bulb"},
                        {"type": "user", "user_id": "U1"},
                    ],
                },
                {
                    "type": "rich_text_preformatted",
                    "elements": [{"type": "text", "text": "vllm serve <model> \\\n  --tp 2"}],
                },
                {
                    "type": "rich_text_list",
                    "style": "ordered",
                    "indent": 1,
                    "elements": [
                        {
                            "type": "rich_text_section",
                            "elements": [{"type": "text", "text": "first"}],
                        },
                        {
                            "type": "rich_text_section",
                            "elements": [{"type": "text", "text": "second"}],
                        },
                    ],
                },
                {"type": "rich_text_quote", "elements": [{"type": "text", "text": "quoted"}]},
            ],
        },
        [
            "<code>pip</code>",
            "<b><i> now</i></b>",
            '<a href="https://p.example">why</a>💡',
            "@U1",
            "<pre>vllm serve &lt;model&gt; \\<br>  --tp 2</pre>",
            '<ol class="indent-1" start="1"><li><span>first</span></li>',
            "<blockquote>quoted</blockquote>",
        ],
        "Run pip nowwhy💡@U1\nvllm serve <model> \\\n  --tp 2\nfirst\nsecond\nquoted",
    ),
    (
        {
            "type": "image",
            "image_url": "https://i.example/g.png",
            "alt_text": "the graph",
            "title": {"type": "plain_text", "text": "Neighbourhood"},
        },
        ['aria-label="the graph">the graph</div>', "Neighbourhood"],
        "Neighbourhood",
    ),
    (
        {
            "type": "input",
            "optional": True,
            "label": {"type": "plain_text", "text": "How"},
            "element": {
                "type": "plain_text_input",
                "action_id": "v",
                "multiline": True,
                "initial_value": "a <b>",
            },
            "hint": {"type": "plain_text", "text": "Commands"},
        },
        [
            '<div class="label">How <span class="optional">',
            'class="text-input textarea">a &lt;b&gt;',
            "Commands",
        ],
        "How\na <b>\nCommands",
    ),
]


@pytest.mark.parametrize("block,html_parts,seen", BLOCKS, ids=[b[0]["type"] for b in BLOCKS])
def test_each_block_type_is_drawn(block: dict[str, Any], html_parts: list[str], seen: str) -> None:
    html = block_html(block)
    for part in html_parts:
        assert part in html
    assert block_text(block) == seen
    assert_safe(blocks_html([block]))


@pytest.mark.parametrize(
    "block",
    [
        {"type": "video", "title": {"type": "plain_text", "text": "v"}},
        {
            "type": "actions",
            "elements": [{"type": "workflow_button", "text": {"type": "plain_text", "text": "w"}}],
        },
        {"type": "rich_text", "elements": [{"type": "rich_text_table"}]},
        {
            "type": "rich_text",
            "elements": [{"type": "rich_text_section", "elements": [{"type": "sparkle"}]}],
        },
        {"type": "section", "text": {"type": "markdown", "text": "x"}},
    ],
)
def test_an_unknown_type_is_an_error_not_a_gap(block: dict[str, Any]) -> None:
    with pytest.raises(UnknownBlock):
        block_html(block)
    with pytest.raises(UnknownBlock):
        block_text(block)


def test_views_are_drawn_in_the_readers_language() -> None:
    home = {
        "type": "home",
        "blocks": [{"type": "section", "text": {"type": "mrkdwn", "text": "hi"}}],
    }
    assert ">主页<" in view_page(home, app="errkb", locale="zh")
    assert ">Home<" in view_page(home, app="errkb", locale="en")
    modal = {
        "type": "modal",
        "title": {"type": "plain_text", "text": "Add"},
        "submit": {"type": "plain_text", "text": "Save"},
        "close": {"type": "plain_text", "text": "Cancel"},
        "blocks": [],
    }
    page = view_page(modal, app="errkb", locale="zh")
    assert 'lang="zh-CN"' in page and "Save</span>" in page and "Cancel</span>" in page
    with pytest.raises(UnknownBlock):
        view_page({"type": "workflow_step", "blocks": []}, app="errkb", locale="en")
