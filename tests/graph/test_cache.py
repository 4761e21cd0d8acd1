from __future__ import annotations

from graph.cache import GraphCache
from tests.graph.conftest import rec


def test_the_graph_is_rebuilt_only_when_the_counter_moves() -> None:
    loads = []

    def load():  # type: ignore[no-untyped-def]
        loads.append(1)
        return [rec("g/a", leads_to=["g/b"]), rec("g/b")], []

    cache = GraphCache()
    first = cache.get(1, load)
    assert cache.get(1, load) is first and len(loads) == 1
    second = cache.get(2, load)
    assert second is not first and len(loads) == 2 and cache.version == 2
