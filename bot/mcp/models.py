"""What the MCP tools return, as pydantic models (agents get their JSON schema). Pure.

``triage`` returns :class:`bot.report.TriageReport` and ``show`` a
:class:`bot.report.AnswerRecord`, the same models ``errkb triage --json`` prints;
the models here are for the other tools.
"""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field


class SearchHit(BaseModel):
    id: str
    score: float
    domain: str
    signature: str


class SearchResult(BaseModel):
    words: str
    hits: list[SearchHit] = Field(description="Best first.")


class Node(BaseModel):
    id: str
    label: str = Field(description="The error's signature in the locale asked for, or its id.")
    layer: int = Field(
        description="0 the record asked about, -n n hops before it, +n n hops after."
    )
    score: float = Field(description="Best path probability to or from the record.")
    placeholder: bool = Field(description="Referenced but not (yet) in the knowledge base.")


class Edge(BaseModel):
    source: str
    target: str
    kind: Literal["leads_to", "frequently_confused_with"]
    probability: float | None
    conditions: list[str]


class Observed(BaseModel):
    source: str
    target: str
    count: int
    first_seen: str
    last_seen: str


class Neighbours(BaseModel):
    """A record's neighbourhood in the transition graph."""

    centre: str
    depth: int
    locale: str
    nodes: list[Node]
    edges: list[Edge]
    left_out: int = Field(description="Nodes within reach that were not listed.")
    observed: list[Observed] = Field(description="Transitions seen in use, not curated.")


class StaleRecord(BaseModel):
    id: str
    domain: str
    signature: str
    last_confirmed: date | None
    threshold_days: int
    days_overdue: int
    score: float
    matches: int = Field(description="Times matched in Slack in the last 30 days.")
    leads_in: int = Field(description="Distinct errors that lead to it.")
    why: str = Field(description="Why it ranks where it does, in the locale asked for.")


class StaleList(BaseModel):
    """Records nobody has confirmed for too long, most important first."""

    today: date
    domain: str | None
    total: int = Field(
        description="How many records are stale (more than listed when over the limit)."
    )
    records: list[StaleRecord]


class Outcome(BaseModel):
    """What errkb noted about a workaround, and its counts after the note."""

    record_id: str
    workaround: int
    action: str
    verdict: Literal["fixed", "failed"]
    changed: bool = Field(description="False when this client had already said the same here.")
    previous: Literal["fixed", "failed"] | None
    fixed: int
    failed: int
    client: str


__all__ = [
    "Edge",
    "Neighbours",
    "Node",
    "Observed",
    "Outcome",
    "SearchHit",
    "SearchResult",
    "StaleList",
    "StaleRecord",
]
