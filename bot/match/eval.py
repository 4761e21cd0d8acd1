"""Scoring the matcher on labelled pastes, exactly as ``shared/eval/README.md`` says.

- answered = the top match is confident: band high or medium for someone who
  asked (:attr:`Triage.answered`), band high for volunteering unasked
  (:attr:`Triage.volunteer`); each operating point is reported on its own;
- positive case: top-1 hit when answered and the top id is in expected ∪
  acceptable; top-3 hit when any of the first three candidates (any band) is;
  reciprocal rank over the first ten candidates; recall@k: a right id among the
  first k candidates;
- negative case (``expected`` empty): correct when not answered;
- precision: of the cases answered, the share whose top id is right; coverage:
  the share of positive cases answered right;
- candidates: when the top match is not confident enough to answer someone who
  asked, the first three matches at or above the candidate floor
  (:data:`~bot.match.features.OFFER`) are offered as uncertain candidates, and
  none when no error was found; reported as how many were offered, the share of
  them that are right, and the share of negative cases offered any;
  :func:`offer_floor` is the rule that chooses the floor;
- the reader is the case's ``lang``: among equal answers the one in that language
  is preferred (:func:`bot.match.reader.prefer_reader`), as every surface does;
- latency: in-process triage time per paste (median, p99). The timer comes in
  as a parameter (``time.perf_counter`` from the edge).

:func:`curve` gives precision against coverage for every threshold on the top
score, the data of ``errkb eval --plot``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bot.match import features
from bot.match.index import MatchIndex
from bot.match.reader import prefer_reader

RECALL_DEPTH = 30
OFFERED = 3  # candidates an uncertain reply shows
#: the candidate floor's rule: the lowest score at which this share of candidates is right
OFFER_RIGHT = 0.2
OFFER_STEP = 0.01


class Case(BaseModel):
    model_config = ConfigDict(extra="allow")

    id: str
    text: str
    expected: list[str] = Field(default_factory=list)
    acceptable: list[str] = Field(default_factory=list)
    kind: str = ""
    lang: str = "en"
    source: str = ""


@dataclass(frozen=True)
class CaseResult:
    id: str
    positive: bool
    answered: bool  # asked operating point
    volunteered: bool  # volunteer operating point
    top_right: bool  # the top candidate is in expected ∪ acceptable
    top_score: float
    top1: bool
    top3: bool
    reciprocal_rank: float
    rank: int  # 1-based rank of the first right candidate among the first 30, 0 if none
    correct_decline: bool
    ms: float
    top: list[tuple[str, float, str]]  # (id, score, band) of the first three
    #: when not answered: (score, right) of the first three matches, or none when no
    #: error was found in the paste (no candidates are offered then)
    candidates: list[tuple[float, bool]] = field(default_factory=list)


@dataclass(frozen=True)
class Point:
    """Figures at one operating point."""

    threshold: float
    precision: float
    coverage: float
    answered: float  # share of positive cases answered (right or not)
    top1: float
    top3: float
    decline: float


@dataclass(frozen=True)
class Offer:
    """Uncertain candidates offered at a floor, when no answer is confident enough."""

    floor: float
    offered: int  # candidates offered, over all cases
    right: float  # share of those that are right
    pastes: float  # share of the cases that were not answered offered any
    negatives: float  # share of negative cases offered any


@dataclass(frozen=True)
class Report:
    cases: int
    positives: int
    negatives: int
    top1: float
    top3: float
    mrr: float
    decline: float
    recall10: float
    recall30: float
    asked: Point
    volunteer: Point
    candidates: Offer
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
    triage = prefer_reader(index.triage(case.text, limit=RECALL_DEPTH), case.lang, index.record)
    ms = (timer() - start) * 1000
    good = set(case.expected) | set(case.acceptable)
    ids = [m.record_id for m in triage.matches]
    positive = bool(case.expected)
    answered = triage.answered
    rank = next((i + 1 for i, rid in enumerate(ids[:RECALL_DEPTH]) if rid in good), 0)
    top_right = bool(ids) and ids[0] in good
    return CaseResult(
        id=case.id,
        positive=positive,
        answered=answered,
        volunteered=triage.volunteer,
        top_right=positive and top_right,
        top_score=triage.matches[0].score if triage.matches else 0.0,
        top1=positive and answered and top_right,
        top3=positive and 0 < rank <= 3,
        reciprocal_rank=1.0 / rank if positive and 0 < rank <= 10 else 0.0,
        rank=rank if positive else 0,
        correct_decline=not positive and not answered,
        ms=round(ms, 3),
        top=[(m.record_id, m.score, m.band) for m in triage.matches[:3]],
        candidates=[(m.score, m.record_id in good) for m in triage.matches[:OFFERED]]
        if triage.errors and not answered
        else [],
    )


def _share(items: Sequence[bool]) -> float:
    return round(sum(items) / len(items), 4) if items else 0.0


def point(results: Sequence[CaseResult], threshold: float) -> Point:
    """The figures had errkb answered exactly the cases whose top score is ≥ ``threshold``."""
    positives = [r for r in results if r.positive]
    negatives = [r for r in results if not r.positive]
    answered = [r for r in results if r.top_score >= threshold and r.top_score > 0]
    right = [r for r in answered if r.top_right]
    return Point(
        threshold=round(threshold, 4),
        precision=round(len(right) / len(answered), 4) if answered else 1.0,
        coverage=round(len(right) / len(positives), 4) if positives else 0.0,
        answered=_share([r.top_score >= threshold and r.top_score > 0 for r in positives]),
        top1=round(len(right) / len(positives), 4) if positives else 0.0,
        top3=_share([r.top3 for r in positives]),
        decline=_share([not (r.top_score >= threshold and r.top_score > 0) for r in negatives]),
    )


def offer(results: Sequence[CaseResult], floor: float) -> Offer:
    """The candidates offered had the floor been ``floor``."""
    unanswered = [r for r in results if not r.answered]
    shown = {r.id: [right for score, right in r.candidates if score >= floor] for r in unanswered}
    offered = [right for rights in shown.values() for right in rights]
    negatives = [r for r in results if not r.positive]
    return Offer(
        floor=round(floor, 4),
        offered=len(offered),
        right=_share(offered),
        pastes=_share([bool(shown[r.id]) for r in unanswered]),
        negatives=_share([bool(shown.get(r.id)) for r in negatives]),
    )


def offer_floor(results: Sequence[CaseResult], *, right: float = OFFER_RIGHT) -> float:
    """The candidate floor's rule: the lowest score, in steps of :data:`OFFER_STEP`, at
    which at least ``right`` of the candidates offered at or above it are right."""
    steps = round(1 / OFFER_STEP)
    for step in range(1, steps + 1):
        floor = step * OFFER_STEP
        found = offer(results, floor)
        if found.offered and found.right >= right:
            return round(floor, 4)
    return 1.0


def curve(results: Sequence[CaseResult]) -> list[Point]:
    """Precision and coverage at every distinct top score, from strictest to most lenient."""
    thresholds = sorted({r.top_score for r in results if r.top_score > 0}, reverse=True)
    return [point(results, t) for t in thresholds]


def report(results: list[CaseResult]) -> Report:
    """Figures over scored cases: shares of positive (or negative) cases."""
    positives = [r for r in results if r.positive]
    negatives = [r for r in results if not r.positive]
    times = [r.ms for r in results]
    return Report(
        cases=len(results),
        positives=len(positives),
        negatives=len(negatives),
        top1=_share([r.top1 for r in positives]),
        top3=_share([r.top3 for r in positives]),
        mrr=round(sum(r.reciprocal_rank for r in positives) / len(positives), 4)
        if positives
        else 0.0,
        decline=_share([r.correct_decline for r in negatives]),
        recall10=_share([0 < r.rank <= 10 for r in positives]),
        recall30=_share([0 < r.rank <= 30 for r in positives]),
        asked=point(results, features.ASK),
        volunteer=point(results, features.VOLUNTEER),
        candidates=offer(results, features.OFFER),
        median_ms=round(percentile(times, 50), 3),
        p99_ms=round(percentile(times, 99), 3),
        results=results,
    )


def evaluate(index: MatchIndex, cases: Iterable[Case], timer: Callable[[], float]) -> Report:
    """Score every case against ``index``."""
    return report([score_case(index, case, timer) for case in cases])
