"""Scoring the matcher on labelled pastes, exactly as ``shared/eval/README.md`` says.

- answered = the top match is confident (band high or medium);
- positive case: top-1 hit when answered and the top id is in expected ∪
  acceptable; top-3 hit when any of the first three candidates (any band) is;
  reciprocal rank over the first ten candidates;
- negative case (``expected`` empty): correct when not answered;
- latency: in-process triage time per paste (median, p99). The timer comes in
  as a parameter (``time.perf_counter`` from the edge).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bot.match.index import MatchIndex


class Case(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    text: str
    expected: list[str] = Field(default_factory=list)
    acceptable: list[str] = Field(default_factory=list)
    kind: str = ""
    lang: str = "en"


@dataclass(frozen=True)
class CaseResult:
    id: str
    positive: bool
    answered: bool
    top1: bool
    top3: bool
    reciprocal_rank: float
    correct_decline: bool
    ms: float
    top: list[tuple[str, float, str]]  # (id, score, band) of the first three


@dataclass(frozen=True)
class Report:
    cases: int
    positives: int
    negatives: int
    top1: float
    top3: float
    mrr: float
    decline: float
    median_ms: float
    p99_ms: float
    results: list[CaseResult]

    def summary(self, *, verbose: bool = False) -> dict[str, Any]:
        data = asdict(self)
        if not verbose:
            data.pop("results")
        return data


def read_cases(path: Path) -> list[Case]:
    """One case per non-empty line of a JSONL file."""
    with path.open(encoding="utf-8") as handle:
        return [Case.model_validate(json.loads(line)) for line in handle if line.strip()]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile (``q`` in 0..100); 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


def score_case(index: MatchIndex, case: Case, timer: Callable[[], float]) -> CaseResult:
    start = timer()
    triage = index.triage(case.text, limit=10)
    ms = (timer() - start) * 1000
    good = set(case.expected) | set(case.acceptable)
    ids = [m.record_id for m in triage.matches]
    positive = bool(case.expected)
    answered = triage.answered
    rr = next((1.0 / (i + 1) for i, rid in enumerate(ids[:10]) if rid in good), 0.0)
    return CaseResult(
        id=case.id,
        positive=positive,
        answered=answered,
        top1=positive and answered and bool(ids) and ids[0] in good,
        top3=positive and any(rid in good for rid in ids[:3]),
        reciprocal_rank=rr if positive else 0.0,
        correct_decline=not positive and not answered,
        ms=round(ms, 3),
        top=[(m.record_id, m.score, m.band) for m in triage.matches[:3]],
    )


def evaluate(index: MatchIndex, cases: Iterable[Case], timer: Callable[[], float]) -> Report:
    """Score every case; figures are shares of positive (or negative) cases."""
    results = [score_case(index, case, timer) for case in cases]
    positives = [r for r in results if r.positive]
    negatives = [r for r in results if not r.positive]

    def share(items: list[CaseResult], attr: str) -> float:
        return round(sum(float(getattr(r, attr)) for r in items) / len(items), 4) if items else 0.0

    times = [r.ms for r in results]
    return Report(
        cases=len(results),
        positives=len(positives),
        negatives=len(negatives),
        top1=share(positives, "top1"),
        top3=share(positives, "top3"),
        mrr=share(positives, "reciprocal_rank"),
        decline=share(negatives, "correct_decline"),
        median_ms=round(percentile(times, 50), 3),
        p99_ms=round(percentile(times, 99), 3),
        results=results,
    )
