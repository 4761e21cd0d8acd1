"""Channel settings and what they decide (pure): modes, thresholds, ``/errkb channel`` parsing."""

from __future__ import annotations

import pytest

from bot.channels import (
    THRESHOLDS,
    Change,
    ChannelSettings,
    Mode,
    parse_channel_command,
    parse_threshold,
)
from bot.match.features import ASK, VOLUNTEER
from bot.match.rank import Match, Triage


def _match(record: str, score: float, error: int = 0) -> Match:
    band = "high" if score >= VOLUNTEER else "medium" if score >= ASK else "low"
    return Match(record, score, band, error, "E: x", 1, ())


def _triage(*per_error: list[Match]) -> Triage:
    matches = tuple(sorted((m for ms in per_error for m in ms), key=lambda m: -m.score))
    return Triage(
        errors=(),
        matches=matches,
        per_error=tuple((i, tuple(ms)) for i, ms in enumerate(per_error)),
    )


def test_a_channel_nobody_configured_answers_at_the_rankers_own_points() -> None:
    here = ChannelSettings("C1")
    assert here.mode is Mode.ON and not here.configured
    assert here.min_score == VOLUNTEER and here.threshold_name == "normal"
    assert here.answer_score(asked=False) == VOLUNTEER and here.answer_score(asked=True) == ASK
    assert here.may_post(asked=False) and here.volunteers()
    assert THRESHOLDS["strict"] > VOLUNTEER > THRESHOLDS["eager"] > ASK


@pytest.mark.parametrize(
    ("mode", "unasked", "asked", "follow_up_elsewhere", "follow_up_answered"),
    [
        (Mode.ON, True, True, True, True),
        (Mode.QUIET, False, True, False, True),
        (Mode.OFF, False, False, False, False),
    ],
)
def test_modes_decide_who_errkb_answers(
    mode: Mode, unasked: bool, asked: bool, follow_up_elsewhere: bool, follow_up_answered: bool
) -> None:
    here = ChannelSettings("C1", mode)
    assert here.may_post(asked=False) is unasked
    assert here.may_post(asked=True) is asked
    assert here.volunteers() is (mode is Mode.ON)
    assert here.may_follow_up(answered_here=False) is follow_up_elsewhere
    assert here.may_follow_up(answered_here=True) is follow_up_answered


def test_the_threshold_decides_which_errors_are_answered_unasked() -> None:
    strong = THRESHOLDS["strict"] + 0.01
    middling = VOLUNTEER + 0.01
    weak = THRESHOLDS["eager"] + 0.01
    triage = _triage(
        [_match("a/strong", strong)], [_match("b/middling", middling)], [_match("c/weak", weak)]
    )
    assert [
        m.record_id
        for m in ChannelSettings("C1", threshold=THRESHOLDS["strict"]).answer_matches(triage)
    ] == ["a/strong"]
    assert [m.record_id for m in ChannelSettings("C1").answer_matches(triage)] == [
        "a/strong",
        "b/middling",
    ]
    eager = ChannelSettings("C1", threshold=THRESHOLDS["eager"])
    assert [m.record_id for m in eager.answer_matches(triage)] == [
        "a/strong",
        "b/middling",
        "c/weak",
    ]
    only_weak = _triage([_match("c/weak", weak)])
    assert not ChannelSettings("C1").answered(only_weak) and eager.answered(only_weak)


def test_someone_who_asks_is_answered_from_the_ask_point_or_a_lower_threshold() -> None:
    asked_for = _triage([_match("d/plausible", ASK + 0.01)])
    strict = ChannelSettings("C1", threshold=THRESHOLDS["strict"])
    assert not strict.answered(asked_for) and strict.answered(asked_for, asked=True)
    below_ask = _triage([_match("e/faint", ASK - 0.05)])
    assert not ChannelSettings("C1").answered(below_ask, asked=True)
    assert ChannelSettings("C1", threshold=round(ASK - 0.1, 2)).answered(below_ask, asked=True)


def test_a_custom_threshold_has_no_preset_name() -> None:
    assert ChannelSettings("C1", threshold=0.62).threshold_name is None
    assert ChannelSettings("C1", threshold=THRESHOLDS["strict"]).threshold_name == "strict"


def test_the_channels_language_comes_before_the_operators() -> None:
    assert ChannelSettings("C1", locale="zh").default_locale({"C1": "en"}) == "zh"
    assert ChannelSettings("C1").default_locale({"C1": "en"}) == "en"
    assert ChannelSettings("C2").default_locale({"C1": "en"}) is None


@pytest.mark.parametrize(
    ("text", "score"),
    [
        ("strict", THRESHOLDS["strict"]),
        ("EAGER", THRESHOLDS["eager"]),
        ("0.6", 0.6),
        ("60", 0.6),
        ("62%", 0.62),
        ("5%", 0.05),
        ("0.96", None),
        ("0", None),
        ("100", None),
        ("lots", None),
        ("", None),
    ],
)
def test_thresholds_are_presets_or_percentages_within_range(text: str, score: float | None) -> None:
    assert parse_threshold(text) == score


@pytest.mark.parametrize(
    ("arg", "change", "value", "problem"),
    [
        ("", Change.SHOW, None, None),
        ("quiet", Change.MODE, Mode.QUIET, None),
        ("OFF", Change.MODE, Mode.OFF, None),
        ("threshold strict", Change.THRESHOLD, THRESHOLDS["strict"], None),
        ("threshold normal", Change.THRESHOLD, None, None),  # back to the default
        ("threshold 90%", Change.THRESHOLD, 0.9, None),
        ("threshold", Change.USAGE, None, "threshold"),
        ("threshold 300", Change.USAGE, None, "threshold"),
        ("lang zh", Change.LANG, "zh", None),
        ("language auto", Change.LANG, None, None),
        ("lang klingon", Change.USAGE, None, "lang"),
        ("on please", Change.USAGE, None, None),
        ("volume 11", Change.USAGE, None, None),
    ],
)
def test_channel_command_parsing(
    arg: str, change: Change, value: object, problem: str | None
) -> None:
    parsed = parse_channel_command(arg)
    assert (parsed.change, parsed.value, parsed.problem) == (change, value, problem)
