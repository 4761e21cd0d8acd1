"""Requests first: a knowledge update gives way to the requests being answered.

A server answers pastes on its worker threads while an update of the match index
and graph (:class:`~bot.knowledge.LiveKnowledge`) runs on a thread of its own, under
one interpreter lock: run side by side, every paste matched during an update paid
for it (the two threads take turns every switch interval). So requests enter a
:class:`RequestGate` around their matching work (``with gate:``: two lock
operations, nothing more), and an update runs inside :meth:`RequestGate.giving_way`:
on that thread only, every function call the update makes (Python's or C's) first
looks whether a request is in flight and, if one is, waits until none is. An
update thus stops within one call of a request's arrival, wherever it is; only a
single long C call (a numpy step over many postings) runs on, and the code keeps
those short. The pure packages (``bot/match``, ``graph``) know nothing of this.

The look costs the update about half its time again (a call of a small function at
every call it makes: 0.04 -> 0.06 CPU-s an update at 2,522 records), and nothing while
no update runs. Measured with ``benchmarks/bench_knowledge.py`` (pastes arriving at 50
a second while updates run back to back; ``docs/bench_knowledge.txt``): paste p99 during
updates 1.87 times the usual at 2,522 records and 1.35 times at 100,000; paste matching
time alone at p99 (2,522 records) 2.5 ms during updates as without them, against 5.4 ms
when an update only paused between its larger steps.

Waiting is bounded twice, so giving way delays a change by a bounded time however
many pastes come: each wait lasts at most :data:`PAUSE_WAIT`, each update's waits at
most :data:`UPDATE_WAIT` in all; past that the update runs on without looking.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType, TracebackType
from typing import Any

#: Longest one wait for the requests in flight. A paste is matched in 2-3 ms at p99 with
#: 2,500 records, 7-10 ms with 100,000: one wait outlasts the requests under way when it
#: began, and holds an update no longer than that.
PAUSE_WAIT = 0.05
#: Most one update waits in all. A change must be answerable 2 s after its commit: up to
#: 0.5 s until the next poll (``ERRKB_KB_REFRESH_SECONDS``), ~0.4 CPU-s for an update at
#: 100,000 records (giving way included), this, and the rest for the interpreter shared
#: with requests once the budget is spent. (Pastes that never stop would stretch that
#: update past 2 s with or without waiting.)
UPDATE_WAIT = 0.3


class RequestGate:
    """Counts the requests in flight; an update's :class:`Pause` waits for it to reach zero.
    Each update has a budget of its own (:attr:`update_wait`).

    ``on_wait``: told the seconds of each wait (a metric); called on the updating thread.
    """

    def __init__(
        self,
        *,
        pause_wait: float = PAUSE_WAIT,
        update_wait: float = UPDATE_WAIT,
        on_wait: Callable[[float], None] | None = None,
    ) -> None:
        self.pause_wait = pause_wait
        self.update_wait = update_wait
        self._on_wait = on_wait
        self._idle = threading.Condition(threading.Lock())
        self._in_flight = 0

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def __enter__(self) -> RequestGate:
        with self._idle:
            self._in_flight += 1
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        with self._idle:
            self._in_flight -= 1
            if not self._in_flight:
                self._idle.notify_all()

    @contextmanager
    def giving_way(self) -> Iterator[Pause]:
        """Run the block (one update) giving way: on this thread, each call it makes
        first waits while a request is in flight (within one :class:`Pause`'s budget,
        given to the block, which tells how long it waited)."""
        pause = Pause(self)

        def look(frame: FrameType, event: str, arg: Any) -> None:
            if self._in_flight and pause.left > 0:
                pause()

        before = sys.getprofile()
        sys.setprofile(look)  # this thread's only
        try:
            yield pause
        finally:
            sys.setprofile(before)

    def _wait(self, longest: float) -> float:
        """Wait while a request is in flight, ``longest`` seconds at most; the seconds waited."""
        started = time.monotonic()
        deadline = started + longest
        with self._idle:
            while self._in_flight:
                left = deadline - time.monotonic()
                if left <= 0 or not self._idle.wait(left):
                    break
        return time.monotonic() - started


class Pause:
    """Where an update gives way: called on the updating thread only, it waits while a
    request is in flight (:meth:`RequestGate.giving_way` calls it at every call)."""

    def __init__(self, gate: RequestGate) -> None:
        self._gate = gate
        self.left = gate.update_wait
        self.waited = 0.0  # seconds, in all
        self.waits = 0  # pauses that found a request in flight

    def __call__(self) -> None:
        gate = self._gate
        if not gate.in_flight or self.left <= 0:  # the usual case: nobody to give way to
            return
        waited = gate._wait(min(gate.pause_wait, self.left))
        self.left -= waited
        self.waited += waited
        self.waits += 1
        if gate._on_wait is not None:
            gate._on_wait(waited)


__all__ = ["PAUSE_WAIT", "UPDATE_WAIT", "Pause", "RequestGate"]
