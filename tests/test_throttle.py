"""A repeated warning logs once at once, then once a period, counting what it stands for."""

from __future__ import annotations

from bot.throttle import LogThrottle


def test_first_occurrence_logs_at_once_then_one_line_a_period_counting_the_rest() -> None:
    now = [100.0]
    throttle = LogThrottle(10.0, clock=lambda: now[0])
    assert throttle.due() == 1
    held = []
    for _ in range(4):
        now[0] += 2.0
        held.append(throttle.due())
    assert held == [0, 0, 0, 0]  # 8 s after the line: still within its period
    now[0] += 2.0
    assert throttle.due() == 5  # the four held back and this one
    assert throttle.due() == 0


def test_a_quiet_period_lets_the_next_occurrence_through_alone() -> None:
    now = [0.0]
    throttle = LogThrottle(5.0, clock=lambda: now[0])
    assert throttle.due() == 1
    now[0] += 60.0
    assert throttle.due() == 1
