"""The live knowledge base swaps in rebuilt indexes without ever blocking answers."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from bot.knowledge import LiveKnowledge
from bot.records import Record
from tests.match.conftest import SMALL


def _loader(state: dict[str, Any]) -> Any:
    def load() -> tuple[int, Sequence[Record], Sequence[Any]]:
        state["gate"].wait(5)
        if state.get("fail"):
            raise RuntimeError("database down")
        return state["version"], list(state["records"]), []

    return load


def test_answers_come_from_the_old_index_while_a_rebuild_runs() -> None:
    state: dict[str, Any] = {"version": 1, "records": SMALL[:2], "gate": threading.Event()}
    state["gate"].set()
    live = LiveKnowledge(_loader(state), lambda: state["version"], poll_seconds=60)
    assert live.refresh() is True and live.refresh() is False  # nothing changed the second time
    first = live.index.current()
    assert first is not None and first.record("java/npe/jdk17") is None

    state.update(version=2, records=SMALL)
    state["gate"].clear()  # the reload hangs, as on a slow database
    rebuild = threading.Thread(target=live.refresh)
    rebuild.start()
    assert live.index.current() is first  # answering does not wait for it
    assert live.graph.current() is not None
    state["gate"].set()
    rebuild.join(5)
    current = live.index.current()
    assert current is not first and current is not None and current.record("java/npe/jdk17") is not None


def test_a_failed_rebuild_keeps_serving_the_last_good_index() -> None:
    state: dict[str, Any] = {"version": 1, "records": SMALL, "gate": threading.Event()}
    state["gate"].set()
    live = LiveKnowledge(_loader(state), lambda: state["version"], poll_seconds=60)
    live.refresh()
    good = live.index.current()
    state.update(version=2, fail=True)
    try:
        live.refresh()
    except RuntimeError:
        pass
    assert live.index.current() is good and live.records == len(SMALL)
