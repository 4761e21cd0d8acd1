"""The clock errkb reads: the one place that asks the system for the time.

The edges (the Slack app, the command line, the agents' server, the store's checks)
take a :class:`Clock` and read it; the pure code is handed the time they read, as a
parameter. A test passes a clock of its own to fix the date.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    """The system's time, in UTC."""

    def now(self) -> datetime:
        return datetime.now(UTC)


class FixedClock:
    """Reads ``value`` until it is set again: a command that read the time once dates all
    it does alike with it, and a test sets the date it needs."""

    def __init__(self, value: datetime) -> None:
        self.value = value

    def now(self) -> datetime:
        return self.value


#: The system clock, for whoever has none handed in.
SYSTEM_CLOCK = SystemClock()
