"""The fix that fits the paste comes first, the one it shows tried sinks, and the answer
says why, in every locale, on every surface."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from slack_sdk.models.blocks import Block

from bot.answer import read_paste
from bot.fit.order import PasteFacts, fix_order, read_settings
from bot.i18n import available_locales
from bot.ingest import load_records
from bot.match.index import MatchIndex
from bot.records import Record, ranked_workarounds
from bot.render.answer import Shown, render_answer
from bot.render.blocks import Reply
from bot.report import GraphSections, build_report

ROOT = Path(__file__).resolve().parents[2]
VLLM = "llm/vllm-no-available-memory-for-cache-blocks"


@pytest.fixture(scope="module")
def records() -> dict[str, Record]:
    return {r.id: r for r in load_records(sorted((ROOT / "data").glob("*.json")))}


@pytest.fixture(scope="module")
def example() -> str:
    return (ROOT / "data" / "examples" / "vllm-oom.txt").read_text()


@pytest.mark.parametrize(
    ("text", "name", "value"),
    [
        ("vllm serve m --gpu-memory-utilization 0.5 --port 8000", "gpu_memory_utilization", "0.5"),
        ("Namespace(max_num_seqs=256, dtype='auto')", "max_num_seqs", "256"),
        ("java --max-old-space=4096 app", "max_old_space", "4096"),
        ("  gpu_memory_utilization: 0.8", "gpu_memory_utilization", "0.8"),
        ("--enforce-eager --port 1", "enforce_eager", ""),
    ],
)
def test_settings_are_read_as_flags_assignments_and_keys(text: str, name: str, value: str) -> None:
    assert read_settings(text)[name] == value


def test_a_value_of_none_is_no_setting() -> None:
    assert "quantization" not in read_settings("quantization=None, seed=0")


def test_the_example_paste_puts_raising_the_budget_first(
    records: dict[str, Record], example: str
) -> None:
    record = records[VLLM]
    base = ranked_workarounds(record)
    fits = fix_order(record, PasteFacts.of(example))
    raise_budget = next(
        i for i, w in enumerate(record.workarounds) if "gpu-memory-utilization" in w.action
    )
    assert base[0] != raise_budget  # the curated order alone puts it behind "More"
    assert fits.order[0] == raise_budget
    why = fits.why_first()
    assert why is not None and why.subject == "gpu_memory_utilization" and why.pasted == "0.5"


def test_a_paste_already_at_the_advised_value_sinks_that_fix(records: dict[str, Record]) -> None:
    record = records[VLLM]
    raise_budget = next(
        i for i, w in enumerate(record.workarounds) if "gpu-memory-utilization" in w.action
    )
    paste = "vllm serve m --gpu-memory-utilization 0.95\nValueError: No available memory"
    fits = fix_order(record, PasteFacts.of(paste))
    assert fits.order[-1] == raise_budget
    tried = fits.tried(raise_budget)
    assert tried is not None and tried.kind == "tried"


def test_a_paste_that_says_nothing_keeps_the_curated_order(records: dict[str, Record]) -> None:
    record = records[VLLM]
    fits = fix_order(record, PasteFacts.of("ValueError: No available memory for the cache blocks."))
    assert list(fits.order) == ranked_workarounds(record)
    assert fits.why_first() is None


def test_facts_survive_a_stored_reply(example: str) -> None:
    facts = PasteFacts.of(example)
    assert PasteFacts.load(facts.dump()) == facts


@pytest.mark.parametrize("locale", available_locales())
def test_every_surface_says_why_in_the_readers_locale(
    records: dict[str, Record], example: str, locale: str
) -> None:
    index = MatchIndex.build(list(records.values()))
    read = read_paste(example, 60_000)
    report = build_report(
        index.triage(read), index.record, None, locale=locale, counts={}, read=read
    )
    best = report.best
    assert best is not None and best.id == VLLM
    assert best.why_first and "0.5" in best.why_first
    assert "gpu-memory-utilization" in best.workarounds[0].action
    view = Reply(locale=locale, today=date(2026, 12, 1), facts=PasteFacts.of(example))
    message = render_answer([records[VLLM]], view, Shown(), GraphSections(), {})
    Block.parse_all(message["blocks"])
    text = str(message["blocks"])
    assert best.why_first.replace("`", "") in text.replace("`", "")
    if locale == "zh":
        assert "排在最前" in best.why_first


@pytest.mark.parametrize("locale", available_locales())
def test_the_thread_reply_keeps_the_order_when_rendered_again(example: str, locale: str) -> None:
    """What the bot posts (reply arguments stored, then rendered from them) says why."""
    from scripts.starter_answers import knowledge, thread_reply

    outcome, records, payload = thread_reply(knowledge(), example, locale=locale)
    assert outcome == "answer" and records[0] == VLLM
    fix = next(b for b in payload["blocks"] if b["type"] == "section")["text"]["text"]
    assert "0.5" in fix  # the best fix's section says why the paste put it first
    assert ("排在最前" if locale == "zh" else "First because the paste runs") in fix
    assert "0.92" in str(payload["blocks"])  # its command: --gpu-memory-utilization 0.92
