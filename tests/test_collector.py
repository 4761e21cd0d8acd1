"""The cyclic collector held off, and what was made meanwhile frozen before it resumes."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from bot.collector import collector_off


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """Whatever a test freezes is collectable again after it."""
    yield
    gc.unfreeze()


@pytest.mark.usefixtures("unfrozen")
def test_what_was_made_with_the_collector_off_is_frozen_before_it_resumes() -> None:
    before = gc.get_freeze_count()
    with collector_off(freeze=True):
        assert not gc.isenabled()
        made = [[n] for n in range(1000)]
        # nothing collected in between: the youngest generation still holds all of it
        assert gc.get_count()[0] >= len(made)
    assert gc.isenabled()
    assert gc.get_freeze_count() >= before + len(made)
    assert gc.get_count()[0] < len(made)


@pytest.mark.usefixtures("unfrozen")
def test_the_collector_stays_off_inside_an_outer_block_and_only_freezes_when_asked() -> None:
    before = gc.get_freeze_count()
    with collector_off():
        with collector_off(freeze=True):
            pass
        assert not gc.isenabled()
        frozen = gc.get_freeze_count()
        with collector_off():
            kept = [[n] for n in range(100)]
        # not frozen: in a generation the collector walks (a frozen object is in
        # none, and the freeze count alone also drops whenever a frozen object dies)
        assert any(obj is kept for obj in gc.get_objects())
        assert gc.get_freeze_count() <= frozen
    assert gc.isenabled() and frozen >= before
