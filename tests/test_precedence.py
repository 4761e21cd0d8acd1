"""A knowledge update gives way to the requests being answered, for a bounded time."""

from __future__ import annotations

import threading

import pytest

from bot.precedence import Pause, RequestGate

#: How long a test waits for something that should happen at once (a busy machine is slow).
PATIENCE = 30.0


class TellingCondition(threading.Condition):
    """A condition that says when someone starts waiting on it."""

    def __init__(self, waiting: threading.Event) -> None:
        super().__init__(threading.Lock())
        self._waiting = waiting

    def wait(self, timeout: float | None = None) -> bool:
        self._waiting.set()
        return super().wait(timeout)


def test_an_update_waits_while_a_request_is_in_flight_and_goes_on_when_it_ends() -> None:
    waiting = threading.Event()
    went_on = threading.Event()
    gate = RequestGate(pause_wait=PATIENCE * 4, update_wait=PATIENCE * 4)
    gate._idle = TellingCondition(waiting)  # tells the test when the pause waits
    pause = Pause(gate)

    def update() -> None:
        pause()
        went_on.set()

    updater = threading.Thread(target=update)
    with gate:
        updater.start()
        assert waiting.wait(PATIENCE), "the update never came to wait"
        assert not went_on.wait(0.05), "the update went on while a request was in flight"
    assert went_on.wait(PATIENCE), "the update did not go on once the request ended"
    updater.join(PATIENCE)
    assert pause.waits == 1 and 0 < pause.waited < PATIENCE * 4


def test_a_stream_of_requests_holds_an_update_no_longer_than_its_caps() -> None:
    """Requests back to back, each starting before the last one ends (never none in
    flight): each pause gives up after ``pause_wait``, and once the update has waited
    ``update_wait`` in all its pauses return at once."""
    waits: list[float] = []
    gate = RequestGate(pause_wait=0.02, update_wait=0.1, on_wait=waits.append)
    stop = threading.Event()
    streaming = threading.Event()

    def requests() -> None:
        with gate:
            streaming.set()
            while not stop.is_set():
                with gate:  # the next request comes in ...
                    pass  # ... and the one before ends (the outer one stands for it)
                stop.wait(0.001)

    stream = threading.Thread(target=requests)
    stream.start()
    try:
        assert streaming.wait(PATIENCE)
        pause = Pause(gate)
        updater = threading.Thread(target=lambda: [pause() for _ in range(200)])
        updater.start()
        updater.join(PATIENCE)
        assert not updater.is_alive(), "a stream of requests held the update for good"
    finally:
        stop.set()
        stream.join(PATIENCE)
    # a pause waits only while the budget lasts: all but the last wait fit in it (the last
    # may overrun it by a scheduling delay), and none waits past its own cap by more
    assert waits and sum(waits[:-1]) < 0.1 and pause.left <= 0
    assert all(w < 0.02 + PATIENCE for w in waits)
    assert pause.waits == len(waits) and pause.waited == pytest.approx(sum(waits))


def test_a_pause_with_no_request_in_flight_does_not_wait() -> None:
    waits: list[float] = []
    gate = RequestGate(on_wait=waits.append)
    with gate:
        pass  # a request that has ended
    pause = Pause(gate)
    for _ in range(1000):
        pause()
    assert waits == [] and pause.waits == 0 and pause.waited == 0.0


def test_a_request_that_fails_still_leaves_the_gate() -> None:
    gate = RequestGate()
    with pytest.raises(RuntimeError), gate, gate:  # nested: counted twice
        assert gate.in_flight == 2
        raise RuntimeError("matching failed")
    assert gate.in_flight == 0


def test_each_update_has_a_budget_of_its_own() -> None:
    gate = RequestGate(pause_wait=0.01, update_wait=0.01)
    with gate:
        first = Pause(gate)
        first()
        first()
        second = Pause(gate)
        second()
    assert first.waits == 1 and first.left <= 0
    assert second.waits == 1


def test_an_update_giving_way_stops_mid_way_for_a_paste_and_builds_the_same() -> None:
    """Inside ``giving_way`` an update stops at its next call while a paste is matched
    (the index it replaces answering as before meanwhile), goes on when the paste is
    done, and builds what an update that gives way to nobody builds."""
    from bot.ingest import load_records
    from bot.match.index import MatchIndex
    from tests.conftest import DATA

    records = sorted(load_records([DATA]), key=lambda r: r.id)
    old = MatchIndex.build(records)
    edited = records[3].model_copy(update={"regex": f"{records[3].regex}|FrobnicatorMeltdownError"})
    paste = 'Traceback (most recent call last):\n  File "x.py", line 1\nFrobnicatorMeltdownError'
    before = old.triage(paste)
    waiting = threading.Event()
    built = []
    gate = RequestGate(pause_wait=PATIENCE * 4, update_wait=PATIENCE * 4)
    gate._idle = TellingCondition(waiting)

    def update() -> None:
        with gate.giving_way() as pause:
            built.append(old.update([edited]))
        built.append(pause)

    updater = threading.Thread(target=update)
    with gate:  # a paste being matched
        updater.start()
        assert waiting.wait(PATIENCE), "the update never gave way"
        assert updater.is_alive() and not built, "the update went on while a paste was matched"
        assert old.triage(paste) == before
    updater.join(PATIENCE)
    assert not updater.is_alive()
    updated, pause = built
    assert pause.waits == 1 and pause.waited > 0
    fresh = old.update([edited])
    assert updated.triage(paste) == fresh.triage(paste) != before
    assert [p.id for p in updated.parts] == [p.id for p in fresh.parts]


def test_giving_way_leaves_the_thread_as_it_found_it() -> None:
    """The look at every call is this thread's and this block's only."""
    import sys

    gate = RequestGate()
    before = sys.getprofile()
    with gate.giving_way():
        assert sys.getprofile() is not before
        other: list[object] = []
        thread = threading.Thread(target=lambda: other.append(sys.getprofile()))
        thread.start()
        thread.join(PATIENCE)
        assert other == [before]
    assert sys.getprofile() is before
    with pytest.raises(RuntimeError), gate.giving_way():
        raise RuntimeError("the update failed")
    assert sys.getprofile() is before
