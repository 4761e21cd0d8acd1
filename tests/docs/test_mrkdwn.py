"""Slack's mrkdwn read for the README's pictures and the first-screen character counts."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scripts.mrkdwn import mrkdwn_html, mrkdwn_text

#: The only tags the pictures' HTML holds for mrkdwn, and their only attributes.
TAGS = {"b", "i", "s", "code", "pre", "a", "span", "blockquote", "br"}
_TAG = re.compile(r"<(/?)([a-z]+)([^<>]*)>")


@pytest.mark.parametrize(
    "text,html,seen",
    [
        (
            "*1.* Reduce it  _(90% · 7 of 9)_",
            "<b>1.</b> Reduce it  <i>(90% · 7 of 9)</i>",
            "1. Reduce it  (90% · 7 of 9)",
        ),
        ("~old~ and `a_b*c*`", "<s>old</s> and <code>a_b*c*</code>", "old and a_b*c*"),
        ("if a &lt; b &amp;&amp; c &gt; d", "if a &lt; b &amp;&amp; c &gt; d", "if a < b && c > d"),
        ("&amp;lt; stays", "&amp;lt; stays", "&lt; stays"),
        (
            "<https://e.org/a?b=1&amp;c=2|the docs>",
            '<a href="https://e.org/a?b=1&amp;c=2">the docs</a>',
            "the docs",
        ),
        ("<https://e.org>", '<a href="https://e.org">https://e.org</a>', "https://e.org"),
        (
            "<@U123> <#C9|errors> <!here>",
            (
                '<span class="mention">@U123</span> <span class="mention">#errors</span> '
                '<span class="mention">@here</span>'
            ),
            "@U123 #errors @here",
        ),
        ("one\ntwo", "one<br>two", "one\ntwo"),
        (
            "run:\n```\npip install x &gt;=1\n```\ndone",
            "run:<pre>pip install x &gt;=1</pre>done",
            "run:\npip install x >=1\ndone",
        ),
        (
            "&gt; quoted *b*\nafter",
            "<blockquote>quoted <b>b</b></blockquote>after",
            "quoted b\nafter",
        ),
        (":warning: :no_such_emoji:", "⚠️ :no_such_emoji:", "⚠️ :no_such_emoji:"),
        # a marker next to a letter, digit or CJK character is text, as in Slack
        (
            "gpu_memory_utilization 2*3*4",
            "gpu_memory_utilization 2*3*4",
            "gpu_memory_utilization 2*3*4",
        ),
        ("设置*粗体*无效", "设置*粗体*无效", "设置*粗体*无效"),
        ("设置 *粗体* 有效", "设置 <b>粗体</b> 有效", "设置 粗体 有效"),
        ("* not bold *", "* not bold *", "* not bold *"),
    ],
)
def test_mrkdwn_reads_as_slack_shows_it(text: str, html: str, seen: str) -> None:
    assert mrkdwn_html(text) == html
    assert mrkdwn_text(text) == seen


def test_markup_that_is_not_slacks_is_text() -> None:
    html = mrkdwn_html('&lt;script&gt;alert(1)&lt;/script&gt; <img src=x onerror="alert(1)">')
    assert "<script" not in html and "<img" not in html
    assert html.startswith("&lt;script&gt;alert(1)&lt;/script&gt; ")


PIECES = [*"ab <>&|!@#*_~`:/\"'\n=", "&lt;", "&gt;", "&amp;", "```", "script", "https://x"]


@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_any_text_becomes_only_our_tags(text: str) -> None:
    html = mrkdwn_html(text)
    for closing, tag, attributes in _TAG.findall(html):
        assert tag in TAGS, html
        assert not closing or not attributes.strip()
        assert re.fullmatch(r'(?: (?:href|class)="[^"<>]*")*', attributes), html
    stripped = _TAG.sub("", html)
    assert "<" not in stripped and ">" not in stripped


def test_links_and_code_inside_formatting_keep_their_markers() -> None:
    assert (
        mrkdwn_html("_see <https://e.org/a_b|the_docs>_")
        == '<i>see <a href="https://e.org/a_b">the_docs</a></i>'
    )
    assert mrkdwn_html("*run `a*b` now*") == "<b>run <code>a*b</code> now</b>"
