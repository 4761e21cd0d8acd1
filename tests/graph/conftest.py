"""Small hand-made graphs for the graph tests."""

from __future__ import annotations

from typing import Any

import pytest

from bot.records import Record
from graph.build import KnowledgeGraph, build_graph


def rec(record_id: str, signature: str | None = None, **links: Any) -> Record:
    """A minimal record; ``links`` are transition-graph lists (ids or objects)."""
    extra = {k: links.pop(k) for k in list(links) if k.startswith("signature_")}
    signature = signature or f"Error: {record_id}"
    return Record(
        id=record_id,
        signature=signature,
        regex=record_id.replace("/", "."),
        domain="test",
        transition_graph=links,
        **extra,
    )


def to(
    target: str, probability: float | None = None, condition: str | None = None
) -> dict[str, Any]:
    return {"error_id": target, "probability": probability, "condition": condition}


@pytest.fixture
def chain() -> KnowledgeGraph:
    """root → mid → leaf (0.9, 0.8), a weak direct root → leaf (0.1), and side → leaf (0.5)."""
    return build_graph(
        [
            rec("t/root", leads_to=[to("t/mid", 0.9), to("t/leaf", 0.1)]),
            rec("t/mid", leads_to=[to("t/leaf", 0.8, "after a retry")]),
            rec("t/leaf", preceded_by=[to("t/side", 0.5)]),
            rec("t/side"),
        ]
    )
