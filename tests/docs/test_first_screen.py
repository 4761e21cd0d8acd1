"""The first-screen figures: where the first screen ends, what is counted, the before figures."""

from __future__ import annotations

from benchmarks.bench_answer import (
    BEFORE,
    COLUMNS,
    first_screen,
    main,
    measure,
    more_actions,
    read_before,
)
from bot.render.ids import ActionId
from scripts.blockkit_html import visible_chars
from scripts.starter_answers import LOCALES, Posted, example_pastes


def _section(text: str) -> dict[str, object]:
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _buttons(*ids: str) -> dict[str, object]:
    return {
        "type": "actions",
        "elements": [
            {"type": "button", "text": {"type": "plain_text", "text": i.title()}, "action_id": i}
            for i in ids
        ],
    }


def test_the_first_screen_ends_before_the_block_holding_more() -> None:
    blocks = [_section("*Cause* it"), _buttons("fixed", "more"), _section("everything else")]
    shown, found = first_screen(blocks, frozenset({"more"}))
    assert shown == blocks[:1] and found
    accessory = {
        **_section("x"),
        "accessory": {
            "type": "button",
            "text": {"type": "plain_text", "text": "More"},
            "action_id": "more",
        },
    }
    assert first_screen([_section("a"), accessory], frozenset({"more"})) == ([_section("a")], True)
    assert first_screen(blocks, frozenset()) == (blocks, False)  # no More control: all of it


def test_characters_are_what_a_reader_sees() -> None:
    blocks = [
        _section("*Fix:* see <https://docs.example/a/very/long/address|docs> &amp; `pip`\nnow")
    ]
    assert visible_chars(blocks) == len("Fix: see docs & pipnow")
    payload = {"text": "errkb: the fix", "blocks": [*blocks, _buttons("fixed")]}
    figures = measure(Posted("x", "en", "answer", ("r",), payload), frozenset())
    assert (figures.blocks, figures.notif, figures.more) == (2, len("errkb: the fix"), False)
    assert figures.chars == len("Fix: see docs & pipnow") + len("Fixed")
    assert figures.mrkdwn > figures.chars and figures.passed


def test_more_controls_are_actionid_members() -> None:
    assert more_actions() <= {a.value for a in ActionId}


def test_the_before_figures_cover_every_starter_example() -> None:
    rows = read_before(BEFORE)
    assert set(rows) == {(p.stem, loc) for p in example_pastes() for loc in LOCALES}
    for row in rows.values():
        assert set(row) == set(COLUMNS) and int(row["blocks"]) > 0 and int(row["chars"]) > 0


def test_the_script_prints_a_row_per_reply_and_the_comparison(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main([]) == 0
    out = capsys.readouterr().out
    for path in example_pastes():
        assert sum(line.startswith(path.stem + " ") for line in out.splitlines()) == 2 * len(
            LOCALES
        )
    assert "Before (docs/first-screen-before.txt) -> now" in out
