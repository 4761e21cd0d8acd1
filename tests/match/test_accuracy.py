"""Issue 3's bar on shared/eval/dev.jsonl with the 2,522 deadends records."""

from __future__ import annotations

import time
from typing import Any

import pytest

from bot.match.eval import evaluate, percentile, read_cases
from bot.match.index import MatchIndex

from .conftest import DEV_CASES

pytestmark = pytest.mark.shared


def _report(index: MatchIndex) -> dict[str, Any]:
    if not DEV_CASES.exists():
        pytest.skip("../shared corpora not present")
    return evaluate(index, read_cases(DEV_CASES), time.perf_counter).summary()


def test_dev_set_does_not_regress(deadends_index: MatchIndex) -> None:
    """Floor at what the engine measures today (top-1 0.84, top-3 0.96, declines 0.75).

    The weights are fitted on this set and six held-out sets together (see
    rank.WEIGHTS), so this floor guards against regressions, not overfitting."""
    report = _report(deadends_index)
    assert report["top1"] >= 0.83
    assert report["top3"] >= 0.95
    assert report["decline"] >= 0.74
    assert report["median_ms"] <= 20.0 and report["p99_ms"] <= 100.0  # generous: shared CI machines


@pytest.mark.xfail(strict=True, reason="issue 3 target not met yet: top-1 0.84 < 0.90")
def test_dev_set_meets_the_accuracy_targets(deadends_index: MatchIndex) -> None:
    """Latency targets are measured by errkb eval and benchmarks/bench_match.py, not here."""
    report = _report(deadends_index)
    print(report)
    assert report["top1"] >= 0.90
    assert report["top3"] >= 0.95
    assert report["decline"] >= 0.75


def test_percentile_is_nearest_rank() -> None:
    assert percentile([5.0, 1.0, 3.0], 50) == 3.0
    assert percentile([], 99) == 0.0
    assert percentile([float(i) for i in range(1, 101)], 99) == 99.0
