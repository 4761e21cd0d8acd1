"""Ranking one paste's candidate records, in stages.

1. **candidates** (:func:`candidates`): every record whose regex fired on a line,
   the best records by BM25 of the paste's error lines against their identity
   texts and against their context (root cause, regex words, tags, id; every
   locale), and the records people chose for these errors before (``learned``);
2. **per-line facts** (:class:`LineFacts`): each line looked at gets its terms,
   their IDF weight and its role's weight once, whatever the number of candidates;
3. **scoring** (:func:`score`): each candidate's evidence (:class:`~bot.match.
   features.Candidate`) goes through the feature registry of
   :mod:`bot.match.features` into a calibrated probability;
4. **assembly** (:func:`assemble`): variants of one error fold into the best of
   them (:attr:`Match.variants`), learned choices apply, matches are banded and
   grouped per error.

Bands: ``high`` (at or above :data:`~bot.match.features.VOLUNTEER`) is confident
enough to post unasked — :attr:`Triage.volunteer`; ``medium`` (at or above
:data:`~bot.match.features.ASK`) answers someone who asked —
:attr:`Triage.answered`; ``low`` is declined and shown only as uncertain candidates.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
from packaging.version import InvalidVersion, Version

from bot.match import features as F
from bot.match.evidence import paste_os, services
from bot.match.extract import ROLE_WEIGHT, ExtractedError, Extraction, Line
from bot.match.info import FAMILIES, RecordInfo
from bot.match.normalise import template, terms, tokens, version_hints
from bot.match.similarity import Similarity

SIM_CANDIDATES = 16  # best records by identity BM25 that join the regex hits
CONTEXT_CANDIDATES = 12  # best records by context BM25
PACKAGE_CANDIDATES = 4  # best records by context BM25 among those a paste's library names
MAX_RANKED = 64  # candidates given the full ranking, chosen by regex strength + BM25
SPECIFIC_WEIGHT = 20.0  # IDF weight of a record text specific enough to count in full
SPECIFIC_CONTEXT = 40.0  # the same for the texts that describe a record
QUERY_LINES = 12
#: The score of a record people chose for this error (a learned choice): above the
#: volunteer point, so it wins over any weaker lexical match.
LEARNED_SCORE = 0.99
_MASK_WORDS = frozenset({"uuid", "url", "hex", "path", "ip", "ver"})


@dataclass(frozen=True)
class Hit:
    """Record ``record``'s regex fired on line ``position`` via an alternative."""

    record: int
    position: int
    literal: int
    type_only: bool  # the alternative that fired is just an exception type name


@dataclass(frozen=True)
class Match:
    record_id: str
    score: float  # calibrated probability that the record answers the paste
    band: str  # high (volunteer) | medium (answer when asked) | low (decline)
    error_index: int
    line: str
    line_no: int
    features: tuple[tuple[str, float], ...]
    variants: tuple[str, ...] = ()  # the same error for other versions or environments


@dataclass(frozen=True)
class Triage:
    errors: tuple[ExtractedError, ...]
    matches: tuple[Match, ...]
    per_error: tuple[tuple[int, tuple[Match, ...]], ...]
    truncated: bool = False

    @property
    def best(self) -> Match | None:
        return self.matches[0] if self.matches else None

    @property
    def answered(self) -> bool:
        """Confident enough to answer someone who asked (band high or medium)."""
        return bool(self.matches) and self.matches[0].band in ("high", "medium")

    @property
    def volunteer(self) -> bool:
        """Confident enough to post unasked, where nobody asked (band high)."""
        return bool(self.matches) and self.matches[0].band == "high"

    def primary(self) -> list[Match]:
        """The best confident match of each distinct error, in paste order."""
        return [ms[0] for _, ms in self.per_error if ms and ms[0].band != "low"]

    def answer_ids(self) -> list[str]:
        """The records that answer the paste: one per distinct error, in paste order
        (the best overall when no single error has a confident match of its own)."""
        ids = [m.record_id for m in self.primary()]
        if not ids and self.answered and self.best is not None:
            ids = [self.best.record_id]
        return list(dict.fromkeys(ids))


@dataclass(frozen=True)
class Knowledge:
    """What ranking reads of the index: the text indexes and each record's facts."""

    identity: Similarity
    context: Similarity
    infos: Sequence[RecordInfo]
    groups: Sequence[int]  # each record's variant group (see bot.match.variants)
    by_id: Mapping[str, int] = field(default_factory=dict)


# -- stage 2: per-line facts ---------------------------------------------------------


@lru_cache(maxsize=4096)  # a repeated line (a retry loop, a log) is looked at once
def _line_terms(text: str) -> tuple[frozenset[str], int]:
    """The terms a line is compared by, and how many letters and digits its template has.

    The template masks quoted names, but a short quoted name ('tensorflow',
    'Session', "bash") is often what tells a specific record from a generic one
    (``module 'X' has no attribute 'Y'``), so its words count too; quoted paths
    and long quoted texts do not.
    """
    masked = template(text)
    quoted = (m.group(0)[1:-1] for m in _QUOTED.finditer(text))
    named = [t for q in quoted if len(q) <= 40 and not _PATHISH.search(q) for t in tokens(q)]
    return frozenset(terms(masked)).union(named) - _MASK_WORDS, len(_ALNUM.findall(masked)) or 1


_ALNUM = re.compile(r"[^\W_]")
_QUOTED = re.compile(r"'[^'\n<>]{1,60}'|\"[^\"\n<>]{1,60}\"|`[^`\n<>]{1,60}`")
_PATHISH = re.compile(r"[/\\]|://")


class LineFacts:
    """Per-line terms, sizes and IDF weights, computed only for the lines looked at."""

    def __init__(self, extraction: Extraction, similarity: Similarity) -> None:
        self.lines = extraction.lines
        self._similarity = similarity
        self._facts: dict[int, tuple[frozenset[str], int]] = {}
        self._weight: dict[int, float] = {}
        self._size: dict[int, int] = {}

    def terms(self, pos: int) -> frozenset[str]:
        if pos not in self._facts:
            self._facts[pos] = _line_terms(self.lines[pos].text)
        return self._facts[pos][0]

    def size(self, pos: int) -> int:
        """Letters and digits of the line's template (its terms are not needed for this)."""
        if pos in self._facts:
            return self._facts[pos][1]
        if pos not in self._size:
            self._size[pos] = len(_ALNUM.findall(template(self.lines[pos].text))) or 1
        return self._size[pos]

    def weight(self, pos: int) -> float:
        if pos not in self._weight:
            self._weight[pos] = self._similarity.line_weight(self.terms(pos))
        return self._weight[pos]

    def role(self, pos: int) -> float:
        line = self.lines[pos]
        return 1.0 if line.root else ROLE_WEIGHT[line.role]


def important_lines(extraction: Extraction) -> list[int]:
    """The lines that say what went wrong: chain roots and exceptions first, then the
    last error lines; the context and prose when a paste has no error line."""
    lines = extraction.lines
    roots = [i for i, l in enumerate(lines) if l.root]
    exceptions = [i for i, l in enumerate(lines) if l.role == "exception" and not l.root]
    errors = [i for i, l in enumerate(lines) if l.role == "error"]
    room = QUERY_LINES - len(roots[-2:])
    chosen = set(roots[-2:])
    chosen.update(exceptions[-room:])
    chosen.update(errors[-max(0, room - min(len(exceptions), room // 2)) :])
    if not chosen:
        chosen = {i for i, l in enumerate(lines) if l.role in ("context", "prose")}
    return sorted(chosen)[-QUERY_LINES:]


def decisive_line(extraction: Extraction, important: list[int]) -> int:
    """The line the paste's error comes down to, -1 when it has no error line: of the
    important lines, the last root of a chain, else the last exception, else the last
    error line. Wrappers, banners and context never decide: they report or precede it."""
    lines = extraction.lines
    for keep in (
        lambda line: line.root,
        lambda line: line.role == "exception",
        lambda line: line.role == "error",
    ):
        chosen = [i for i in important if keep(lines[i])]
        if chosen:
            return chosen[-1]
    return -1


# -- paste facts ---------------------------------------------------------------------

_PASTE_WORD = re.compile(r"[a-z][a-z0-9_]*")


def paste_facts(
    extraction: Extraction, infos: Sequence[RecordInfo], ids: set[int], shown: frozenset[str]
) -> F.Paste:
    lowered = [line.text.lower() for line in extraction.lines]
    text = "\n".join(lowered)
    words = set(_PASTE_WORD.findall(text))
    words.update(w for word in list(words) if "_" in word for w in word.split("_"))
    kinds = {e.kind for e in extraction.errors}
    kind = next(iter(kinds)) if len(kinds) == 1 else "log"
    names = {n for r in ids for n, _ in infos[r].versions} & words
    return F.Paste(
        words=frozenset(words),
        family=frozenset(FAMILIES.get(kind, ())),
        versions=_paste_versions(extraction.lines, lowered, names),
        os=paste_os(text),
        services=services(text),
        packages=shown,
    )


def _paste_versions(
    lines: tuple[Line, ...], lowered: list[str], names: set[str]
) -> dict[str, list[Version]]:
    """Version hints from the lines that name one of ``names`` (the candidates' packages);
    stack frames are left out (their paths name the language, not what failed)."""
    if not names:
        return {}
    text = "\n".join(
        low
        for line, low in zip(lines, lowered, strict=True)
        if line.role != "frame" and any(n in low for n in names)
    )
    found: dict[str, list[Version]] = {}
    for name, version in version_hints(text) if text else ():
        try:
            found.setdefault(name, []).append(Version(version))
        except InvalidVersion:
            continue
    return found


# -- stage 1: candidates -------------------------------------------------------------


def _regex_evidence(hits: list[Hit], facts: LineFacts) -> dict[int, tuple[float, int, float]]:
    """The strongest regex hit of each record that fired."""
    found: dict[int, tuple[float, int, float]] = {}
    for hit in hits:
        weight = facts.role(hit.position)
        cover = min(1.0, hit.literal / facts.size(hit.position))
        # a hit on the exception type alone, while the message says much more, only
        # shows the class of error: it counts for as much of the line as it covers
        bare = 1.0 if hit.type_only and cover < 0.5 else 0.0
        strength = weight * (1 - math.exp(-hit.literal / 12)) * (max(cover, 0.25) if bare else 1.0)
        if strength > found.get(hit.record, (-1.0, 0, 0.0))[0]:
            found[hit.record] = (strength, hit.position, weight * bare)
    return found


def candidates(
    extraction: Extraction,
    hits: list[Hit],
    knowledge: Knowledge,
    facts: LineFacts,
    important: list[int],
    learned: Sequence[int] = (),
    shown: frozenset[str] = frozenset(),
) -> dict[int, F.Candidate]:
    """The records worth scoring, with their regex and BM25 evidence; ``shown``: the
    libraries the paste's paths and links name, whose records join too."""
    regex = _regex_evidence(hits, facts)
    query: frozenset[str] = frozenset().union(*(facts.terms(i) for i in important))
    identity = context = None
    found: set[int] = set(regex) | set(learned)
    if query and knowledge.identity.size:
        identity = knowledge.identity.scores(query)
        context = knowledge.context.scores(query)
        found.update(knowledge.identity.top_ids(identity, SIM_CANDIDATES))
        found.update(knowledge.context.top_ids(context, CONTEXT_CANDIDATES))
        if shown:  # the error lines' best records among those named by the paste's libraries
            named = knowledge.context.scores({t for name in shown for t in tokens(name)}) > 0
            found.update(
                knowledge.context.top_ids(np.where(named, context, 0.0), PACKAGE_CANDIDATES)
            )
    records = sorted(found)
    index = np.array(records, dtype=np.int64)
    ids = (
        np.minimum(identity[index], 1.0).tolist() if identity is not None else [0.0] * len(records)
    )
    ctx = np.minimum(context[index], 1.0).tolist() if context is not None else [0.0] * len(records)
    if len(records) > MAX_RANKED:  # keep ranking cost flat however many records share a hit
        rough = [
            regex.get(r, (0.0,))[0] + i + 0.5 * c + (10.0 if r in learned else 0.0)
            for r, i, c in zip(records, ids, ctx, strict=True)
        ]
        keep = sorted(range(len(records)), key=lambda n: (-rough[n], records[n]))[:MAX_RANKED]
        records, ids, ctx = (
            [records[n] for n in keep],
            [ids[n] for n in keep],
            [ctx[n] for n in keep],
        )
    context_weight = knowledge.context.doc_weight
    infos = knowledge.infos
    out: dict[int, F.Candidate] = {}
    for r, c in zip(records, ctx, strict=True):
        strength, pos, bare = regex.get(r, (0.0, -1, 0.0))
        # finding all of a short, common text says less than finding a long, specific one
        described = context_weight[r] / SPECIFIC_CONTEXT
        out[r] = F.Candidate(
            info=infos[r],
            regex=strength,
            regex_pos=pos,
            bare=bare,
            context=c * (described if described < 1.0 else 1.0),
        )
    return out


def _text_evidence(
    found: dict[int, F.Candidate],
    knowledge: Knowledge,
    facts: LineFacts,
    important: list[int],
    decisive: int,
) -> None:
    """Fill each candidate's overlap with its best line (stage 2 facts, shared), and how
    much of the ``decisive`` line (:func:`decisive_line`) it leaves unexplained."""
    idf = knowledge.identity.idf
    doc_terms = knowledge.identity.doc_terms
    doc_weight = knowledge.identity.doc_weight
    base = sorted(important)
    important_set = set(important)
    seen: dict[int, tuple[frozenset[str], float, float, float]] = {}

    def line(pos: int) -> tuple[frozenset[str], float, float, float]:
        if pos not in seen:
            weight = facts.weight(pos)
            seen[pos] = (
                facts.terms(pos),
                weight,
                facts.role(pos),
                min(1.0, weight / SPECIFIC_WEIGHT),
            )
        return seen[pos]

    for record, cand in found.items():
        # a record whose text is one or two common words ("AssertionError") is found in
        # countless lines: finding all of it says less than finding a long, specific text
        specific = min(1.0, doc_weight[record] / SPECIFIC_WEIGHT)
        doc = doc_terms[record]
        regex_pos = cand.regex_pos
        positions = base if regex_pos < 0 or regex_pos in important_set else [*base, regex_pos]
        best = 0.0
        best_pos = regex_pos
        explained = 0.0
        decided = 0.0  # the share of the decisive line the record explains
        for pos in positions:
            line_terms, line_weight, role_weight, informative = line(pos)
            common = doc & line_terms
            if not common:
                continue
            found_weight = sum(map(idf.__getitem__, common))
            recall = found_weight / doc_weight[record]
            precision = found_weight / line_weight
            if pos == decisive:
                decided = precision
            value = recall * specific * (0.3 + 0.7 * precision) * role_weight
            if value > best:
                # explaining all of "==> get this error" says nothing: count a line's share
                # explained only as far as the line itself says something specific
                best = value
                best_pos = pos
                explained = precision * informative
        cand.overlap = best
        cand.explained = explained
        pos = regex_pos if regex_pos >= 0 and cand.regex >= best * 0.5 else best_pos
        cand.line_pos = pos
        cand.root = pos >= 0 and facts.lines[pos].root
        if decisive >= 0 and pos != decisive:
            # its evidence is on another line, and the line the paste ends in is left
            # unexplained: a warning, a wrapper or a step before the error that decides
            cand.elsewhere = (1.0 - decided) * line(decisive)[3]


# -- stage 3: scoring ----------------------------------------------------------------


def score(
    found: dict[int, F.Candidate], paste: F.Paste, groups: Sequence[int]
) -> list[tuple[float, int, tuple[float, ...]]]:
    """(probability, record, feature values) of each candidate, best first."""
    records = list(found)
    values = F.matrix([found[r] for r in records], paste)
    scores = F.probabilities(values, np.array([groups[r] for r in records], dtype=np.int64))
    rows = [
        (p, record, tuple(v))
        for p, record, v in zip(scores.tolist(), records, values.tolist(), strict=True)
    ]
    rows.sort(key=lambda row: (-row[0], -found[row[1]].regex, row[1]))
    return rows


# -- stage 4: assembly ---------------------------------------------------------------

#: A scored candidate: (probability it answers the paste, record, feature values, its
#: error's index, probability it answers that error).
Row = tuple[float, int, tuple[float, ...], int, float]


def _own_error_scores(
    rows: list[tuple[float, int, tuple[float, ...]]],
    errors: list[int],
    groups: Sequence[int],
    decisive: int,
) -> list[float]:
    """Each row's probability that it answers its own error; the paste's probability where
    the paste holds one error only or the row is on the error it ends in."""
    if len(set(errors)) < 2:
        return [p for p, _, _ in rows]
    values = np.array([v for _, _, v in rows], dtype=np.float64)
    found = F.error_probabilities(
        values,
        np.array([groups[r] for _, r, _ in rows], dtype=np.int64),
        np.array(errors, dtype=np.int64),
        decisive,
    )
    return [
        p if e == decisive else q
        for (p, _, _), e, q in zip(rows, errors, found.tolist(), strict=True)
    ]


def assemble(
    extraction: Extraction,
    found: dict[int, F.Candidate],
    rows: list[tuple[float, int, tuple[float, ...]]],
    knowledge: Knowledge,
    learned: Mapping[int, int | None],
    limit: int,
    paste: F.Paste,
    decisive: int = -1,
) -> Triage:
    """Fold variants, apply learned choices, band and group the scored candidates.

    ``learned`` maps an error's index to the record people chose for it, or to None
    when they said no record answers it (that error is then declined). Either way
    the people's word wins: no other record answers that error.

    The matches of the paste (``matches``, its best first) carry the probability that
    they answer the paste. Each error's own list (``per_error``) carries, for an error
    other than ``decisive`` (the one the paste ends in), the probability that the record
    answers that error (:func:`bot.match.features.error_probabilities`): a paste with
    two separate errors gets an answer for each.
    """
    lines = extraction.lines
    declined = {e for e, r in learned.items() if r is None}
    chosen = {r: e for e, r in learned.items() if r is not None}
    taught = set(chosen.values())
    errors = [
        lines[found[record].line_pos].error_index if found[record].line_pos >= 0 else -1
        for _, record, _ in rows
    ]
    own = _own_error_scores(rows, errors, knowledge.groups, decisive)
    adjusted = []
    for (p, record, values), error, mine in zip(rows, errors, own, strict=True):
        marks = values
        if record in chosen:
            p, mine, error = max(p, LEARNED_SCORE), max(mine, LEARNED_SCORE), chosen[record]
            marks = (*values, 1.0)
        elif (
            error in declined
            or error in taught
            or (error < 0 and declined and len(extraction.errors) == 1)
        ):
            # people said which record answers this error (or that none does): any other
            # record stays a candidate, never the answer, however well its words match
            p, mine = min(p, F.ASK * 0.5), min(mine, F.ASK * 0.5)
        adjusted.append((p, record, marks, error, mine))
    adjusted.sort(key=lambda row: (-row[0], -found[row[1]].regex, row[1]))

    groups = knowledge.groups
    folded: dict[int, list[Row]] = {}
    for row in adjusted:
        folded.setdefault(groups[row[1]], []).append(row)
    shown = []
    for group_rows in folded.values():
        if len(group_rows) == 1:
            shown.append(group_rows[0])
            continue
        # variants of one error: the paste's versions and OS choose which one answers;
        # it answers with the group's best score (they are the same error)
        best = group_rows[0]
        choice = max(group_rows, key=lambda r: _fit(knowledge.infos[r[1]], paste, r[0]))
        shown.append(
            (best[0], choice[1], choice[2], choice[3], best[4]) if choice is not best else best
        )
        group_rows.sort(key=lambda r: r is not choice)
    shown.sort(key=lambda row: (-row[0], -found[row[1]].regex, row[1]))

    names = (*F.NAMES, "learned")
    infos = knowledge.infos

    def as_match(row: Row, p: float) -> Match:
        _, record, values, error, _ = row
        cand = found[record]
        line = lines[cand.line_pos] if cand.line_pos >= 0 else None
        score_ = round(p, 4)
        return Match(
            record_id=infos[record].id,
            score=score_,
            band=F.band(score_),
            error_index=error,
            line=line.text if line else "",
            line_no=line.no if line else 0,
            features=tuple(zip(names, values, strict=False)),
            variants=tuple(infos[r[1]].id for r in folded[groups[record]][1:]),
        )

    ordered = [as_match(row, row[0]) for row in shown[:limit]]
    by_error: dict[int, list[Match]] = {e.index: [] for e in extraction.errors}
    for rank_no, row in enumerate(shown):  # the error the paste ends in: as the paste
        chosen_list = by_error.get(row[3])
        if row[3] == decisive and chosen_list is not None and len(chosen_list) < limit:
            chosen_list.append(ordered[rank_no] if rank_no < limit else as_match(row, row[0]))
    for row in sorted(shown, key=lambda row: (-row[4], -found[row[1]].regex, row[1])):
        chosen_list = by_error.get(row[3])
        if row[3] != decisive and chosen_list is not None and len(chosen_list) < limit:
            chosen_list.append(as_match(row, row[4]))
    per_error = tuple((index, tuple(ms)) for index, ms in by_error.items())
    return Triage(extraction.errors, tuple(ordered), per_error, extraction.truncated)


def _evidence(
    extraction: Extraction,
    hits: list[Hit],
    knowledge: Knowledge,
    choices: Mapping[int, int | None],
) -> tuple[dict[int, F.Candidate], F.Paste, int]:
    """Stages 1 and 2: the candidates of a paste with their evidence, the paste's facts and
    the index of the error the paste ends in (:func:`decisive_line`; -1: none)."""
    facts = LineFacts(extraction, knowledge.identity)
    important = important_lines(extraction)
    picked = [r for r in choices.values() if r is not None]
    shown = extraction.packages
    found = candidates(extraction, hits, knowledge, facts, important, picked, shown)
    for error, record in choices.items():  # a learned record is scored on its error's line
        if record is not None and found[record].regex_pos < 0:
            found[record].regex_pos = next(
                (i for i, line in enumerate(extraction.lines) if line.error_index == error), -1
            )
    decisive = decisive_line(extraction, important)
    _text_evidence(found, knowledge, facts, important, decisive)
    error = extraction.lines[decisive].error_index if decisive >= 0 else -1
    return found, paste_facts(extraction, knowledge.infos, set(found), shown), error


def feature_rows(
    extraction: Extraction, hits: list[Hit], knowledge: Knowledge
) -> tuple[list[int], np.ndarray]:
    """Every candidate of a paste and its feature values (candidates x features), before
    scoring: what ``benchmarks/fit_ranker.py`` fits the weights on."""
    found, paste, _ = _evidence(extraction, hits, knowledge, {})
    records = list(found)
    return records, F.matrix([found[r] for r in records], paste)


def _fit(info: RecordInfo, paste: F.Paste, score: float) -> tuple[float, float, float]:
    """How well a variant fits the paste: its versions, its OS, then its score."""
    return (F.version_fit(info, paste), F.os_match(info, paste), score)


def rank(
    extraction: Extraction,
    hits: list[Hit],
    knowledge: Knowledge,
    *,
    limit: int = 10,
    learned: Mapping[str, str | None] | None = None,
) -> Triage:
    """Score every candidate and return the ranked triage of one paste."""
    choices: dict[int, int | None] = {}
    for error in extraction.errors:
        if learned and error.template in learned:
            rid = learned[error.template]
            if rid is None:
                choices[error.index] = None
            elif rid in knowledge.by_id:
                choices[error.index] = knowledge.by_id[rid]
    found, paste, decisive = _evidence(extraction, hits, knowledge, choices)
    rows = score(found, paste, knowledge.groups)
    return assemble(extraction, found, rows, knowledge, choices, limit, paste, decisive)
