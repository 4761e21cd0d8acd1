"""The renderers on their own: pure, valid Block Kit, within Slack's limits in any locale."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from bot.digest.select import Candidate, StalePolicy, select_stale
from bot.records import Record
from bot.render import blocks, panels
from bot.render.answer import Shown, render_answer
from bot.render.correct import render_correct_modal
from bot.render.digest import render_digest
from bot.render.ids import BlockId
from bot.render.modal import modal_errors, prefill, render_add_modal
from bot.render.notes import freshness
from bot.render.state import AddState, BadState, CorrectionModalState, VoteState, load_state
from bot.report import GraphSections, graph_sections
from bot.slack.usecases.slash import SUBCOMMANDS
from graph.build import build_graph
from tests.slack.blockkit import assert_valid_message, assert_valid_view, read_text
from tests.slack.conftest import kb_records

TODAY = date(2025, 8, 1)


def _huge() -> Record:
    long = "x" * 5_000
    return Record.model_validate(
        {
            "id": "big/" + "a" * 280,
            "signature": "HugeError: " + long,
            "regex": "HugeError",
            "domain": "python",
            "root_cause": long,
            "workarounds": [
                {"action": f"step {i} " + long, "success_rate": 0.5, "how": long} for i in range(30)
            ],
            "dead_ends": [{"action": long, "why_fails": long} for i in range(30)],
            "versions": [{"version": "v" + str(i)} for i in range(50)],
            "official_doc_url": "https://e.org/" + "d" * 500,
        }
    )


def _answer(
    records: list[Record],
    reply: blocks.Reply,
    *,
    expanded: bool = False,
    page: int = 0,
    counts: blocks.Counts | None = None,
    graph: GraphSections | None = None,
) -> dict[str, Any]:
    return render_answer(
        records, reply, Shown(page=page, expanded=expanded), graph or GraphSections(), counts or {}
    )


@pytest.mark.slow
@pytest.mark.parametrize("locale", ["en", "zh"])
def test_every_answer_in_the_knowledge_base_renders_valid_block_kit(locale: str) -> None:
    records = kb_records()
    kg = build_graph(records)
    for record in records:
        graph = graph_sections(kg, [record.id], locale=locale)
        for ephemeral in (True, False):
            reply = blocks.Reply(locale=locale, today=TODAY, reply_id=7, ephemeral=ephemeral)
            folded = _answer([record], reply, counts={(record.id, 0): (7, 2)}, graph=graph)
            assert_valid_message(folded)
            assert len(folded["blocks"]) <= 5
            assert_valid_message(
                _answer(
                    [record], reply, expanded=True, counts={(record.id, 0): (7, 2)}, graph=graph
                )
            )


def test_an_oversized_record_is_cut_to_slacks_limits() -> None:
    record = _huge()
    reply = blocks.Reply(
        locale="en", today=TODAY, reply_id=1, ephemeral=True, cut_at=100_000, note="n" * 9_000
    )
    two = [record, _huge().model_copy(update={"id": "big/b"})]
    message = _answer(two, reply, expanded=True)
    assert_valid_message(message)
    assert len(read_text(_answer(two, reply)["blocks"][2:])) < 1_000, "the first screen stays short"
    assert_valid_message(panels.render_record(record, reply, GraphSections()))
    assert_valid_message(blocks.render_candidates([(record, 0.3)] * 5, reply))
    assert_valid_message(panels.render_search("w" * 5_000, [(record, 1.0)] * 30, reply))


def test_more_shows_every_workaround_with_its_votes_dead_ends_and_observed_counts() -> None:
    record = next(r for r in kb_records() if r.id == "errkbtest/frobnicator-overheat")
    reply = blocks.Reply(locale="en", today=TODAY, reply_id=3)
    text = read_text(
        _answer([record], reply, expanded=True, counts={(record.id, 1): (7, 2)})["blocks"]
    )
    assert "7 of 9 here" in text and "Last confirmed 1 year ago" in text
    assert (
        text.index("Prime the coolant loop")
        < text.index("Lower the batch size")
        < text.index("cooler rack")
    )
    assert "Raise the temperature limit" in text and "Restarting the worker" in text
    zh = read_text(
        _answer([record], blocks.Reply(locale="zh", today=TODAY), expanded=True)["blocks"]
    )
    assert "启动前先充注冷却回路" in zh and "1年前" in zh
    fallback = next(r for r in kb_records() if r.id == "errkbtest/widget-meltdown")
    zh = read_text(_answer([fallback], blocks.Reply(locale="zh", today=TODAY))["blocks"])
    assert "尚未翻译" in zh  # English text, marked as such


@pytest.mark.parametrize(
    "locale,days,expected",
    [
        ("en", 0, "today"),
        ("en", 1, "1 day ago"),
        ("en", 3, "3 days ago"),
        ("en", 40, "1 month ago"),
        ("en", 70, "2 months ago"),
        ("en", 425, "1 year ago"),
        ("en", 1600, "4 years ago"),
        ("zh", 0, "今天"),
        ("zh", 1, "1天前"),
        ("zh", 70, "2个月前"),
        ("zh", 1600, "4年前"),
    ],
)
def test_freshness_by_the_locales_plural_and_relative_time_rules(
    locale: str, days: int, expected: str
) -> None:
    from datetime import timedelta

    said = freshness(locale, TODAY - timedelta(days=days), TODAY)
    assert said.endswith(expected) and "(s)" not in said


def test_panels_are_valid() -> None:
    from datetime import UTC, datetime

    from bot.store.slack_repo import UnknownError

    now = datetime(2025, 8, 1, tzinfo=UTC)
    unknown = [
        UnknownError(
            i, "E: <n> " + "t" * 3_000, "E: 1", 5, now, now, ("https://x.slack.com/p1",) * 5
        )
        for i in range(1, 30)
    ]
    for locale in ("en", "zh"):
        assert_valid_message(panels.render_help(locale, list(SUBCOMMANDS)))
        assert_valid_message(panels.render_unknown(locale, unknown, now))
        items = select_stale(
            [Candidate(f"a/{i}", "py", "ai", "x" * 5000, None) for i in range(300)],
            importance={},
            policy=StalePolicy(),
            today=TODAY,
        )
        assert_valid_message(
            render_digest(locale, items, shown=40, unknown=[(3, "y" * 4000)] * 9, today=TODAY)
        )
        assert_valid_message(panels.render_refusal(locale))
        assert_valid_message(
            blocks.render_nothing(
                blocks.Reply(locale=locale, today=TODAY, add=AddState(unknown=1)), ["E: x" * 500]
            )
        )
        values = prefill(
            "RuntimeError: the flux capacitor is misaligned by 3 degrees", "RuntimeError: <q>"
        )
        assert_valid_view(render_add_modal(locale, AddState(unknown=1, locale=locale), values))


def test_modal_errors_land_on_their_inputs() -> None:
    errors = modal_errors(
        [
            ("regex", "bad"),
            ("domain", "missing"),
            ("workarounds[0].action", "empty"),
            ("tags", "odd"),
            ("regex", "also"),
        ]
    )
    assert errors == {
        BlockId.REGEX: "bad; also",
        BlockId.DOMAIN: "missing",
        BlockId.WORKAROUND: "empty",
        BlockId.SIGNATURE: "odd",
    }


def test_state_round_trips_and_rejects_tampering() -> None:
    state = VoteState(reply=5, record="a/b", pos=2)
    assert load_state(VoteState, state.dump()) == state
    for bad in (
        "",
        "{}",
        '{"reply": 0, "record": "a", "pos": 1}',
        '{"reply": 1, "record": "a", "pos": 1, "x": 2}',
    ):
        with pytest.raises(BadState):
            load_state(VoteState, bad)


@pytest.mark.parametrize("locale,label", [("en", "Cause:"), ("zh", "原因：")])
def test_the_quoted_error_line_is_code_that_copies_as_written(locale: str, label: str) -> None:
    record = next(r for r in kb_records() if r.id == "errkbtest/frobnicator-overheat")
    line = "SyntaxError: unexpected token `<` in `config.yaml` at *line* 3 & <@U123>"
    reply = blocks.Reply(locale=locale, today=TODAY)
    message = render_answer([record], reply, Shown(lines={record.id: line}), GraphSections(), {})
    assert_valid_message(message)
    first = message["blocks"][0]
    assert first["type"] == "rich_text"
    [section] = first["elements"]
    quoted, _, cause_label, _ = section["elements"]
    assert quoted == {
        "type": "text",
        "text": line,
        "style": {"code": True},
    }  # every character as written
    assert cause_label == {"type": "text", "text": label, "style": {"bold": True}}
    assert "ˋ" not in str(message["blocks"])


def test_the_digests_unknown_errors_are_code_that_copies_as_written() -> None:
    items = select_stale(
        [Candidate("a/1", "py", "ai", "E", None)], importance={}, policy=StalePolicy(), today=TODAY
    )
    template = "TypeError: `<n>` is not iterable & *never* was"
    message = render_digest(
        "en", items, shown=5, unknown=[(1, template), (7, "KeyError: '<n>'")], today=TODAY
    )
    assert_valid_message(message)
    [listing] = [b for b in message["blocks"] if b["type"] == "rich_text"]
    first, second = listing["elements"][0]["elements"]
    assert first["elements"] == [
        {"type": "text", "text": "1× ", "style": {"bold": True}},
        {"type": "text", "text": template, "style": {"code": True}},
    ]
    assert second["elements"][1]["text"] == "KeyError: '<n>'"
    assert "ˋ" not in str(message["blocks"])


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_the_pasters_own_error_lines_are_code_that_copies_as_written(locale: str) -> None:
    """ "Nothing known" lists the asker's error lines, and **Not this error** quotes the line
    it is about: both as rich-text code, backticks and all."""
    line = "ValueError: Try increasing `gpu_memory_utilization` & <@U123> *now*"
    reply = blocks.Reply(locale=locale, today=TODAY, ephemeral=True)
    nothing = blocks.render_nothing(reply, [line, "KeyError: 'x'"])
    assert_valid_message(nothing)
    [listing] = [b for b in nothing["blocks"] if b["type"] == "rich_text"]
    texts = [e for e in listing["elements"][0]["elements"] if e.get("style") == {"code": True}]
    assert [e["text"] for e in texts] == [line, "KeyError: 'x'"]
    record = next(iter(kb_records()))
    state = CorrectionModalState(reply=1, wrong=record.id, locale=locale)
    view = render_correct_modal(locale, state, record, line, [])
    assert_valid_view(view)
    quoted = [b for b in view["blocks"] if b["type"] == "rich_text"]
    assert quoted and quoted[0]["elements"][0]["elements"] == [
        {"type": "text", "text": line, "style": {"code": True}}
    ]
    assert "ˋ" not in str(nothing["blocks"]) + str(view["blocks"])
