"""Learning from use: which transitions a newly seen error implies.

When one scope (a Slack thread, a CLI ``--session``) shows error A and later
error B within a window, A→B is an observed transition. The rule, for a new
sighting of B at time *t*:

- every distinct A ≠ B seen in the scope strictly before *t* and no earlier
  than *t − window* gives one A→B;
- sightings at or before B's own previous sighting in the scope do not count
  again (they were counted then), so pasting B twice does not double A→B;
- errors seen at the same instant (one paste matching several) are not a
  transition; ordering them is triage's job.

Pure: the times come in as parameters.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

DEFAULT_WINDOW = timedelta(hours=24)


@dataclass(frozen=True)
class Sighting:
    record_id: str
    seen_at: datetime


@dataclass(frozen=True)
class ObservedTransition:
    source_id: str
    target_id: str
    seen_at: datetime


def transitions_for(
    prior: Iterable[Sighting], new: Sighting, *, window: timedelta = DEFAULT_WINDOW
) -> list[ObservedTransition]:
    """The transitions A→``new`` to record, given the scope's ``prior`` sightings."""
    if window < timedelta(0):
        raise ValueError("window must not be negative")
    earlier = [s for s in prior if s.seen_at < new.seen_at]
    start = new.seen_at - window
    last_self = max((s.seen_at for s in earlier if s.record_id == new.record_id), default=None)
    if last_self is not None and last_self > start:
        start = last_self
        sources = {s.record_id for s in earlier if s.seen_at > start}
    else:
        sources = {s.record_id for s in earlier if s.seen_at >= start}
    sources.discard(new.record_id)
    return [ObservedTransition(a, new.record_id, new.seen_at) for a in sorted(sources)]
