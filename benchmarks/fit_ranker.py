"""Fit the ranker's weights and operating points on the labelled sets, and say how well
they hold up on pastes they were not fitted on.

Usage: python benchmarks/fit_ranker.py [SET.jsonl ...] [--folds K] [--write]

Sets default to every ``eval/*.jsonl``; a set named ``starter*`` is scored against the
starter knowledge base (``data/``), any other against the deadends corpus beside the
checkout (``../shared/corpora/deadends``). Each paste is triaged once and every
candidate's feature values kept (``MatchIndex.feature_rows``); a candidate is right when
its id is in the case's expected ∪ acceptable.

The weights are scikit-learn's L2 logistic regression on pairs of candidates of one
paste, a right one against a wrong one (the difference of their feature values), so
they rank; no intercept, no starting point but the regularisation's prior of zero. A
weight whose sign contradicts what its feature means (:attr:`Feature.sign`) drops that
feature and the model is refitted without it. The calibration, a second logistic
regression of "the top candidate is right" on its ranking score, its margin over the
next rival and the values of the features declared with a ``confidence`` weight, is
fitted on the top candidates of pastes the weights were not fitted on (inner folds),
negatives included; a confidence weight whose sign contradicts its feature's drops that
term and the calibration is refitted without it. Two operating points are then chosen
on those scores: ``VOLUNTEER``, the lowest
threshold whose precision is at least ``--precision`` (few wrong unasked answers), and
``ASK``, the threshold that gets the most pastes right (a right top answer, or a
decline when no record applies).

Nested cross-validation gives the figures to trust: the pastes are split into K folds;
for each, the regularisation strength and both thresholds are chosen by an inner
cross-validation on the other K-1 folds alone, the model is fitted from scratch on those
folds, and the held-out fold is scored. Then the same procedure on all pastes gives the
shipped constants; ``--write`` writes them into ``bot/match/features.py``.

The same nested cross-validation runs a second time with folds grouped so that no two
folds share a source repository or an ecosystem, inner folds included, so the figures
say how the weights, the calibration and the thresholds hold up on projects and
ecosystems the fit has not seen. A case's repository is ``OWNER/REPO`` of its
``source`` URL on github.com (lower-cased; any other URL counts as its host and first
path segment). Its ecosystem is the domain of its first expected record (the id up to
its first ``/``), else of its first acceptable record, else, for a paste no record
answers, its own ``expected_domain``; lower-cased and read through :data:`ECOSYSTEMS`,
which names one ecosystem that the two knowledge bases spell differently
(``k8s`` and ``kubernetes``). Cases linked by a shared repository or ecosystem form one
group (connected components), and groups are dealt whole to the folds, largest first,
each to the fold with the fewest cases so far: a group larger than a fold's share makes
a fold of its own, and the fold list says so. Both runs are printed side by side, per
set and per ecosystem.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

# One BLAS thread: with several, a sum's order follows the threads' timing, and on a busy
# machine the fit's near-ties (two regularisation strengths scoring alike) came out
# either way. Set before numpy loads the library.
for _threads in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_threads, "1")

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bot.ingest import load_records
from bot.match import features as F
from bot.match.index import MatchIndex

DEADENDS = ROOT.parent / "shared" / "corpora" / "deadends" / "deadends-canons.jsonl.gz"
STARTER = ROOT / "data"
C_GRID = [0.03, 0.1, 0.3, 1.0, 3.0]
#: Domain names that are one ecosystem, spelt differently by the knowledge bases.
ECOSYSTEMS = {
    "k8s": "kubernetes",
    "postgres": "database",
    "postgresql": "database",
    "mysql": "database",
    "mongo": "mongodb",
    "ci": "cicd",
    "tf": "tensorflow",
    "es": "elasticsearch",
    "libcudart": "cuda",
    "cublas": "cuda",
    "pip": "python",
    "gradle": "java",
    "maven": "java",
    "kotlin": "java",
}


@dataclass
class Case:
    name: str
    source: str  # the set it comes from
    positive: bool
    repo: str  # the repository its paste was copied from
    ecosystem: str
    ids: list[str]
    groups: list[int]
    values: np.ndarray  # candidates x features
    right: np.ndarray  # candidate is in expected or acceptable


def load(paths: list[Path]) -> list[Case]:
    indexes: dict[str, MatchIndex] = {}
    out = []
    for path in paths:
        kb = "starter" if path.name.startswith("starter") else "deadends"
        if kb not in indexes:
            source = sorted(STARTER.glob("*.json")) if kb == "starter" else [DEADENDS]
            indexes[kb] = MatchIndex.build(load_records(source))
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            case = json.loads(line)
            good = set(case.get("expected", [])) | set(case.get("acceptable", []))
            ids, groups, values = indexes[kb].feature_rows(case["text"])
            # by id: the pairs a paste gives (:func:`pairs`, capped) and ties follow the
            # candidates' order, which is the index's business, not the fit's
            order = sorted(range(len(ids)), key=ids.__getitem__)
            ids, groups, values = [ids[i] for i in order], [groups[i] for i in order], values[order]
            right = np.array([i in good for i in ids], dtype=bool)
            out.append(
                Case(
                    case["id"],
                    path.stem,
                    bool(case.get("expected")),
                    repository(case.get("source", "")),
                    ecosystem(case),
                    ids,
                    groups,
                    values,
                    right,
                )
            )
    return out


def repository(url: str) -> str:
    """``owner/repo`` of a github.com URL; any other URL's host and first path segment."""
    found = re.match(r"(?:https?://)?(?:www\.)?github\.com/([^/#?]+)/([^/#?]+)", url.strip())
    if found:
        return f"{found[1]}/{found[2].removesuffix('.git')}".lower()
    other = re.match(r"(?:https?://)?([^/#?]+)(/[^/#?]*)?", url.strip())
    return "".join(part for part in other.groups() if part).lower() if other else url


def ecosystem(case: dict[str, object]) -> str:
    """The domain of the case's first expected (else acceptable) record; a negative's own
    ``expected_domain``; synonyms read through :data:`ECOSYSTEMS`."""
    ids = [*case.get("expected", []), *case.get("acceptable", [])]  # type: ignore[misc]
    domain = str(ids[0]).split("/")[0] if ids else str(case.get("expected_domain") or "none")
    domain = domain.strip().lower()
    return ECOSYSTEMS.get(domain, domain)


# -- the model -------------------------------------------------------------------------


#: Which columns have a confidence weight (:attr:`Feature.confidence`), and their signs.
CONFIDENT = np.array([f.confidence is not None for f in F.REGISTRY])
SIGNS = np.array([f.sign for f in F.REGISTRY])


@dataclass
class Model:
    weights: np.ndarray
    calibration: tuple[float, float, float]  # (bias, ranking score, margin)
    c: float
    confidence: np.ndarray  # each feature's weight in the calibration (0: none)

    def ranking(self, case: Case) -> tuple[np.ndarray, np.ndarray]:
        scores = case.values @ self.weights
        return scores, F.margins(scores, np.array(case.groups))

    def scores(self, case: Case) -> np.ndarray:
        ranking, margins = self.ranking(case)
        bias, slope, margin = self.calibration
        z = bias + slope * ranking + margin * margins + case.values @ self.confidence
        return 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))


def pairs(cases: list[Case], cap: int = 40) -> tuple[np.ndarray, np.ndarray]:
    """Differences of a right and a wrong candidate of one paste (both ways round)."""
    rows = []
    for case in cases:
        if not case.right.any() or case.right.all():
            continue
        right = case.values[case.right]
        wrong = case.values[~case.right][:cap]
        diff = (right[:, None, :] - wrong[None, :, :]).reshape(-1, right.shape[1])
        rows.append(diff)
    x = np.vstack(rows)
    return np.vstack([x, -x]), np.concatenate([np.ones(len(x)), np.zeros(len(x))])


def fit_weights(cases: list[Case], c: float) -> np.ndarray:
    """Ranking weights: logistic regression on pairs, signs held by elimination."""
    from sklearn.linear_model import LogisticRegression

    x, y = pairs(cases)
    signs = SIGNS
    active = x.std(axis=0) > 1e-9  # a feature that never tells two candidates apart
    while True:
        model = LogisticRegression(C=c, max_iter=5000, fit_intercept=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model.fit(x[:, active], y)
        weights = np.zeros(len(signs))
        weights[active] = model.coef_[0]
        wrong = active & (weights * signs < 0)
        if not wrong.any():
            return weights
        active &= ~wrong


Top = tuple[float, float, bool, np.ndarray]  # ranking score, margin, right, features


def fit_calibration(tops: list[Top]) -> tuple[tuple[float, float, float], np.ndarray]:
    """Logistic calibration of the top candidate's (ranking score, margin, confidence
    features) → right; a confidence weight against its feature's sign drops that term."""
    from sklearn.linear_model import LogisticRegression

    y = np.array([r for _, _, r, _ in tops])
    confidence = np.zeros(len(F.REGISTRY))
    if y.all() or not y.any():
        return (0.0, 1.0, 1.0), confidence
    base = np.array([[s, m] for s, m, _, _ in tops])
    values = np.array([v for _, _, _, v in tops])
    active = CONFIDENT & (values.std(axis=0) > 1e-9)
    while True:
        model = LogisticRegression(C=1.0, max_iter=5000)
        model.fit(np.hstack([base, values[:, active]]), y)
        coef = model.coef_[0]
        confidence = np.zeros(len(F.REGISTRY))
        confidence[active] = coef[2:]
        wrong = active & (confidence * SIGNS < 0)
        if not wrong.any():
            calibration = (float(model.intercept_[0]), float(coef[0]), float(coef[1]))
            return calibration, confidence
        active &= ~wrong


def top_row(case: Case, weights: np.ndarray) -> Top | None:
    if not len(case.values):
        return None
    scores = case.values @ weights
    margins = F.margins(scores, np.array(case.groups))
    best = int(np.lexsort((np.arange(len(scores)), -scores))[0])
    right = bool(case.positive and case.right[best])
    return float(scores[best]), float(margins[best]), right, case.values[best]


def fit(
    cases: list[Case], c: float, k: int, seed: int, grouped: bool = False
) -> tuple[Model, list[Outcome]]:
    """Weights on ``cases``; the calibration on their scores under weights fitted without
    them (k-fold, ``grouped`` as :func:`folds`). Returns the model and those out-of-fold
    outcomes."""
    tops: list[Top] = []
    held: list[tuple[int, np.ndarray]] = []
    for fold in folds(cases, k, seed, grouped):
        test = set(fold)
        weights = fit_weights([cases[i] for i in range(len(cases)) if i not in test], c)
        for i in fold:
            row = top_row(cases[i], weights)
            if row is not None:
                tops.append(row)
            held.append((i, weights))
    calibration, confidence = fit_calibration(tops)
    outcomes = [outcome(cases[i], Model(w, calibration, c, confidence)) for i, w in held]
    return Model(fit_weights(cases, c), calibration, c, confidence), outcomes


# -- scoring a model on pastes ----------------------------------------------------------


@dataclass
class Outcome:
    case: Case
    top_score: float
    top_right: bool
    rank: int  # first right candidate, variants folded, 1-based; 0 if not in the first 30


def outcome(case: Case, model: Model) -> Outcome:
    if not len(case.values):
        return Outcome(case, 0.0, False, 0)
    scores = model.scores(case)
    order = np.lexsort((np.arange(len(scores)), -scores))
    seen: set[int] = set()
    shown = []
    for i in order:  # variants of one error fold into the best of them
        if case.groups[i] not in seen:
            seen.add(case.groups[i])
            shown.append(i)
    rank = next((n + 1 for n, i in enumerate(shown[:30]) if case.right[i]), 0)
    return Outcome(case, float(scores[order[0]]), bool(case.right[order[0]]), rank)


def figures(outcomes: list[Outcome], volunteer: float, ask: float) -> dict[str, float]:
    pos = [o for o in outcomes if o.case.positive]
    neg = [o for o in outcomes if not o.case.positive]

    def at(t: float) -> tuple[float, float, float, float]:
        answered = [o for o in outcomes if o.top_score >= t and o.top_score > 0]
        right = [o for o in answered if o.case.positive and o.top_right]
        precision = len(right) / len(answered) if answered else 1.0
        answered_pos = sum(1 for o in pos if o.top_score >= t and o.top_score > 0)
        declines = sum(1 for o in neg if not (o.top_score >= t and o.top_score > 0))
        return (
            precision,
            len(right) / max(len(pos), 1),
            answered_pos / max(len(pos), 1),
            declines / max(len(neg), 1),
        )

    ask_p, ask_top1, _, ask_dec = at(ask)
    vol_p, vol_cov, vol_ans, vol_dec = at(volunteer)
    return {
        "cases": len(outcomes),
        "positives": len(pos),
        "top1": ask_top1,
        "top3": sum(0 < o.rank <= 3 for o in pos) / max(len(pos), 1),
        "recall10": sum(0 < o.rank <= 10 for o in pos) / max(len(pos), 1),
        "recall30": sum(0 < o.rank <= 30 for o in pos) / max(len(pos), 1),
        "asked_precision": ask_p,
        "asked_declines": ask_dec,
        "volunteer_precision": vol_p,
        "volunteer_coverage": vol_cov,
        "volunteer_answered": vol_ans,
        "volunteer_declines": vol_dec,
    }


def thresholds(outcomes: list[Outcome], precision: float) -> tuple[float, float]:
    """(volunteer, ask) chosen on out-of-sample outcomes."""
    candidates = sorted({round(o.top_score, 4) for o in outcomes if o.top_score > 0})
    volunteer = 0.999
    ask = 0.5
    best = -1.0
    for t in candidates:  # the lowest threshold whose precision is high enough
        answered = [o for o in outcomes if o.top_score >= t]
        right = sum(1 for o in answered if o.case.positive and o.top_right)
        if answered and right / len(answered) >= precision and len(answered) >= 5:
            volunteer = t
            break
    for t in candidates:
        good = sum(
            (o.top_score >= t and o.case.positive and o.top_right)
            or (not o.case.positive and o.top_score < t)
            for o in outcomes
        )
        if good > best:
            ask = t
            best = good
    return max(volunteer, ask), ask


def folds(cases: list[Case], k: int, seed: int, grouped: bool = False) -> list[list[int]]:
    """K folds, each set and positive/negative spread evenly over them; ``grouped``: no two
    folds share a repository or an ecosystem (:func:`grouped_folds`)."""
    if grouped:
        found = grouped_folds(cases, k)
        if len(found) >= 2:
            return found
        # one group only (an inner split of a single ecosystem): nothing to hold apart
    rng = np.random.default_rng(seed)
    strata: dict[tuple[str, bool], list[int]] = {}
    for i, case in enumerate(cases):
        strata.setdefault((case.source, case.positive), []).append(i)
    out: list[list[int]] = [[] for _ in range(k)]
    offset = 0
    for members in strata.values():
        members = list(rng.permutation(members))
        for n, i in enumerate(members):
            out[(n + offset) % k].append(int(i))
        offset += len(members)
    return out


def grouped_folds(cases: list[Case], k: int) -> list[list[int]]:
    """At most ``k`` folds of whole groups: cases sharing a repository or an ecosystem are
    one group; largest group first, each to the fold with the fewest cases so far."""
    parent = list(range(len(cases)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    first: dict[tuple[str, str], int] = {}
    for i, case in enumerate(cases):
        for key in (("repository", case.repo), ("ecosystem", case.ecosystem)):
            parent[root(i)] = root(first.setdefault(key, i))
    groups: dict[int, list[int]] = {}
    for i in range(len(cases)):
        groups.setdefault(root(i), []).append(i)
    out: list[list[int]] = [[] for _ in range(k)]
    for members in sorted(groups.values(), key=lambda m: (-len(m), m[0])):
        min(out, key=len).extend(members)
    return [fold for fold in out if fold]


def choose(
    cases: list[Case], k: int, precision: float, seed: int, grouped: bool = False
) -> tuple[Model, float, float]:
    """The regularisation, calibration and thresholds by cross-validation on ``cases``
    alone (``grouped`` as :func:`folds`), and the weights fitted on all of them."""
    best: tuple[float, Model, float, float] | None = None
    for c in C_GRID:
        model, held = fit(cases, c, k, seed, grouped)
        volunteer, ask = thresholds(held, precision)
        f = figures(held, volunteer, ask)
        score = f["top1"] + f["top3"] + 0.5 * f["volunteer_coverage"] + 0.25 * f["asked_declines"]
        if best is None or score > best[0]:
            best = (score, model, volunteer, ask)
    assert best is not None
    return best[1], best[2], best[3]


def report(title: str, outcomes: list[Outcome], volunteer: float, ask: float) -> None:
    print(title)
    for source in sorted({o.case.source for o in outcomes}) + ["all"]:
        picked = [o for o in outcomes if source in ("all", o.case.source)]
        f = figures(picked, volunteer, ask)
        print(
            f"  {source:20} n={f['cases']:<4} top-1 {f['top1']:.3f}  top-3 {f['top3']:.3f}  "
            f"recall@10 {f['recall10']:.3f}  recall@30 {f['recall30']:.3f}  "
            f"asked declines {f['asked_declines']:.3f} | volunteer precision "
            f"{f['volunteer_precision']:.3f} coverage {f['volunteer_coverage']:.3f} "
            f"answered {f['volunteer_answered']:.3f} declines {f['volunteer_declines']:.3f}"
        )


def write(model: Model, volunteer: float, ask: float) -> None:
    path = ROOT / "bot" / "match" / "features.py"
    text = path.read_text(encoding="utf-8")
    bias, slope, margin = model.calibration
    text = re.sub(
        r"^CALIBRATION = .*$",
        f"CALIBRATION = ({bias:.3f}, {slope:.3f}, {margin:.3f})",
        text,
        flags=re.M,
    )
    text = re.sub(r"^VOLUNTEER = .*$", f"VOLUNTEER = {volunteer:.4f}", text, flags=re.M)
    text = re.sub(r"^ASK = .*$", f"ASK = {ask:.4f}", text, flags=re.M)
    for f, w, k in zip(F.REGISTRY, model.weights, model.confidence, strict=True):
        text = re.sub(rf'(@feature\("{f.name}", weight=)[-0-9.e]+', rf"\g<1>{w:.3f}", text)
        if f.confidence is not None:
            pattern = rf'(@feature\("{f.name}", [^)]*confidence=)[-0-9.e]+'
            text = re.sub(pattern, rf"\g<1>{k:.3f}", text)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {path.relative_to(ROOT)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sets", nargs="*", type=Path)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument(
        "--precision", type=float, default=0.975, help="volunteer precision (in-fold)"
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--write", action="store_true", help="write the fitted constants")
    parser.add_argument(
        "--grid",
        type=float,
        nargs="+",
        default=list(C_GRID),
        help="regularisation strengths to choose among",
    )
    args = parser.parse_args()
    C_GRID[:] = args.grid
    paths = args.sets or sorted((ROOT / "eval").glob("*.jsonl"))
    cases = load(paths)
    current = Model(np.array(F.WEIGHTS), F.CALIBRATION, 0.0, np.array(F.CONFIDENCE))
    report("shipped weights, in sample", [outcome(c, current) for c in cases], F.VOLUNTEER, F.ASK)
    ungrouped = nested(cases, args.folds, args.precision, args.seed, grouped=False)
    report_nested(ungrouped)
    grouped = nested(cases, args.folds, args.precision, args.seed, grouped=True)
    report_side_by_side(ungrouped, grouped)
    model, volunteer, ask = choose(cases, args.folds, args.precision, args.seed)
    print(f"fitted on all: C={model.c} volunteer ≥ {volunteer:.3f} ask ≥ {ask:.3f}")
    names = [f.name for f in F.REGISTRY]
    print(
        "weights",
        json.dumps(
            {
                "calibration": [round(v, 3) for v in model.calibration],
                **{n: round(float(w), 3) for n, w in zip(names, model.weights, strict=True)},
                "confidence": {
                    n: round(float(k), 3)
                    for n, k, on in zip(names, model.confidence, CONFIDENT, strict=True)
                    if on
                },
            }
        ),
    )
    report("fitted on all, in sample", [outcome(c, model) for c in cases], volunteer, ask)
    if args.write:
        write(model, volunteer, ask)


def nested(
    cases: list[Case], k: int, precision: float, seed: int, *, grouped: bool
) -> list[tuple[Outcome, float, float]]:
    """Each held-out paste's outcome and its fold's (volunteer, ask) thresholds."""
    rows: list[tuple[Outcome, float, float]] = []
    title = "grouped by repository and ecosystem" if grouped else "ungrouped"
    for n, fold in enumerate(folds(cases, k, seed, grouped)):
        test = set(fold)
        train = [cases[i] for i in range(len(cases)) if i not in test]
        # everything is chosen on the training folds alone: C, weights, both thresholds
        model, volunteer, ask = choose(train, k - 1, precision, seed + n + 1, grouped)
        held = Counter(cases[i].ecosystem for i in fold)
        named = ", ".join(f"{name} {count}" for name, count in held.most_common(6))
        more = f" and {len(held) - 6} more" if len(held) > 6 else ""
        print(
            f"{title} fold {n}: {len(fold)} cases ({named}{more}): C={model.c} "
            f"volunteer ≥ {volunteer:.3f} ask ≥ {ask:.3f}"
        )
        rows += [(outcome(cases[i], model), volunteer, ask) for i in fold]
    return rows


def held_figures(rows: list[tuple[Outcome, float, float]]) -> dict[str, float | None]:
    """Asked top-1, asked precision and declines, volunteered precision, coverage and
    declines of held-out pastes, each judged at its own fold's thresholds; None where
    nothing is there to count (no negative, no answer)."""
    pos = [(o, v, a) for o, v, a in rows if o.case.positive]
    neg = [(o, v, a) for o, v, a in rows if not o.case.positive]

    def share(part: int, whole: int) -> float | None:
        return part / whole if whole else None

    asked = [(o, a) for o, _, a in rows if o.top_score >= a and o.top_score > 0]
    volunteered = [(o, v) for o, v, _ in rows if o.top_score >= v and o.top_score > 0]
    asked_right = sum(o.case.positive and o.top_right for o, _ in asked)
    volunteered_right = sum(o.case.positive and o.top_right for o, _ in volunteered)
    return {
        "top1": share(asked_right, len(pos)),
        "asked_precision": share(asked_right, len(asked)),
        "asked_declines": share(
            sum(not (o.top_score >= a and o.top_score > 0) for o, _, a in neg), len(neg)
        ),
        "volunteer_precision": share(volunteered_right, len(volunteered)),
        "volunteer_coverage": share(volunteered_right, len(pos)),
        "volunteer_declines": share(
            sum(not (o.top_score >= v and o.top_score > 0) for o, v, _ in neg), len(neg)
        ),
    }


SIDE = (
    "top1",
    "asked_precision",
    "asked_declines",
    "volunteer_precision",
    "volunteer_coverage",
    "volunteer_declines",
)


def report_side_by_side(
    ungrouped: list[tuple[Outcome, float, float]], grouped: list[tuple[Outcome, float, float]]
) -> None:
    """Per set and per ecosystem: the ungrouped nested CV beside the grouped one."""
    print("\nheld-out figures: ungrouped nested CV | grouped by repository and ecosystem")
    print(
        "  top-1: asked and right, of the positives; a-prec: asked precision; a-decl: asked "
        "declines (negatives); v-prec, v-cov, v-decl: volunteered precision, coverage, declines"
    )
    head = " ".join(
        f"{name:>6}" for name in ("top-1", "a-prec", "a-decl", "v-prec", "v-cov", "v-decl")
    )
    print(f"  {'':28} {'n':>4} {'pos':>4} | {head} | {head}")

    def cell(value: float | None) -> str:
        return f"{value:6.3f}" if value is not None else f"{'—':>6}"

    def line(label: str, keep: Callable[[Case], bool]) -> None:
        a = [row for row in ungrouped if keep(row[0].case)]
        b = [row for row in grouped if keep(row[0].case)]
        fa = held_figures(a)
        fb = held_figures(b)
        positives = sum(o.case.positive for o, _, _ in a)
        print(
            f"  {label:28} {len(a):>4} {positives:>4} | "
            f"{' '.join(cell(fa[k]) for k in SIDE)} | {' '.join(cell(fb[k]) for k in SIDE)}"
        )

    cases = [o.case for o, _, _ in ungrouped]
    print("  by set")
    for source in sorted({c.source for c in cases}):
        line(source, lambda c, source=source: c.source == source)  # type: ignore[misc]
    line("all", lambda c: True)
    print("  by ecosystem")
    for name, _ in Counter(c.ecosystem for c in cases).most_common():
        line(name, lambda c, name=name: c.ecosystem == name)  # type: ignore[misc]


def report_nested(rows: list[tuple[Outcome, float, float]]) -> None:
    """Figures of the held-out folds, each paste judged at its own fold's thresholds."""
    print("nested cross-validation (held-out folds)")
    for source in sorted({o.case.source for o, _, _ in rows}) + ["all"]:
        picked = [(o, v, a) for o, v, a in rows if source in ("all", o.case.source)]
        pos = [(o, v, a) for o, v, a in picked if o.case.positive]
        neg = [(o, v, a) for o, v, a in picked if not o.case.positive]
        n_pos = max(len(pos), 1)
        n_neg = max(len(neg), 1)
        top1 = sum(o.top_score >= a and o.top_right for o, v, a in pos) / n_pos
        top3 = sum(0 < o.rank <= 3 for o, _, _ in pos) / n_pos
        r10 = sum(0 < o.rank <= 10 for o, _, _ in pos) / n_pos
        r30 = sum(0 < o.rank <= 30 for o, _, _ in pos) / n_pos
        asked_dec = sum(o.top_score < a for o, v, a in neg) / n_neg
        vol = [(o, v) for o, v, _ in picked if o.top_score >= v and o.top_score > 0]
        vol_right = sum(o.case.positive and o.top_right for o, _ in vol)
        precision = vol_right / len(vol) if vol else 1.0
        coverage = vol_right / n_pos
        answered = sum(o.top_score >= v for o, v, _ in pos) / n_pos
        vol_dec = sum(o.top_score < v for o, v, _ in neg) / n_neg
        print(
            f"  {source:20} n={len(picked):<4} top-1 {top1:.3f}  top-3 {top3:.3f}  "
            f"recall@10 {r10:.3f}  recall@30 {r30:.3f}  asked declines {asked_dec:.3f} | "
            f"volunteer precision {precision:.3f} coverage {coverage:.3f} "
            f"answered {answered:.3f} declines {vol_dec:.3f}"
        )


if __name__ == "__main__":
    main()
