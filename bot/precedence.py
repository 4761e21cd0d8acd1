"""Requests first: a knowledge update gives way to the requests being answered.

A server answers pastes on its worker threads while an update of the match index
and graph (:class:`~bot.knowledge.LiveKnowledge`) runs on a thread of its own, under
one interpreter lock: run side by side, every paste matched during an update paid
for it. So requests enter a :class:`RequestGate` around their matching work
(``with gate:``: two lock operations, nothing more), and an update calls a
:class:`Pause` between its steps (changed records, segments, BM25 arrays, variant
groups, graph edges, PageRank iterations): while any request is in flight, the pause
waits until none is.

Measured with ``benchmarks/bench_knowledge.py --in-process`` (2,522 records, pastes
and updates each back to back, 2 busy CPUs): paste p99 during updates 3.0-4.6 times
the usual, from 3.6-5.8 without giving way; the pastes slowed over twice their usual
time are about 15 of 400, from 50-100. What still slows them is the steps with no
pause inside: the BM25 updates (at 100,000 records ~0.1 and ~0.4 CPU-s) and a
segment's rebuild (~15 ms).

Waiting is bounded twice, so giving way delays a change by a bounded time however
many pastes come: each pause waits at most :data:`PAUSE_WAIT`, each update at most
:data:`UPDATE_WAIT` in all; past that its pauses return at once. The pure packages
(``bot/match``, ``graph``) know nothing of this: they are handed a pause, a callable
of no arguments.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from types import TracebackType

#: Longest one pause waits for the requests in flight. A paste is matched in 2 ms at p99
#: with 2,500 records, 6-8 ms with 100,000 (20-26 ms while an update runs): one pause
#: outlasts the requests under way when it began, and holds an update no longer than that.
PAUSE_WAIT = 0.05
#: Most one update waits in all. A change must be answerable 2 s after its commit: up to
#: 0.5 s until the next poll (``ERRKB_KB_REFRESH_SECONDS``), ~0.7 CPU-s for an update at
#: 100,000 records, this, and ~0.5 s left for the interpreter shared with requests
#: between pauses. (Pastes that never stop, each taking the interpreter half the time,
#: would stretch that update past 2 s with or without waiting.)
UPDATE_WAIT = 0.3


class RequestGate:
    """Counts the requests in flight; an update's :class:`Pause` waits for it to reach zero.

    ``on_wait``: told the seconds of each wait (a metric); called on the updating thread.
    """

    def __init__(
        self,
        *,
        pause_wait: float = PAUSE_WAIT,
        update_wait: float = UPDATE_WAIT,
        on_wait: Callable[[float], None] | None = None,
    ) -> None:
        self.pause_wait, self.update_wait = pause_wait, update_wait
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

    def update_pause(self) -> Pause:
        """The pause of one update, with a budget of its own (:attr:`update_wait`)."""
        return Pause(self)

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
    """Where an update gives way: called between its steps, on the updating thread only."""

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
