"""Text people supply never reaches a Slack ``text`` or mrkdwn field as markup.

Every Slack renderer is fed hostile text in every place a person's text can
reach it (record fields — records can be added from Slack —, search words,
pasted error lines, unknown-error templates, domains, deprecate reasons) and
every outgoing payload is checked: each ``<...>`` control sequence in it is
one errkb made itself (a docs link, a permalink, the acting user's mention),
each ``&`` starts one of Slack's three escapes, and the payload stays valid
for slack_sdk's Block Kit models.
"""

from __future__ import annotations

import inspect
import itertools
import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.channels import ChannelSettings, Mode
from bot.digest.select import Importance, Reason, StaleItem
from bot.records import Record
from bot.render import (
    answer,
    blocks,
    channel,
    correct,
    digest,
    followup,
    home,
    modal,
    panels,
    pointer,
)
from bot.render.answer import Shown
from bot.render.escape import escape_mrkdwn, mention
from bot.render.ids import ActionId, BlockId
from bot.render.kit import button
from bot.render.state import AddState, CorrectionModalState, DeprecateState
from bot.report import GraphSections
from bot.slack.usecases.slash import SUBCOMMANDS
from tests.slack.blockkit import assert_valid_blocks, assert_valid_message, assert_valid_view
from tests.slack.conftest import Bot

TODAY = date(2025, 8, 1)
DOCS = "https://docs.example.test/errors?id=1&lang=en"
PERMALINK = "https://slack.example.test/archives/C1/p1"
ACTOR = "U0ACTOR"
HERE = "C0HOME"  # a channel errkb links to
HOSTILE = [
    "<!channel>",
    "<!here>",
    "<!everyone>",
    "<https://evil.example|click>",
    "<@U123>",
    "<#C123>",
    "<!subteam^S1>",
    "&amp;",
    "&lt;b&gt;",
    "&",
    "<",
    ">",
    "*bold*",
    "_it_",
    "~gone~",
    "`code`",
    "> quote",
    "|",
    "\n",
    "错误",
]
hostile = (
    st.lists(
        st.sampled_from(HOSTILE) | st.text(alphabet="ab <>&|!@*_~`:/", max_size=12),
        min_size=1,
        max_size=6,
    )
    .map("".join)
    .filter(str.strip)
)
_CONTROL = re.compile(r"<[^<>]*>")
_OURS = re.compile(
    rf"^<(?:{re.escape(DOCS.replace('&', '&amp;'))}|{re.escape(PERMALINK)})\|[^<>|]*>$"
    rf"|^<@{ACTOR}>$|^<#{HERE}>$"
)
_AMP = re.compile(r"&(?!amp;|lt;|gt;)")


def texts(payload: Any) -> Iterator[str]:
    """Every string Slack reads as mrkdwn: a message's ``text``, every ``mrkdwn`` object."""
    if isinstance(payload, dict):
        if isinstance(payload.get("text"), str) and payload.get("type") in (None, "mrkdwn"):
            yield payload["text"]
        for value in payload.values():
            yield from texts(value)
    elif isinstance(payload, list):
        for value in payload:
            yield from texts(value)


def assert_no_markup_from_people(payload: Any) -> None:
    for text in texts(payload):
        foreign = [c for c in _CONTROL.findall(text) if not _OURS.match(c)]
        assert not foreign, f"markup from user text in {text!r}: {foreign}"
        assert not _AMP.search(text), f"an unescaped & in {text!r}"


@dataclass(frozen=True)
class Taught:
    id: int
    template: str
    record_id: str | None
    user_id: str


@dataclass(frozen=True)
class Unknown:
    id: int
    example: str
    count: int
    last_seen: datetime
    permalinks: tuple[str, ...]
    source: str | None = None  # the app whose alert carried it
    fixed_in_thread: bool = True


def hostile_record(words: list[str]) -> Record:
    w = itertools.cycle(words)
    return Record.model_validate(
        {
            "id": "x/hostile",
            "signature": next(w),
            "regex": "HostileError",
            "domain": next(w),
            "root_cause": next(w),
            "versions": [{"version": next(w)}],
            "workarounds": [
                {"action": next(w), "how": next(w), "condition": next(w), "success_rate": 0.5}
            ]
            * 7,
            "dead_ends": [
                {"action": next(w), "why_fails": next(w)},
                {"action": "", "why_fails": next(w)},
            ],
            "official_doc_url": DOCS,
            "signature_zh": next(w),
            "root_cause_zh": next(w),
            "workarounds_zh": [next(w)],
            "last_confirmed": "2024-01-01",
            "aliases": [next(w)],
        }
    )


def stale_item(words: list[str]) -> StaleItem:
    return StaleItem(
        record_id="x/hostile",
        domain=words[0],
        signature=words[1],
        last_confirmed=None,
        threshold_days=180,
        days_overdue=30,
        importance=Importance(matches=3),
        score=1.0,
        reasons=(Reason("digest.reason.matches", {"count": 3}),),
    )


def renders(words: list[str], locale: str) -> dict[str, Any]:
    """Every Slack renderer, fed ``words`` wherever a person's text can reach it."""
    record = hostile_record(words)
    graph = GraphSections.model_validate(
        {
            "causes": [
                {
                    "error": record.id,
                    "items": [
                        {
                            "id": "x/other",
                            "label": words[-1],
                            "score": 0.5,
                            "hops": 1,
                            "path": [],
                            "placeholder": False,
                        }
                    ],
                }
            ],
            "next": [
                {
                    "error": record.id,
                    "items": [
                        {
                            "id": "x/next",
                            "label": words[-2],
                            "probability": 0.5,
                            "weight": 0.5,
                            "conditions": [words[0]],
                            "placeholder": False,
                            "asserted_by": [],
                        }
                    ],
                }
            ],
            "confused_with": [
                {
                    "error": record.id,
                    "items": [
                        {
                            "id": "x/alike",
                            "label": words[1],
                            "placeholder": False,
                            "distinctions": [words[2]],
                            "difference": None,
                        }
                    ],
                }
            ],
        }
    )
    reply = blocks.Reply(
        locale=locale,
        today=TODAY,
        reply_id=9,
        ephemeral=True,
        cut_at=100_000,
        add=AddState(unknown=1, locale=locale),
    )
    item = stale_item(words)
    taught = Taught(1, words[3], words[4], words[0])
    digest_message = digest.render_digest(
        locale,
        [item],
        shown=5,
        unknown=[(3, words[2])],
        today=TODAY,
        owner_domains=[words[0], words[-1]],
        wrong=[(words[1], 2)],
        taught=[taught],
    )
    note = digest.item_note(locale, "digest.done.deprecated", user=ACTOR, reason=words[3])
    unknown = Unknown(
        1, words[4], 3, datetime(2025, 7, 1, tzinfo=UTC), (PERMALINK,), source=words[5 % len(words)]
    )
    values = {block: words[i % len(words)] for i, (block, *_rest) in enumerate(modal.FIELDS)}
    return {
        "render_answer": answer.render_answer(
            [record], reply, Shown(lines={record.id: words[0]}), graph, {(record.id, 0): (2, 3)}
        ),
        "render_answer (more)": answer.render_answer(
            [record], reply, Shown(expanded=True), graph, {}, {record.id: [words[1]]}
        ),
        "render_correct_modal": correct.render_correct_modal(
            locale,
            CorrectionModalState(reply=9, wrong=record.id, locale=locale),
            record,
            words[2],
            [record],
        ),
        "render_note": panels.render_note(locale, "correct.done.none", user=words[3]),
        "render_search_options": {
            "text": "options",
            "blocks": [
                {
                    "type": "actions",
                    "elements": [
                        {
                            "type": "static_select",
                            "action_id": "a",
                            "options": correct.render_search_options([record], locale),
                        }
                    ],
                }
            ],
        },
        "render_pointer": pointer.render_pointer(
            locale, records=[record.id], line=words[0], permalink=PERMALINK
        ),
        "render_pointer (not sure)": pointer.render_pointer(
            locale, records=[record.id], line=words[1], permalink=None, sure=False
        ),
        "render_pointer (nothing known)": pointer.render_pointer(
            locale, records=[], line=words[2], permalink=PERMALINK
        ),
        "render_candidates": blocks.render_candidates([(record, 0.4)], reply),
        "render_nothing": blocks.render_nothing(reply, errors=words),
        "render_record": panels.render_record(record, reply, graph),
        "render_search": panels.render_search(words[0], [(record, 1.0)], reply),
        "render_search (nothing found)": panels.render_search(words[0], [], reply),
        "render_help": panels.render_help(
            locale, list(SUBCOMMANDS), status=channel.channel_status(locale, ChannelSettings("C1"))
        ),
        "render_channel": channel.render_channel(
            locale, ChannelSettings("C1", Mode.QUIET, 0.62, "zh"), note_key="channel.saved"
        ),
        "render_channel_usage": channel.render_channel_usage(locale, "threshold"),
        "render_unknown": panels.render_unknown(
            locale, [unknown], datetime(2025, 8, 1, tzinfo=UTC)
        ),
        "render_refusal": panels.render_refusal(locale),
        "render_error": panels.render_error(
            locale, "error.not_found", id=words[0], incident=words[-1]
        ),
        "render_text": panels.render_text(locale, "search.none", words=words[0]),
        "render_digest": digest_message,
        "mark_item": {
            "text": note,
            "blocks": digest.mark_item(digest_message["blocks"], item.record_id, note),
        },
        "render_deprecate_modal": digest.render_deprecate_modal(
            locale, DeprecateState(record="x/hostile", domain=words[0][:100], locale=locale)
        ),
        "render_add_modal": modal.render_add_modal(locale, AddState(unknown=1), values),
        "render_welcome": channel.render_welcome(locale, ChannelSettings(HERE, Mode.QUIET)),
        "render_known_now": followup.render_known_now(
            locale, record, asker=ACTOR, added_by=words[0]
        ),
        "render_home": home.render_home(
            home.HomeView(
                locale=locale,
                today=TODAY,
                chosen="zh",
                search=words[0],
                results=[(record, 1.0)],
                recent=[
                    home.RecentAnswer(1, HERE, datetime(2025, 7, 30, tzinfo=UTC), record),
                    home.RecentAnswer(
                        2, "D0DIRECT", datetime(2025, 7, 29, tzinfo=UTC), record, closest=True
                    ),
                ],
                stats=home.KbStats(3, {"en": 100.0, "zh": 97.5}, stale=1, unknown=1),
                maintainer=True,
                unknown=[unknown],
                stale=[item],
                stale_total=9,
                corrections=[
                    (escape_mrkdwn(words[1]), None),
                    (
                        escape_mrkdwn(words[2]),
                        button(words[3], ActionId.UNDO_CORRECTION, value="{}"),
                    ),
                ],
            ),
            datetime(2025, 8, 1, tzinfo=UTC),
        ),
        "render_home (nothing searched or found)": home.render_home(
            home.HomeView(locale=locale, today=TODAY, search=words[1]),
            datetime(2025, 8, 1, tzinfo=UTC),
        ),
    }


#: Renderers that make no Slack payload: terminal lines, and what a modal submission returns.
NOT_SLACK = {"render_stale_lines"}


def test_the_property_covers_every_renderer() -> None:
    covered = set(renders(["a", "b", "c", "d", "e"], "en"))
    for module in (
        answer,
        blocks,
        correct,
        panels,
        digest,
        modal,
        channel,
        home,
        followup,
        pointer,
    ):
        for name, function in inspect.getmembers(module, inspect.isfunction):
            if function.__module__ == module.__name__ and name.startswith("render_"):
                assert name in covered | NOT_SLACK, (
                    f"{module.__name__}.{name} is not checked for escaping"
                )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(words=st.lists(hostile, min_size=5, max_size=8), locale=st.sampled_from(["en", "zh"]))
def test_no_payload_carries_markup_from_people(words: list[str], locale: str) -> None:
    for name, payload in renders(words, locale).items():
        check: Callable[[Any], None] = (
            assert_valid_view if payload.get("type") in ("modal", "home") else assert_valid_message
        )
        if name == "mark_item":
            assert_valid_blocks(payload["blocks"])
        else:
            check(payload)
        try:
            assert_no_markup_from_people(payload)
        except AssertionError as exc:
            raise AssertionError(f"{name}: {exc}") from None


def test_a_search_for_a_broadcast_is_shown_not_sent() -> None:
    words = "<!channel> <https://evil.example|click> &amp;"
    reply = blocks.Reply(locale="en", today=TODAY, reply_id=3, ephemeral=True)
    shared = panels.render_search(words, [], reply)
    found = panels.render_search(words, [(hostile_record(["a"]), 1.0)], reply)
    for payload in (shared, found):
        assert "&lt;!channel&gt; &lt;https://evil.example|click&gt; &amp;amp;" in payload["text"]
        assert "<!channel>" not in str(payload)


def test_escaping_is_slacks_three_characters_and_nothing_else() -> None:
    assert escape_mrkdwn("a & b < c > d *e* _f_") == "a &amp; b &lt; c &gt; d *e* _f_"
    assert mention("U0ACTOR") == "<@U0ACTOR>"
    assert mention("<!channel>") == "&lt;!channel&gt;"


def test_a_cut_never_splits_an_escape() -> None:
    from bot.render.kit import cut

    text = escape_mrkdwn("<" * 50)
    for limit in range(1, 60):
        kept = cut(text, limit)
        assert len(kept) <= limit and not re.search(r"&(?!lt;)", kept), kept


def test_modal_fields_are_plain_text_and_keep_what_was_typed() -> None:
    view = modal.render_add_modal("en", AddState(unknown=1), {BlockId.SIGNATURE: "<!channel> & co"})
    signature = next(b for b in view["blocks"] if b["block_id"] == BlockId.SIGNATURE)
    assert signature["element"]["initial_value"] == "<!channel> & co"  # plain text: shown as typed


def test_a_hostile_search_shared_in_the_channel_carries_no_markup(bot: Bot) -> None:
    """Over HTTP: ``/errkb search <!channel> <https://evil|click>``, then "Share in channel"."""
    words = "frobnicator <!channel> <https://evil.example|click> <@U123> &amp;"
    assert bot.send.command("search " + words).status == 200
    reply = bot.fake.wait_for("response_url")[0].params
    share = next(
        e
        for b in reply["blocks"]
        if b["type"] == "actions"
        for e in b["elements"]
        if e["action_id"] == ActionId.SHARE
    )
    bot.fake.reset()
    bot.send.click(ActionId.SHARE, share["value"])
    [post] = bot.fake.wait_for("chat.postMessage")
    assert bot.fake.wait_for("response_url", where=lambda c: bool(c.params.get("delete_original")))
    for payload in (reply, post.params):
        assert "&lt;!channel&gt;" in payload["text"] and "&amp;amp;" in payload["text"]
        sent = {k: v for k, v in payload.items() if k in ("text", "blocks")}
        if isinstance(sent["blocks"], str):
            sent["blocks"] = json.loads(sent["blocks"])
        assert_no_markup_from_people(sent)


def test_an_unknown_id_typed_as_markup_is_echoed_escaped(bot: Bot) -> None:
    assert bot.send.command("show <!channel>").status == 200
    [call] = bot.fake.wait_for("response_url", where=lambda c: "text" in c.params)
    reply = call.params
    assert "&lt;!channel&gt;" in reply["text"] and "<!channel>" not in json.dumps(reply)
