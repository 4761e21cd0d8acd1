"""The compiled match index: every record regex, checked at once, plus BM25.

Measured on the deadends corpus (2,522 regexes, ``benchmarks/bench_match.py``):
an RE2 ``Set`` of the whole regexes is fast only on text it has seen before.
Its lazily built DFA explodes on the ``.*``-joined alternations, so every
*new* paste costs 30–60 ms; even a Set of plain literals builds its DFA states
lazily and paid 0.35 ms per new paste. Hyperscan scans fast but takes 11 s to
build (13 minutes at 100k records) and misses some matches. So the index works
in two steps:

1. every record regex is split into its top-level alternatives, and each
   alternative is keyed on the literals every match of it must contain
   (:func:`bot.match.patterns.required_literals`): on its rarest one when it
   needs them all, the others checked as substrings once the anchor is found;
   on each when any one will do. The keys, lower-cased, go into one
   Aho-Corasick automaton, built completely up front (10 ms for the corpus,
   0.03 ms per paste, nothing to warm up);
2. each candidate alternative is confirmed on its line with its own RE2
   regex, compiled once (linear time, whatever the regex). Lines are taken
   most telling first, and at most :data:`MAX_CONFIRMATIONS` checks are made
   per paste, so a paste holding thousands of known errors costs bounded time.

Every regex runs under RE2 only. A record whose regex RE2 refuses
(lookarounds, backreferences: refused at import since, but an older errkb
may have stored one) keeps its place for search and show, its regex is
skipped, and the build says so in one WARNING naming the records.
"""

from __future__ import annotations

import gc
import logging
import re
from collections import Counter
from collections.abc import Sequence

import ahocorasick
import re2

from bot.match.extract import Extraction, extract
from bot.match.normalise import terms
from bot.match.patterns import (
    Alternative,
    analyse,
    non_capturing,
    required_literals,
    split_alternatives,
)
from bot.match.rank import Hit, Match, RecordInfo, Triage, rank
from bot.match.re2util import Matcher, matcher
from bot.match.regexcheck import re2_options as _options
from bot.match.similarity import Similarity
from bot.records import Record

log = logging.getLogger(__name__)
EAGER_COMPILE = 60_000
CONTEXT_SPAN = 3
CONTEXT_ONLY = 120
MAX_CONFIRMATIONS = 500  # branch checks per paste; 280 real pastes needed at most 74
_PRIORITY = {"exception": 0, "error": 1, "prose": 2, "context": 3, "frame": 4, "marker": 5}
_TYPE_NAME = re.compile(r"^[\w.$]*(?:Error|Exception|Warning|Fault|Failure)$")


def _anchor(
    required_by: list[tuple[int, list[str], bool]],
) -> tuple[list[list[tuple[int, tuple[str, ...]]]], ahocorasick.Automaton | None]:
    """Key each branch on one literal for the automaton.

    A branch that needs all its literals is keyed on its rarest one (the literal
    fewest branches share: ``memory`` rather than ``error``), the others are
    checked only when the anchor is found; a branch that needs any one of its
    literals is keyed on each. Returns, per automaton key, the (branch, other
    literals) it anchors, and the automaton (None when no branch has a literal).
    """
    shared = Counter(key for _, keys, _ in required_by for key in set(keys))
    anchored: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for alt, keys, all_needed in required_by:
        if all_needed:
            anchor = min(keys, key=lambda k: (shared[k], -len(k), k))
            anchored.setdefault(anchor, []).append((alt, tuple(k for k in keys if k != anchor)))
        else:
            for key in keys:
                anchored.setdefault(key, []).append((alt, ()))
    if not anchored:
        return [], None
    automaton = ahocorasick.Automaton()
    for number, key in enumerate(anchored):
        automaton.add_word(key, number)
    automaton.make_automaton()
    return list(anchored.values()), automaton


def _scan_positions(extraction: Extraction) -> list[int]:
    """Lines worth a regex pass: error lines, prose, and context near an error line.

    Context lines far from any error (INFO chatter in a long log) are scanned
    only when the paste has no error line at all, and then only the last
    :data:`CONTEXT_ONLY` of them.
    """
    lines = extraction.lines
    errors = [i for i, l in enumerate(lines) if l.role in ("exception", "error")]
    near = {j for i in errors for j in range(i - CONTEXT_SPAN, i + CONTEXT_SPAN + 1)}
    if not errors:
        context = [i for i, l in enumerate(lines) if l.role == "context"][-CONTEXT_ONLY:]
        near = set(context)
    return [
        i
        for i, l in enumerate(lines)
        if l.role in ("exception", "error", "prose") or (l.role == "context" and i in near)
    ]


class MatchIndex:
    """All records, compiled for matching. Immutable once built; safe to share."""

    def __init__(self, records: Sequence[Record]) -> None:
        self.records: tuple[Record, ...] = tuple(records)
        self._by_id = {r.id: i for i, r in enumerate(self.records)}
        self.similarity = Similarity.build(self.records)
        self.info = [RecordInfo.of(r) for r in self.records]
        self._owners: list[list[int]] = []  # alternative → the records whose regex has it
        # branch text → its alternative: identical branches are confirmed once
        seen: dict[str, int] = {}
        self._alts: list[Alternative] = []
        self._compiled: dict[int, Matcher | None] = {}
        self._always: list[int] = []  # alternatives without a prefilter key
        self.skipped: list[str] = []  # ids of records whose regex RE2 refuses
        required_by: list[tuple[int, list[str], bool]] = []  # (alternative, keys, all needed)
        for i, record in enumerate(self.records):
            try:
                re2.compile(record.regex, _options())
            except Exception:  # noqa: BLE001 - RE2 refuses lookarounds/backrefs
                self.skipped.append(record.id)
                continue
            for branch in split_alternatives(record.regex):
                if branch in seen:
                    owners = self._owners[seen[branch]]
                    if owners[-1] != i:
                        owners.append(i)
                    continue
                alt = seen[branch] = len(self._alts)
                self._alts.append(analyse(branch))
                self._owners.append([i])
                required = required_literals(branch)
                if required is None:
                    self._always.append(alt)
                else:
                    keys = sorted({key.lower() for key in required[0]})
                    required_by.append((alt, keys, required[1] > 1))
        if len(self._alts) <= EAGER_COMPILE:  # small enough: no first-use cost
            for alt in range(len(self._alts)):
                # a first match builds the regex's first DFA states: done here, not in a paste
                regex = self._regex(alt)
                if regex is not None:
                    regex(
                        self.records[self._owners[alt][0]].signature.encode(
                            "utf-8", "surrogatepass"
                        )
                    )
        self._anchored, self._automaton = _anchor(required_by)
        if self.skipped:
            log.warning(
                "%d record(s) with a regex RE2 cannot run are matched by text only: %s",
                len(self.skipped), ", ".join(self.skipped), extra={"records": self.skipped},
            )  # fmt: skip

    @classmethod
    def build(cls, records: Sequence[Record]) -> MatchIndex:
        index = cls(records)
        # The index is millions of long-lived objects. Left to the cyclic garbage
        # collector, a full collection walks all of them in the middle of some paste
        # (100 ms on the corpus); frozen, collections skip them. They are still freed
        # by reference counting when a rebuilt index replaces this one.
        gc.collect()
        gc.freeze()
        return index

    def __len__(self) -> int:
        return len(self.records)

    def record(self, record_id: str) -> Record | None:
        index = self._by_id.get(record_id)
        return None if index is None else self.records[index]

    def _regex(self, alt: int) -> Matcher | None:
        if alt not in self._compiled:
            try:
                pattern = non_capturing(self._alts[alt].pattern)
                self._compiled[alt] = matcher(re2.compile(pattern, _options()))
            except Exception:  # noqa: BLE001 - a branch RE2 cannot take alone is skipped
                self._compiled[alt] = None
        return self._compiled[alt]

    def _candidates(self, text: str) -> list[int]:
        """Branches whose required literals occur in ``text``: the anchor found by the
        automaton, the others checked as substrings of the lower-cased text."""
        low = text.lower()
        found = {key for _, key in self._automaton.iter(low)} if self._automaton else ()
        candidates = {
            alt
            for key in found
            for alt, others in self._anchored[key]
            if all(other in low for other in others)
        }
        candidates.update(self._always)
        return sorted(candidates)

    def _line_hits(self, line: str) -> tuple[list[tuple[int, int]], int]:
        """(record, alternative) for every record branch that matches ``line``, and how
        many branches were checked."""
        data = line.encode("utf-8", "surrogatepass")
        found: list[tuple[int, int]] = []
        candidates = self._candidates(line)
        for alt in candidates:
            regex = self._regex(alt)
            if regex is not None and regex(data):
                found.extend((owner, alt) for owner in self._owners[alt])
        return found, len(candidates)

    def regex_hits(self, line: str) -> list[int]:
        """Indices of every record whose regex matches ``line``."""
        return sorted({record for record, _ in self._line_hits(line)[0]})

    def _hits(self, extraction: Extraction) -> list[Hit]:
        """Every (record, line) regex hit, with the longest branch that fired there.

        Lines are taken most telling first (exception, then error lines, the last
        ones first), and at most :data:`MAX_CONFIRMATIONS` branch checks are made
        per paste: a paste made of thousands of different known errors costs a
        bounded time and keeps the hits of its final errors.
        """
        lines = extraction.lines
        order = sorted(_scan_positions(extraction), key=lambda i: (_PRIORITY[lines[i].role], -i))
        best: dict[tuple[int, int], Alternative] = {}
        budget = MAX_CONFIRMATIONS
        for position in order:
            if budget <= 0:
                break
            found, checked = self._line_hits(lines[position].text)
            budget -= checked
            for record, alt in found:
                branch = self._alts[alt]
                known = best.get((record, position))
                if known is None or branch.literal_chars > known.literal_chars:
                    best[(record, position)] = branch
        return [
            Hit(record, position, alt.literal_chars, bool(_TYPE_NAME.match(alt.literal)))
            for (record, position), alt in sorted(best.items())
        ]

    def triage(self, text: str, *, limit: int = 10) -> Triage:
        """Extract the errors of ``text`` and rank the records that answer them."""
        extraction = extract(text)
        return rank(extraction, self._hits(extraction), self.similarity, self.info, limit=limit)

    def search(self, words: str, *, limit: int = 10) -> list[tuple[str, float]]:
        """Records whose signature, aliases or translations best match ``words``."""
        top = self.similarity.top(terms(words), limit)
        return [(self.records[i].id, round(score, 4)) for i, score in top]


__all__ = ["Match", "MatchIndex", "Triage"]
