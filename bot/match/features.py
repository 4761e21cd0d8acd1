"""The ranker's features: one registry of named functions, each with its weight and sign.

A candidate's *ranking score* is the weighted sum of its features; its *score*
is a calibrated probability that the record answers the paste, a logistic
function (:data:`CALIBRATION`) of its ranking score, of its margin over the
best candidate that is not a variant of it, and of the features declared with a
``confidence`` weight. Ranking weights are fitted on pastes a record answers (a
right candidate against a wrong one), so they cannot learn what tells a right
top answer from the best of poor candidates on a paste no record answers; a
confidence weight is fitted with the calibration on every paste's top candidate,
negatives included, so it can: a generic record of a wrapper line, while the
line the paste's error comes down to is left unexplained; a record that ranks first on
the paste's environment (its tool, version, service) while its own text evidence (its
regex, the share of the line it explains, its description) is thin. Each feature is a
function of two plain values, the candidates' evidence (:class:`Candidates`, as
columns) and the paste's (:class:`Paste`), declared with :func:`feature` next to
its weight, the sign its weight must keep and the docstring that says what it
measures.
``benchmarks/fit_ranker.py`` fits the weights (scikit-learn logistic regression
on pairs of a right and a wrong candidate of one paste), the calibration (on
scores of pastes the weights were not fitted on) and the two operating points,
with nested cross-validation, and writes them back here as constants.

Operating points (probabilities):

- :data:`VOLUNTEER`: at or above it errkb answers unasked (a paste in a channel);
  chosen for precision: few wrong public answers;
- :data:`ASK`: at or above it errkb answers someone who asked (a mention, a
  command); below it, it shows candidates marked uncertain, those at or above
  :data:`OFFER` (below it, a record is no candidate worth a look).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from packaging.version import Version

from bot.match.info import ALL_LANGUAGE_DOMAINS, LANGUAGE_WORDS, NEED_NO_NAME, RecordInfo

# -- fitted constants (benchmarks/fit_ranker.py --write rewrites this block) -----------
#: (bias, ranking score, margin) of the logistic calibration.
CALIBRATION = (-1.943, 0.197, 0.378)
VOLUNTEER = 0.8785
ASK = 0.4709
# -- end of fitted constants -------------------------------------------------------------

#: The candidate floor: when no record is confident enough to answer, a record is offered
#: as an uncertain candidate only at or above this probability. Chosen by a stated rule
#: on the committed labelled sets (:func:`bot.match.eval.offer_floor`): the lowest score,
#: in steps of 0.01, at which at least one candidate in five offered at or above it is
#: right; ``errkb eval`` reports that share.
OFFER = 0.22

#: The paste naming a record's tool only adds to text evidence: full weight once the
#: regex or the signature overlap reaches this, less below (react in the paste does
#: not make a react record the answer to an npm error).
ENV_GATE = 0.2


@dataclass
class Candidate:
    """The evidence for one candidate record, gathered by the ranker's first stages."""

    info: RecordInfo
    regex: float = 0.0  # strongest regex hit: line role x literal length
    regex_pos: int = -1  # the line it hit
    bare: float = 0.0  # that hit was only an exception type name on a longer line
    overlap: float = 0.0  # IDF share of the record's text found in its best line
    explained: float = 0.0  # share of that line the record explains
    line_pos: int = -1  # the line the text evidence is on
    context: float = 0.0  # BM25 against its root cause, regex words, tags, id
    root: bool = False  # its best line is the root of a chained error
    elsewhere: float = 0.0  # how much of the paste's decisive line is left unexplained


class Candidates:
    """The candidates of one paste as columns, what the feature functions compute on."""

    def __init__(self, found: list[Candidate], paste: Paste) -> None:
        self.infos = [c.info for c in found]
        #: each record's tool words the paste names (computed once, read by several features)
        self.seen = [c.info.env_words & paste.words for c in found]
        self.regex = np.array([c.regex for c in found])
        self.bare = np.array([c.bare for c in found])
        self.overlap = np.array([c.overlap for c in found])
        self.explained = np.array([c.explained for c in found])
        self.context = np.array([c.context for c in found])
        self.root = np.array([1.0 if c.root else 0.0 for c in found])
        self.elsewhere = np.array([c.elsewhere for c in found])

    def each(self, fn: Callable[[RecordInfo], float]) -> np.ndarray:
        return np.array([fn(info) for info in self.infos], dtype=np.float64)


@dataclass(frozen=True)
class Paste:
    """What the paste says besides its error lines."""

    words: frozenset[str]
    family: frozenset[str]  # the language domains of its ecosystem (python, java...)
    versions: dict[str, list[Version]] = field(default_factory=dict)
    os: str = ""
    services: frozenset[str] = frozenset()
    packages: frozenset[str] = frozenset()  # the libraries its paths and links name


@dataclass(frozen=True)
class Feature:
    name: str
    weight: float
    sign: int  # +1 evidence for the record, -1 against, 0 either
    compute: Callable[[Candidates, Paste], np.ndarray]
    doc: str
    #: its weight in the calibration, beside the ranking score and the margin (None: none)
    confidence: float | None = None


REGISTRY: list[Feature] = []


Compute = Callable[[Candidates, Paste], np.ndarray]


def feature(
    name: str, *, weight: float, sign: int, confidence: float | None = None
) -> Callable[[Compute], Compute]:
    """Register a feature function under ``name`` with its fitted ``weight`` and ``sign``;
    ``confidence``: its fitted weight in the calibration too, of the same sign.

    The function computes the feature for every candidate of a paste at once."""

    def register(fn: Compute) -> Compute:
        doc = inspect.getdoc(fn) or ""
        REGISTRY.append(Feature(name, weight, sign, fn, doc, confidence))
        return fn

    return register


def gate(c: Candidates) -> np.ndarray:
    """How far a candidate's text evidence reaches :data:`ENV_GATE` (0..1): what the paste
    naming its tool or service may add to."""
    return np.minimum(1.0, np.maximum(c.regex, c.overlap) / ENV_GATE)


@feature("regex", weight=3.808, sign=1, confidence=1.658)
def regex(c: Candidates, p: Paste) -> np.ndarray:
    """The record's regex matched: the strongest hit, weighted by the role of the line
    (final exception >> context >> frame) and by how long the literal part of the
    alternative that fired is (``6.4`` is weak, ``CUDA out of memory`` strong)."""
    return c.regex


@feature("bare", weight=-1.083, sign=-1)
def bare(c: Candidates, p: Paste) -> np.ndarray:
    """The regex hit is only an exception type name on a line that says much more."""
    return c.bare


@feature("explained", weight=4.655, sign=1, confidence=0.337)
def explained(c: Candidates, p: Paste) -> np.ndarray:
    """The share of the best line the record explains, as far as the line is specific."""
    return c.explained


@feature("context", weight=11.228, sign=1, confidence=0.440)
def context(c: Candidates, p: Paste) -> np.ndarray:
    """BM25 of the error lines against what describes the record: its root cause (all
    locales), the literal words of its regex, its tags and id, its workarounds' actions.
    Finds a record named otherwise than its signature (a library's warning text, a record
    written for the cause)."""
    return c.context


@feature("env", weight=2.727, sign=1)
def env(c: Candidates, p: Paste) -> np.ndarray:
    """The record's tool words (``vllm``, ``kubelet``) are in the paste; half when only its
    language is, by name or by the paste's shape (a Python traceback, a Java stack trace).
    Counts as far as the text evidence does (see :data:`ENV_GATE`)."""

    named = [
        1.0
        if info.services & p.services
        else (0.5 if info.domain in p.family else 0.0)
        if not seen
        else 0.5
        if seen <= LANGUAGE_WORDS
        else 1.0
        for info, seen in zip(c.infos, c.seen, strict=True)
    ]
    return np.array(named) * gate(c)


@feature("absent", weight=-0.722, sign=-1)
def absent(c: Candidates, p: Paste) -> np.ndarray:
    """A record about a tool the paste never names, not even by its port or client library
    (kinds of problem and languages aside)."""

    unnamed = [
        0.0 if seen or info.domain in NEED_NO_NAME or info.services & p.services else 1.0
        for info, seen in zip(c.infos, c.seen, strict=True)
    ]
    return np.array(unnamed)


@feature("foreign", weight=-1.082, sign=-1)
def foreign(c: Candidates, p: Paste) -> np.ndarray:
    """The paste is plainly another language's (1), or a language record shows no sign of
    its language (0.5)."""

    def alien(info: RecordInfo, seen: frozenset[str]) -> float:
        if info.domain not in ALL_LANGUAGE_DOMAINS:
            return 0.0
        if p.family:
            return 0.0 if info.domain in p.family else 1.0
        return 0.0 if seen else 0.5

    return np.array([alien(info, seen) for info, seen in zip(c.infos, c.seen, strict=True)])


@feature("service", weight=4.174, sign=1)
def service(c: Candidates, p: Paste) -> np.ndarray:
    """The paste names the service the record is about, by port, client library, driver or
    name (``:5432``, ``psycopg2``, ``redis/connection.py``)."""
    if not p.services:
        return np.zeros(len(c.infos))
    named = c.each(lambda info: 1.0 if info.services & p.services else 0.0)
    # evidence of the domain of an error the text shows, not of any record of that service
    return named * gate(c)


@feature("package", weight=3.824, sign=1)
def package(c: Candidates, p: Paste) -> np.ndarray:
    """The library the paste's paths or links show (``site-packages/bitsandbytes/``,
    ``node_modules/mongodb/``, an issue link to the project) is one the record is named by:
    the error came from that library, whatever its message says."""
    if not p.packages:
        return np.zeros(len(c.infos))
    return c.each(lambda info: 0.0 if p.packages.isdisjoint(info.names) else 1.0)


def os_match(info: RecordInfo, p: Paste) -> float:
    """1: the record is written for the OS the paste shows; -1: for another; 0: unknown."""
    if not info.os or not p.os:
        return 0.0
    return 1.0 if info.os == p.os else -1.0


def version_fit(info: RecordInfo, p: Paste) -> float:
    """1: the paste names a version of a package in the record's version range; -1: only
    versions outside it; 0: no version of its packages."""
    found = 0.0
    for name, spec in info.versions:
        seen = p.versions.get(name)
        if seen:
            if any(spec.contains(v, prereleases=True) for v in seen):
                return 1.0
            found = -1.0
    return found


@feature("os", weight=0.850, sign=1)
def os_fit(c: Candidates, p: Paste) -> np.ndarray:
    """1: the record is written for the OS the paste shows; -1: for another one."""
    if not p.os:
        return np.zeros(len(c.infos))
    return c.each(lambda info: os_match(info, p))


@feature("root", weight=0.336, sign=1)
def root(c: Candidates, p: Paste) -> np.ndarray:
    """The record's best line is the root of a chained error (the first exception of a
    Python chain, the last ``Caused by:``), not a wrapper raised because of it."""
    return c.root


@feature("elsewhere", weight=-0.093, sign=-1, confidence=-0.223)
def elsewhere(c: Candidates, p: Paste) -> np.ndarray:
    """The record's evidence is on another line than the one the paste's error comes down
    to (its last chain root, else its last exception, else its last error line), and the
    record explains little of that line: a record of a warning, a wrapper or an earlier
    step, while the error the paste ends in is something the record does not say. Counts
    as far as that line is specific."""
    return c.elsewhere


NAMES = tuple(f.name for f in REGISTRY)
WEIGHTS = tuple(f.weight for f in REGISTRY)
#: each feature's weight in the calibration (0 for a feature that has none)
CONFIDENCE = tuple(f.confidence or 0.0 for f in REGISTRY)
ELSEWHERE = NAMES.index("elsewhere")


def matrix(found: list[Candidate], paste: Paste) -> np.ndarray:
    """Every feature of every candidate: candidates x :data:`NAMES`."""
    if not found:
        return np.zeros((0, len(REGISTRY)))
    columns = Candidates(found, paste)
    return np.column_stack([f.compute(columns, paste) for f in REGISTRY])


MARGIN_CAP = 6.0  # a margin counts up to this much


def margins(scores: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """Each candidate's ranking score minus the best score of a candidate that is not its
    variant, capped at :data:`MARGIN_CAP` either way. With no such rival, the rival is "no
    record at all", a ranking score of 0: a lone candidate is only as far ahead as its own
    evidence takes it, so a weak hit that happens to be alone (a short literal in a small
    base) is not as sure as a strong hit far ahead of the next."""
    if not len(scores):
        return scores
    best = int(np.argmax(scores))
    rivals = groups != groups[best]
    second = scores[rivals].max() if rivals.any() else 0.0
    other = np.where(groups == groups[best], second, scores[best])
    return np.clip(scores - other, -MARGIN_CAP, MARGIN_CAP)


def probabilities(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    """The calibrated probability of each candidate (a row of feature values; ``groups``
    its variant group) that it answers the paste."""
    return _logistic(_logits(values, groups))


def error_probabilities(
    values: np.ndarray, groups: np.ndarray, errors: np.ndarray, decisive: int
) -> np.ndarray:
    """The calibrated probability of each candidate that it answers the error it was found
    on (``errors``: each candidate's error index), for a paste holding several errors.

    As :func:`probabilities`, but on an error other than ``decisive`` (the one the paste
    ends in) the ``elsewhere`` term is left out: a record of an earlier, separate error
    has its evidence elsewhere by construction. The margin stays the paste's: a better
    record of another error still makes this one less sure (a warning's exception before
    the error that decides is not lifted to an answer of its own)."""
    z = _logits(values, groups)
    aside = (errors != decisive) & (errors >= 0)
    z[aside] -= values[aside, ELSEWHERE] * CONFIDENCE[ELSEWHERE]
    return _logistic(z)


def _logits(values: np.ndarray, groups: np.ndarray) -> np.ndarray:
    scores = values @ np.asarray(WEIGHTS)
    bias, slope, margin = CALIBRATION
    return (
        bias + slope * scores + margin * margins(scores, groups) + values @ np.asarray(CONFIDENCE)
    )


def _logistic(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(z, -700, 700)))


def band(score: float) -> str:
    """``high``: volunteer it unasked; ``medium``: answer when asked; ``low``: decline."""
    return "high" if score >= VOLUNTEER else "medium" if score >= ASK else "low"
