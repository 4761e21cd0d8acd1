"""The live index swaps in a rebuilt index without blocking answers."""

from __future__ import annotations

import threading
from collections.abc import Sequence

from bot.match.index import MatchIndex
from bot.match.live import LiveIndex
from bot.records import Record

from .conftest import SMALL


def test_rebuilds_in_the_background_and_keeps_serving_the_old_index() -> None:
    version = [1]
    records = [SMALL[:2]]
    gate = threading.Event()

    def loader() -> tuple[int, list[Record]]:
        return version[0], list(records[0])

    def build(recs: Sequence[Record]) -> MatchIndex:
        if len(recs) > 2:
            gate.wait(5)
        return MatchIndex.build(recs)

    live = LiveIndex(loader, lambda: version[0], build=build)
    assert live.refresh() is False
    version[0], records[0] = 2, SMALL
    assert live.refresh() is True
    # the rebuild is blocked: answers still come from version 1, without waiting
    assert live.version == 1 and live.current.record("java/npe/jdk17") is None
    assert live.triage("java.lang.NullPointerException").best is None or live.version == 1
    gate.set()
    live.wait(5)
    assert live.version == 2 and live.current.record("java/npe/jdk17") is not None


def test_failed_rebuild_keeps_the_old_index() -> None:
    version = [1]

    def loader() -> tuple[int, list[Record]]:
        if version[0] > 1:
            raise RuntimeError("database down")
        return 1, list(SMALL)

    live = LiveIndex(loader, lambda: version[0])
    version[0] = 2
    live.refresh()
    live.wait(5)
    assert live.version == 1 and isinstance(live.last_error, RuntimeError)
