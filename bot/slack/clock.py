"""The clock the Slack edge reads: injected, so tests can fix the date."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    def now(self) -> datetime:
        return datetime.now(UTC)


def today(clock: Clock) -> date:
    return clock.now().date()
