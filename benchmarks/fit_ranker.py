"""Fit the ranker's weights on labelled pastes, and say how well they hold up.

Usage: python benchmarks/fit_ranker.py CASES.jsonl [CASES.jsonl ...]
           [--records FILE] [--fixed NAME,NAME] [--folds K] [--top3 W]

Cases are in the format of ``../shared/eval/dev.jsonl`` (``text``, ``expected``,
``acceptable``). Every case is triaged once against the records (default: the
deadends corpus beside the checkout) and the features of every candidate kept;
scores are then recomputed for any weights without triaging again.

The search is coordinate ascent from the current ``bot.match.rank.WEIGHTS`` (or
``--start``) on the
number of cases scored right (answered with a right record, or declined when
none applies), plus ``--top3`` per positive case with a right record among the
first three, plus a small margin term; every weight keeps the sign its feature
means. It prints the current weights' figures, a k-fold cross-validation of the
search (fit on k-1 folds, score the held-out fold: the figure to trust), and the
weights fitted on all cases. ``--fixed`` keeps priors out of the search.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.ingest import load_records
from bot.match.index import MatchIndex
from bot.match.rank import FEATURES, WEIGHTS

DEADENDS = ROOT.parent / "shared" / "corpora" / "deadends" / "deadends-canons.jsonl.gz"
#: The sign each feature's weight must keep (0: free).
SIGNS = {"regex": 1, "cover": 1, "overlap": 1, "bm25": 1, "env": 1, "explained": 1, "version": 1,
         "bare": -1, "foreign": -1, "offtopic": -1, "absent": -1, "lonely": -1}  # fmt: skip
MOVES = [(0.5, 0), (0.7, 0), (0.85, 0), (1.15, 0), (1.4, 0), (2, 0),
         (1, 0.5), (1, -0.5), (1, 1), (1, -1), (1, 2), (1, -2)]  # fmt: skip


@dataclass
class Case:
    name: str
    source: str
    positive: bool
    features: np.ndarray  # candidates x FEATURES
    right: np.ndarray  # candidate is in expected or acceptable


def load_cases(paths: list[Path], index: MatchIndex) -> list[Case]:
    out = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            good = set(case.get("expected", [])) | set(case.get("acceptable", []))
            matches = index.triage(case["text"], limit=100).matches
            features = np.array([[v for _, v in m.features] for m in matches]).reshape(
                -1, len(FEATURES)
            )
            right = np.array([m.record_id in good for m in matches], dtype=bool)
            out.append(Case(case["id"], path.stem, bool(case.get("expected")), features, right))
    return out


def top(case: Case, w: np.ndarray, b: float, n: int = 1) -> np.ndarray:
    z = b + case.features @ w
    return np.lexsort((np.arange(len(z)), -z))[:n], z


def scored_right(case: Case, w: np.ndarray, b: float) -> bool:
    if not len(case.features):
        return not case.positive
    order, z = top(case, w, b)
    answered = z[order[0]] >= 0
    return bool(answered and case.right[order[0]]) if case.positive else not answered


def objective(cases: list[Case], w: np.ndarray, b: float, top3: float) -> float:
    total = 0.0
    for case in cases:
        total += scored_right(case, w, b)
        if not len(case.features):
            continue
        order, z = top(case, w, b, 3)
        if case.positive:
            total += top3 * bool(case.right[order].any())
            best_right = z[case.right].max() if case.right.any() else -10.0
            best_wrong = z[~case.right].max() if (~case.right).any() else -10.0
            total += 0.05 * math.tanh(min(best_right - best_wrong, best_right))
        else:
            total += 0.05 * math.tanh(-z.max())
    return total


def search(
    cases: list[Case], w: np.ndarray, b: float, fixed: set[str], top3: float
) -> tuple[np.ndarray, float]:
    best = objective(cases, w, b, top3)
    for _ in range(4):
        improved = False
        for k in range(len(w) + 1):
            if k < len(w) and FEATURES[k] in fixed:
                continue
            for scale, shift in MOVES:
                w2, b2 = w.copy(), b
                if k < len(w):
                    w2[k] = w2[k] * scale + shift
                    if SIGNS.get(FEATURES[k], 0) * w2[k] < 0:
                        continue
                else:
                    b2 = b * scale + shift
                value = objective(cases, w2, b2, top3)
                if value > best + 1e-9:
                    best, w, b, improved = value, w2, b2, True
        if not improved:
            break
    return w, b


def figures(cases: list[Case], right: list[bool]) -> str:
    parts = []
    for source in sorted({c.source for c in cases}) + ["all"]:
        picked = [(c, r) for c, r in zip(cases, right, strict=True) if source in ("all", c.source)]
        pos = [r for c, r in picked if c.positive]
        neg = [r for c, r in picked if not c.positive]
        parts.append(f"{source}: top-1 {np.mean(pos) if pos else 0:.3f} ({len(pos)}), "
                     f"declines {np.mean(neg) if neg else 0:.3f} ({len(neg)})")  # fmt: skip
    return "\n  ".join(parts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("cases", nargs="+", type=Path)
    parser.add_argument("--records", type=Path, default=DEADENDS)
    parser.add_argument("--fixed", default="foreign,offtopic,confidence,reviewed,version")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--top3", type=float, default=1.0)
    parser.add_argument("--start", default="{}", help='weights to start from, JSON: {"regex": 4.5}')
    args = parser.parse_args()
    fixed = {f for f in args.fixed.split(",") if f}
    index = MatchIndex.build(load_records([args.records]))
    cases = load_cases(args.cases, index)
    start = {**WEIGHTS, **json.loads(args.start)}
    w0 = np.array([start[f] for f in FEATURES], dtype=float)
    b0 = start["bias"]
    print("starting weights\n  " + figures(cases, [scored_right(c, w0, b0) for c in cases]))
    order = list(range(len(cases)))
    random.Random(0).shuffle(order)
    held_out: dict[int, bool] = {}
    for k in range(args.folds):
        test = set(order[k :: args.folds])
        w, b = search([cases[i] for i in order if i not in test], w0, b0, fixed, args.top3)
        held_out.update({i: scored_right(cases[i], w, b) for i in test})
    print(f"{args.folds}-fold cross-validation of the search\n  "
          + figures(cases, [held_out[i] for i in range(len(cases))]))  # fmt: skip
    w, b = search(cases, w0, b0, fixed, args.top3)
    print("fitted on all cases\n  " + figures(cases, [scored_right(c, w, b) for c in cases]))
    fitted = {
        "bias": round(b, 2),
        **{f: round(float(v), 2) for f, v in zip(FEATURES, w, strict=True)},
    }
    print("weights", json.dumps(fitted))


if __name__ == "__main__":
    main()
