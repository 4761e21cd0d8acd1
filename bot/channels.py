"""A channel's own errkb settings, and what they decide. Pure.

A channel is ``on`` (errkb answers every paste it is confident about),
``quiet`` (it answers only when asked: a mention, the shortcut, a DM) or
``off`` (it posts nothing in the channel; ``/errkb`` still answers privately).
Its threshold is the match score errkb needs to answer a paste nobody asked it
about: a preset (:data:`THRESHOLDS`, placed around the ranker's fitted
volunteer point) or a number; ``None`` is the ranker's own point. Someone who
asks is answered from the ranker's lower "ask" point, or the channel's
threshold when that is lower still. With ``alerts`` on, errkb also reads the messages other apps
post there (monitoring alerts) and answers them as it answers pastes nobody asked about.
Its language is the default for people
who chose none and whose Slack language errkb does not speak, and the language
of what errkb posts for the whole channel (a welcome, a follow-up).

``/errkb channel …`` is parsed here (:func:`parse_channel_command`); the
database keeps the settings (``bot.store.channel_repo``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum

from bot.i18n import AUTO, available_locales
from bot.match.features import ASK, VOLUNTEER
from bot.match.rank import Match, Triage


class Mode(StrEnum):
    ON = "on"
    QUIET = "quiet"
    OFF = "off"


#: Named thresholds, strictest first: the score an unasked answer needs. ``normal`` is the
#: ranker's fitted volunteer point; ``strict`` halves its distance to certainty, ``eager``
#: goes half way down to the point at which errkb answers someone who asked.
THRESHOLDS: dict[str, float] = {
    "strict": round(VOLUNTEER + (1 - VOLUNTEER) / 2, 4),
    "normal": VOLUNTEER,
    "eager": round((VOLUNTEER + ASK) / 2, 4),
}
DEFAULT_THRESHOLD = "normal"
#: The range a numeric threshold may take (a score is 0..1; 0 or 1 would mean always or never).
LOWEST = 0.05
HIGHEST = 0.95


@dataclass(frozen=True)
class ChannelSettings:
    """One channel's settings; a channel nobody configured has the defaults."""

    channel: str
    mode: Mode = Mode.ON
    threshold: float | None = None  # None: the ranker's volunteer point (THRESHOLDS["normal"])
    locale: str | None = None  # None: automatic
    updated_by: str | None = None
    alerts: bool = False  # read other apps' monitoring alerts here and answer them like pastes

    @property
    def configured(self) -> bool:
        return self.updated_by is not None

    @property
    def min_score(self) -> float:
        """The score a match needs to be answered here unasked."""
        return THRESHOLDS[DEFAULT_THRESHOLD] if self.threshold is None else self.threshold

    def answer_score(self, *, asked: bool) -> float:
        """The score an answer needs here: :attr:`min_score` unasked; asked, the ranker's
        ask point, or the channel's threshold when that is lower."""
        return min(ASK, self.min_score) if asked else self.min_score

    @property
    def threshold_name(self) -> str | None:
        """The preset the threshold is (``strict``, ``normal``, ``eager``), None for a custom
        number."""
        return next(
            (name for name, score in THRESHOLDS.items() if abs(score - self.min_score) < 1e-9), None
        )

    def may_post(self, *, asked: bool) -> bool:
        """May errkb post in this channel for everyone? ``off``: never; ``quiet``: only when
        asked."""
        return self.mode is Mode.ON or (self.mode is Mode.QUIET and asked)

    def volunteers(self) -> bool:
        """Does errkb answer pastes nobody asked it about?"""
        return self.mode is Mode.ON

    def may_follow_up(self, *, answered_here: bool) -> bool:
        """May errkb come back to a thread to say it now knows an error? Never in an ``off``
        channel; in a ``quiet`` one only in a thread it already spoke in."""
        return self.mode is Mode.ON or (self.mode is Mode.QUIET and answered_here)

    def confident(self, score: float, *, asked: bool = False) -> bool:
        return score >= self.answer_score(asked=asked)

    def answer_matches(self, triage: Triage, *, asked: bool = False) -> list[Match]:
        """The matches to answer with here: the best of each error that reaches the channel's
        score, in paste order (else the best overall when it reaches it)."""
        found = [
            ms[0] for _, ms in triage.per_error if ms and self.confident(ms[0].score, asked=asked)
        ]
        if not found and triage.best is not None and self.confident(triage.best.score, asked=asked):
            found = [triage.best]
        return list({m.record_id: m for m in found}.values())

    def answered(self, triage: Triage, *, asked: bool = False) -> bool:
        """Is the paste answered here, asked or not?"""
        return bool(self.answer_matches(triage, asked=asked))

    def default_locale(self, configured: Mapping[str, str]) -> str | None:
        """The channel's language: its own setting, else the operator's
        (``ERRKB_CHANNEL_LOCALES``)."""
        return self.locale or configured.get(self.channel)


# -- /errkb channel ----------------------------------------------------------------


class Change(StrEnum):
    SHOW = "show"
    MODE = "mode"
    THRESHOLD = "threshold"
    LANG = "lang"
    ALERTS = "alerts"
    USAGE = "usage"


@dataclass(frozen=True)
class ChannelCommand:
    """What ``/errkb channel …`` asks for; ``value`` is the new setting (None: back to the
    default)."""

    change: Change
    value: Mode | float | str | bool | None = None
    problem: str | None = None  # for USAGE: which part was wrong (a catalog key suffix)


def parse_threshold(text: str) -> float | None:
    """``strict``/``normal``/``eager``, ``0.6``, ``60`` or ``60%`` → a score; None when it is none
    of these or out of range."""
    word = text.strip().lower()
    if word in THRESHOLDS:
        return THRESHOLDS[word]
    number = word.removesuffix("%").strip()
    try:
        value = float(number)
    except ValueError:
        return None
    if word.endswith("%") or value > 1:
        value /= 100
    return round(value, 4) if LOWEST <= value <= HIGHEST else None


def parse_channel_command(arg: str) -> ChannelCommand:
    """The words after ``/errkb channel``."""
    words = arg.lower().split()
    if not words:
        return ChannelCommand(Change.SHOW)
    head = words[0]
    rest = words[1:]
    if head in tuple(Mode) and not rest:
        return ChannelCommand(Change.MODE, Mode(head))
    if head == "threshold":
        if len(rest) != 1:
            return ChannelCommand(Change.USAGE, problem="threshold")
        score = parse_threshold(rest[0])
        if score is None:
            return ChannelCommand(Change.USAGE, problem="threshold")
        return ChannelCommand(Change.THRESHOLD, None if rest[0] == DEFAULT_THRESHOLD else score)
    if head in ("lang", "language"):
        choice = rest[0] if len(rest) == 1 else ""
        if choice not in (*available_locales(), AUTO):
            return ChannelCommand(Change.USAGE, problem="lang")
        return ChannelCommand(Change.LANG, None if choice == AUTO else choice)
    if head == "alerts":
        if rest not in (["on"], ["off"]):
            return ChannelCommand(Change.USAGE, problem="alerts")
        return ChannelCommand(Change.ALERTS, rest[0] == "on")
    return ChannelCommand(Change.USAGE)


__all__ = [
    "THRESHOLDS",
    "Change",
    "ChannelCommand",
    "ChannelSettings",
    "Mode",
    "parse_channel_command",
    "parse_threshold",
]
