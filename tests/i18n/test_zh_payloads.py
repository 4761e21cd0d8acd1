"""A Chinese reader reads no English prose: every starter answer, the digest, modals and panels.

Each rendered payload is scanned for English function words outside code
(backticks, code blocks, quoted errors, URLs): an English sentence anywhere
a person reads — a label, a button, a note, a record's text — fails. Error
lines and commands are code and stay as they are.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

import pytest
from pydantic import ValidationError

from bot.digest.select import StalePolicy, importance_of, select_stale
from bot.i18n.problems import localized_problems
from bot.ingest import load_records
from bot.records import Record, record_problems
from bot.render import blocks, digest, modal, panels
from bot.render.answer import Shown, render_answer
from bot.render.correct import render_correct_modal
from bot.render.state import AddState, CorrectionModalState, DeprecateState
from bot.report import graph_sections
from bot.slack.usecases.slash import SUBCOMMANDS
from bot.store.slack_repo import UnknownError
from graph.build import build_graph
from tests.conftest import DATA
from tests.i18n.prose import english_words

TODAY = date(2026, 12, 1)
ZH = "zh"


def _texts(node: Any) -> list[str]:
    """Every string a person reads in a payload, rich text (code blocks) left out."""
    if isinstance(node, dict):
        if node.get("type") == "rich_text":
            return []
        found = []
        for key, value in node.items():
            if key in ("text", "accessibility_label") and isinstance(value, str):
                found.append(value)
            elif key not in (
                "value",
                "action_id",
                "block_id",
                "callback_id",
                "private_metadata",
                "url",
            ):
                found += _texts(value)
        return found
    if isinstance(node, list):
        return [t for item in node for t in _texts(item)]
    return []


def assert_chinese(payload: Any, what: str) -> None:
    english = {text: english_words(text) for text in _texts(payload)}
    found = {text: words for text, words in english.items() if words}
    assert not found, f"{what}: English prose in {list(found.items())[:3]}"


@pytest.fixture(scope="module")
def starter() -> list[Record]:
    return load_records(sorted(DATA.glob("*.json")))


def test_every_starter_answer_reads_in_chinese(starter: list[Record]) -> None:
    kg = build_graph(starter)
    for record in starter:
        sections = graph_sections(kg, [record.id], locale=ZH)
        for ephemeral in (False, True):
            reply = blocks.Reply(locale=ZH, today=TODAY, reply_id=5, ephemeral=ephemeral)
            for expanded in (False, True):
                shown = Shown(expanded=expanded, lines={record.id: record.signature})
                assert_chinese(
                    render_answer([record], reply, shown, sections, {(record.id, 0): (3, 1)}),
                    record.id,
                )
        assert_chinese(
            panels.render_record(
                record, blocks.Reply(locale=ZH, today=TODAY, reply_id=5, ephemeral=True), sections
            ),
            record.id,
        )


def test_the_digest_and_the_other_panels_read_in_chinese(starter: list[Record]) -> None:
    from bot.digest.select import Candidate

    candidates = [
        Candidate(
            r.id,
            r.domain,
            r.verification_tier,
            r.signature,
            r.last_confirmed,
            signatures={"zh": str(r.localized(ZH).signature)},
        )
        for r in starter
    ]
    items = select_stale(
        candidates,
        importance=importance_of([c.record_id for c in candidates], matches={}, centrality={}),
        policy=StalePolicy(90, {}, {}),
        today=TODAY,
    )
    assert items, "the starter knowledge base has stale records to show"
    assert_chinese(
        digest.render_digest(ZH, items, shown=10, unknown=[(3, "KeyError: 'x'")], today=TODAY),
        "digest",
    )
    reply = blocks.Reply(
        locale=ZH, today=TODAY, reply_id=5, ephemeral=True, add=AddState(unknown=1, locale=ZH)
    )
    now = datetime(2026, 12, 1, tzinfo=UTC)
    unknown = [UnknownError(1, "KeyError: <q>", "KeyError: 'flux'", 4, now, now, ())]
    for name, payload in {
        "help": panels.render_help(ZH, list(SUBCOMMANDS)),
        "candidates": blocks.render_candidates([(starter[0], 0.4), (starter[1], 0.2)], reply),
        "nothing": blocks.render_nothing(reply, ["KeyError: 'flux'"]),
        "no error": blocks.render_nothing(reply),
        "search": panels.render_search("显存不足", [(starter[0], 1.0)], reply),
        "unknown": panels.render_unknown(ZH, unknown, now),
        "add modal": modal.render_add_modal(ZH, AddState(unknown=1, locale=ZH), {}),
        "deprecate modal": digest.render_deprecate_modal(
            ZH, DeprecateState(record=starter[0].id, domain="llm", locale=ZH)
        ),
        "correct modal": render_correct_modal(
            ZH,
            CorrectionModalState(reply=5, wrong=starter[0].id, locale=ZH),
            starter[0],
            "KeyError: 'flux'",
            starter[1:4],
        ),
    }.items():
        assert_chinese(payload, name)


def test_the_add_modal_says_what_is_wrong_in_chinese() -> None:
    form = {
        "id": "x y",
        "signature": "",
        "regex": "foo(?=bar)",
        "domain": "llm",
        "root_cause": "",
        "workarounds": [{"action": "", "success_rate": 3}],
    }
    with pytest.raises(ValidationError) as caught:
        Record.model_validate(form)
    problems = localized_problems(record_problems(caught.value), ZH)
    assert problems
    for _path, text in problems:
        assert english_words(text) == [], text
