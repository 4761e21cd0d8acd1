from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy.orm import Session

from bot.store.observed import list_observed, observe_error, sightings
from graph.observe import Sighting, transitions_for

T0 = datetime(2024, 6, 1, 12, 0, tzinfo=UTC)
H = timedelta(hours=1)


def pairs(found: list) -> list[tuple[str, str]]:
    return [(t.source_id, t.target_id) for t in found]


def test_earlier_errors_within_the_window_lead_to_the_new_one() -> None:
    prior = [Sighting("a", T0), Sighting("b", T0 + H), Sighting("old", T0 - 30 * H)]
    found = transitions_for(prior, Sighting("c", T0 + 2 * H), window=24 * H)
    assert pairs(found) == [("a", "c"), ("b", "c")]
    assert all(t.seen_at == T0 + 2 * H for t in found)


def test_same_instant_self_and_repeats_are_not_transitions() -> None:
    assert transitions_for([Sighting("a", T0)], Sighting("b", T0)) == []
    assert transitions_for([Sighting("b", T0)], Sighting("b", T0 + H)) == []
    # a → b was counted when b was first seen; pasting b again adds nothing new …
    prior = [Sighting("a", T0), Sighting("b", T0 + H)]
    assert transitions_for(prior, Sighting("b", T0 + 2 * H)) == []
    # … but an error seen after b's last sighting does count
    prior.append(Sighting("c", T0 + 3 * H))
    assert pairs(transitions_for(prior, Sighting("b", T0 + 4 * H))) == [("c", "b")]


def test_the_window_is_inclusive_and_not_negative() -> None:
    assert pairs(transitions_for([Sighting("a", T0)], Sighting("b", T0 + H), window=H)) == [
        ("a", "b")
    ]
    assert transitions_for([Sighting("a", T0)], Sighting("b", T0 + 2 * H), window=H) == []
    with pytest.raises(ValueError):
        transitions_for([], Sighting("b", T0), window=-H)


def test_store_counts_transitions_per_scope(session: Session) -> None:
    assert observe_error(session, scope="t1", record_id="a", seen_at=T0) == []
    assert pairs(observe_error(session, scope="t1", record_id="b", seen_at=T0 + H)) == [("a", "b")]
    observe_error(session, scope="t2", record_id="a", seen_at=T0 + 2 * H)
    observe_error(session, scope="t2", record_id="b", seen_at=T0 + 5 * H)
    observe_error(session, scope="t3", record_id="b", seen_at=T0 + 6 * H)  # other scope: nothing
    observe_error(session, scope="t1", record_id="c", seen_at=T0 + 48 * H)  # out of the window
    (edge,) = list_observed(session)
    assert (edge.source, edge.target, edge.count) == ("a", "b", 2)
    assert (edge.first_seen, edge.last_seen) == (T0 + H, T0 + 5 * H)
    assert [s.record_id for s in sightings(session, scope="t1", since=T0)] == ["a", "b", "c"]


def test_observed_lists_by_count(session: Session) -> None:
    for i, scope in enumerate(["s1", "s2", "s3"]):
        observe_error(session, scope=scope, record_id="x", seen_at=T0 + i * H)
        observe_error(session, scope=scope, record_id="y", seen_at=T0 + i * H + H / 2)
    observe_error(session, scope="s1", record_id="z", seen_at=T0 + 1.2 * H, window=H)
    assert [(e.source, e.target, e.count) for e in list_observed(session)] == [
        ("x", "y", 3),
        ("y", "z", 1),
    ]
    assert [e.target for e in list_observed(session, min_count=2)] == ["y"]
    assert len(list_observed(session, limit=1)) == 1
