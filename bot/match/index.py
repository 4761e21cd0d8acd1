"""The compiled match index: every record regex, checked at once, plus BM25.

Why not one engine over all regexes (``benchmarks/bench_match.py`` measures the
choice on the deadends corpus): an RE2 ``Set`` of the whole regexes is fast only
on text it has seen before, since its lazily built DFA explodes on the
``.*``-joined alternations and every *new* paste pays for the states it needs;
even a Set of plain literals builds its states lazily. Hyperscan scans fast but
builds slowly and misses some matches. So the index works in two steps:

1. every record regex is split into its top-level alternatives, and each
   alternative is keyed on the literals every match of it must contain
   (:func:`bot.match.patterns.required_literals`): on its rarest one when it
   needs them all, the others checked as substrings once the anchor is found;
   on each when any one will do (rarest among the branches of its segment,
   below). The keys, lower-cased, go into an Aho-Corasick automaton per
   segment of :data:`SEGMENT` consecutive records, built completely up front
   (nothing to warm up, so a first paste costs what a later one does); an
   update rebuilds only the segments holding changed records, not one
   automaton of all. The automaton holds each key's first :data:`ANCHOR_CHARS`
   characters only (a branch found by them has its whole keys checked as
   substrings: the same candidates), since whole keys would be most of the
   prefilter's memory;
2. each candidate alternative is confirmed on its line with its own RE2
   regex, compiled once (linear time, whatever the regex). Lines are taken
   most telling first, and at most :data:`MAX_CONFIRMATIONS` checks are made
   per paste, so a paste holding thousands of known errors costs bounded time.

Every regex runs under RE2 only. A record whose regex RE2 refuses
(lookarounds, backreferences: refused at import, but a database may hold
one stored before that check) keeps its place for search and show, its regex is
skipped, and the build says so in one WARNING naming the records.

Everything computed from one record alone (its regex branches and their keys,
its :class:`~bot.match.info.RecordInfo`, its text-index terms, its variant key)
comes from functions of that record (:func:`record_branches`,
:meth:`RecordInfo.of`, :func:`~bot.match.similarity.record_terms`,
:func:`~bot.match.info.variant_key`), so an update can reuse them for the
records it does not change. The index does not touch the garbage collector:
freezing the long-lived index objects (``gc.freeze``) is the process's call.
"""

from __future__ import annotations

import logging
import pickle
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from itertools import chain
from sys import intern
from typing import IO, Any, TypeVar, overload

import ahocorasick
import numpy as np
import re2

from bot.match.excerpt import Excerpt
from bot.match.extract import Extraction, extract
from bot.match.frozen import Frozen
from bot.match.info import RecordInfo, VariantKey, variant_key
from bot.match.normalise import terms
from bot.match.patterns import (
    Alternative,
    analyse,
    non_capturing,
    required_literals,
    split_alternatives,
)
from bot.match.rank import Hit, Knowledge, Match, Triage, feature_rows, rank
from bot.match.re2util import Matcher, matcher
from bot.match.regexcheck import re2_accepts
from bot.match.regexcheck import re2_options as _options
from bot.match.similarity import (
    Encoded,
    Similarity,
    TermIdf,
    Vocabulary,
    joined,
    joined_runs,
    record_terms,
)
from bot.match.variants import Variants, members
from bot.records import Record
from bot.records.packed import PackedRecords, pack, unpack

T = TypeVar("T")
log = logging.getLogger(__name__)
EAGER_COMPILE = 60_000
CONTEXT_SPAN = 3
CONTEXT_ONLY = 120
#: Records per prefilter segment: an update rebuilds the segments it touches, so smaller
#: segments make an update cheaper (and hold the interpreter lock for less), while each
#: segment adds a scan to every paste.
SEGMENT = 1024
#: Branch checks per paste: far more than a real paste needs, a bound for a paste of
#: thousands of different known errors.
MAX_CONFIRMATIONS = 500
#: Characters of a key the automaton holds: a short prefix keeps the trie small, and what
#: else a prefix finds is ruled out by checking the whole keys.
ANCHOR_CHARS = 8
_PRIORITY = {
    "exception": 0,
    "error": 1,
    "prose": 2,
    "banner": 3,
    "wrapper": 3,
    "context": 3,
    "frame": 4,
    "marker": 5,
}
_TYPE_NAME = re.compile(r"^[\w.$]*(?:Error|Exception|Warning|Fault|Failure)$")


@dataclass(frozen=True, slots=True)
class Branch(Frozen):
    """One top-level alternative of a record's regex, what the prefilter keys it on, and
    what a hit on it weighs (of its :class:`Alternative`, only what matching reads)."""

    text: str
    literal_chars: int  # alphanumeric literal characters (Alternative.literal_chars)
    type_named: bool  # its literal text is an exception type name
    keys: tuple[str, ...] | None  # required literals, lower-cased; None: always check
    all_needed: bool  # every key must occur (an AND filter), or any one (OR)


def _analysed(record: Record) -> list[tuple[Branch, Alternative]] | None:
    """Each branch of one record's regex with its analysis; None when RE2 refuses the regex."""
    if not re2_accepts(record.regex):  # lookarounds, backreferences
        return None
    out = []
    for branch in split_alternatives(record.regex):
        required = required_literals(branch)
        # keys recur across records ("connection", "error"): one string each
        keys = None if required is None else tuple(sorted({intern(k.lower()) for k in required[0]}))
        alternative = analyse(branch)
        named = bool(_TYPE_NAME.match(alternative.literal))
        all_needed = required is not None and required[1] > 1
        branch_of = Branch(branch, alternative.literal_chars, named, keys, all_needed)
        out.append((branch_of, alternative))
    return out


def record_branches(record: Record) -> list[Branch] | None:
    """The branches of one record's regex, or None when RE2 refuses the regex."""
    analysed = _analysed(record)
    return None if analysed is None else [branch for branch, _ in analysed]


def _anchor(
    required_by: list[tuple[int, tuple[str, ...], bool]],
) -> tuple[list[tuple[int, ...]], ahocorasick.Automaton | None]:
    """Key each branch on one literal for the automaton.

    A branch that needs all its literals is keyed on its rarest one (the literal
    fewest branches share: ``memory`` rather than ``error``), the others are
    checked only when the anchor is found; a branch that needs any one of its
    literals is keyed on each. The automaton holds the keys' first
    :data:`ANCHOR_CHARS` characters. Returns, per automaton key, the branches it
    anchors, and the automaton (None when no branch has a literal).
    """
    shared = Counter(chain.from_iterable(keys for _, keys, _ in required_by))  # keys are distinct
    anchored: dict[str, list[int]] = {}
    for alt, keys, all_needed in required_by:
        if all_needed:
            anchor = keys[0] if len(keys) == 1 else min(keys, key=lambda k: (shared[k], -len(k), k))
            anchored.setdefault(anchor[:ANCHOR_CHARS], []).append(alt)
        else:
            for key in dict.fromkeys(key[:ANCHOR_CHARS] for key in keys):
                anchored.setdefault(key, []).append(alt)
    if not anchored:
        return [], None
    automaton = ahocorasick.Automaton(ahocorasick.STORE_INTS)  # no int object per key
    for number, key in enumerate(anchored):
        automaton.add_word(key, number)
    automaton.make_automaton()
    return [tuple(branches) for branches in anchored.values()], automaton


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
        if l.role in ("exception", "error", "prose", "wrapper", "banner")
        or (l.role == "context" and i in near)
    ]


@dataclass(frozen=True, slots=True)
class RecordParts(Frozen):
    """Everything the index computes from one record alone; shared by every index that
    holds the record, so an update recomputes only the records it changes. The record
    itself is kept packed (:mod:`bot.records.packed`): matching reads only the parts."""

    id: str
    packed: bytes  # the record (:func:`~bot.records.packed.unpack`)
    branches: tuple[Branch, ...] | None  # None: RE2 refuses the regex
    #: the identity and the context documents (:attr:`identity`, :attr:`context`) in one
    #: buffer: four arrays and two tuples a record cost half a KB more
    documents: bytes
    info: RecordInfo
    variant: VariantKey

    @classmethod
    def of(cls, record: Record, vocabulary: Vocabulary) -> RecordParts:
        """The parts of ``record``, its terms numbered by ``vocabulary`` (which grows)."""
        analysed = _analysed(record)
        alternatives = None if analysed is None else [alt for _, alt in analysed]
        identity, context = record_terms(record, alternatives)
        return cls(
            record.id,
            pack(record),
            None if analysed is None else tuple(branch for branch, _ in analysed),
            _documents(vocabulary.encode(identity), vocabulary.encode(context)),
            RecordInfo.of(record),
            variant_key(record),
        )

    @property
    def record(self) -> Record:
        return unpack(self.packed)

    @property
    def identity(self) -> Encoded:
        """Identity text terms (numbered in first-seen order) and their counts."""
        return _document(self.documents, 0)

    @property
    def context(self) -> Encoded:
        """Context text terms and their weights."""
        return _document(self.documents, 1)


def _documents(identity: Encoded, context: Encoded) -> bytes:
    """Two encoded documents in one buffer: their sizes, then the weights (8-byte aligned),
    then the term numbers."""
    sizes = np.array([len(identity[0]), len(context[0])], dtype=np.int64)
    weights = [np.asarray(d[1], dtype=np.float64) for d in (identity, context)]
    numbers = [np.asarray(d[0], dtype=np.int32) for d in (identity, context)]
    arrays: list[np.ndarray] = [sizes, *weights, *numbers]
    return b"".join(array.tobytes() for array in arrays)


def _document(buffer: bytes, which: int) -> Encoded:
    """Document ``which`` (0 or 1) of a :func:`_documents` buffer, as read-only arrays."""
    first, second = np.frombuffer(buffer, dtype=np.int64, count=2).tolist()
    size = (first, second)[which]
    weights = 16 + (0 if which == 0 else 8 * first)
    numbers = 16 + 8 * (first + second) + (0 if which == 0 else 4 * first)
    return (
        np.frombuffer(buffer, dtype=np.int32, count=size, offset=numbers),
        np.frombuffer(buffer, dtype=np.float64, count=size, offset=weights),
    )


class _PartsView(Sequence[T]):
    """Something of each record, by position, read from its parts when asked (the records
    unpacked, their BM25 documents, their identity terms): kept for all, each would cost
    KBs a record, and a paste asks for its candidates' only."""

    __slots__ = ("_parts", "_read")

    def __init__(self, parts: Sequence[RecordParts], read: Callable[[RecordParts], T]) -> None:
        self._parts = parts
        self._read = read

    def __len__(self) -> int:
        return len(self._parts)

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...
    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self._read(part) for part in self._parts[index]]
        return self._read(self._parts[index])


def _unpacked(part: RecordParts) -> Record:
    return unpack(part.packed)


def _identity(part: RecordParts) -> Encoded:
    return part.identity


def _context(part: RecordParts) -> Encoded:
    return part.context


def _identity_terms(vocabulary: Vocabulary) -> Callable[[RecordParts], frozenset[str]]:
    """A record's identity terms, as a set made in the order the terms were first seen
    (as :meth:`RecordParts.of` saw them)."""
    terms = vocabulary.terms

    def read(part: RecordParts) -> frozenset[str]:
        return frozenset([terms[n] for n in part.identity[0].tolist()])

    return read


class _Segment:
    """The branch table and automaton of a run of consecutive records (by position):
    what one record's change rebuilds, instead of the whole index's. Its alternatives are
    numbered in the order first seen, its owners are positions within the run."""

    def __init__(
        self, parts: Sequence[RecordParts], compiled: Mapping[str, Matcher | None] | None = None
    ) -> None:
        """``compiled``: RE2 matchers by branch text, carried over from the segment this
        one replaces (compiling and warming them again cost more than the rest)."""
        self.parts = tuple(parts)
        carried = compiled or {}
        building: list[list[int]] = []  # alternative → the records whose regex has it
        # branch text → its alternative: identical branches are confirmed once
        seen: dict[str, int] = {}
        self.alts: list[Branch] = []  # alternative → the first branch of that text
        self.compiled: dict[int, Matcher | None] = {}
        self.always: list[int] = []  # alternatives without a prefilter key
        self.skipped: list[str] = []  # ids of records whose regex RE2 refuses
        required_by: list[tuple[int, tuple[str, ...], bool]] = []  # (alternative, keys, all needed)
        for i, part in enumerate(self.parts):
            if part.branches is None:
                self.skipped.append(part.id)
                continue
            for branch in part.branches:
                if branch.text in seen:
                    owners = building[seen[branch.text]]
                    if owners[-1] != i:
                        owners.append(i)
                    continue
                alt = seen[branch.text] = len(self.alts)
                self.alts.append(branch)
                building.append([i])
                if branch.text in carried:
                    self.compiled[alt] = carried[branch.text]
                if branch.keys is None:
                    self.always.append(alt)
                else:
                    required_by.append((alt, branch.keys, branch.all_needed))
        self.anchored, self.automaton = _anchor(required_by)
        self.owners = [tuple(owners) for owners in building]  # kept: tuples are smaller
        # the run's identity and context documents, joined once (for the BM25 arrays), and
        # what the index lists by record, per run: an update re-lists only the runs it changes
        self.identity = joined([p.identity for p in self.parts])
        self.context = joined([p.context for p in self.parts])
        self.info = tuple(p.info for p in self.parts)
        self.variants = tuple(p.variant for p in self.parts)

    def __len__(self) -> int:
        return len(self.parts)

    def warm(self) -> None:
        """Compile and first-run every branch regex not compiled yet."""
        for alt in range(len(self.alts)):
            if alt in self.compiled:
                continue
            # a first match builds the regex's first DFA states: done here, not in a paste
            regex = self.regex(alt)
            if regex is not None:
                signature = unpack(self.parts[self.owners[alt][0]].packed).signature
                regex(signature.encode("utf-8", "surrogatepass"))

    def text(self, alt: int) -> str:
        """The branch text of alternative ``alt``."""
        return self.alts[alt].text

    def regex(self, alt: int) -> Matcher | None:
        if alt not in self.compiled:
            try:
                pattern = non_capturing(self.alts[alt].text)
                self.compiled[alt] = matcher(re2.compile(pattern, _options()))
            except Exception:  # noqa: BLE001 - a branch RE2 cannot take alone is skipped
                self.compiled[alt] = None
        return self.compiled[alt]

    def candidates(self, low: str) -> list[int]:
        """Alternatives whose required literals occur in the lower-cased text ``low`` (all
        of them, or one for a branch that needs any one): the automaton finds the
        branches one of whose keys begins there, the whole keys are checked as substrings."""
        found = {key for _, key in self.automaton.iter(low)} if self.automaton else ()
        alts = self.alts
        candidates = set()
        for key in found:
            for alt in self.anchored[key]:
                branch = alts[alt]
                keys = branch.keys or ()
                if (all if branch.all_needed else any)(k in low for k in keys):
                    candidates.add(alt)
        candidates.update(self.always)
        return sorted(candidates)


def _positions(
    before: MatchIndex,
    parts: Sequence[RecordParts],
    changed: Collection[str],
    upserted: Collection[str],
) -> dict[str, int]:
    """Each record's position in ``parts``: the index before's own when no record came or
    went (edits keep every position), else read again."""
    came = any(k not in before._by_id for k in upserted)
    went = any(k in before._by_id and k not in upserted for k in changed)
    if not came and not went:
        return before._by_id
    return {part.id: n for n, part in enumerate(parts)}


def _segments(
    parts: Sequence[RecordParts], size: int, compiled: Mapping[str, Matcher | None] | None = None
) -> list[_Segment]:
    return [_Segment(parts[i : i + size], compiled) for i in range(0, len(parts), size)]


class MatchIndex:
    """All records, compiled for matching. Immutable once built; safe to share.

    Built from each record's :class:`RecordParts` (in the order given), their terms
    numbered by ``vocabulary``; the global structures (BM25 arrays, variant groups) are
    linked from them. The regex prefilter is kept in segments of about :data:`SEGMENT`
    consecutive records, each with its own automaton, so an update rebuilds only the
    segments it touches; a line is checked against every segment and the candidates are
    put back in the order one table of all records would give (first seen, by record),
    so what matches does not depend on where the segments are cut.
    """

    def __init__(
        self,
        parts: Sequence[RecordParts],
        vocabulary: Vocabulary,
        *,
        warm: bool = True,
        segments: Sequence[_Segment] | None = None,
        segment_size: int = SEGMENT,
        previous: tuple[MatchIndex, Collection[str], Collection[str]] | None = None,
        links: Links | None = None,
    ) -> None:
        """``warm``: compile and first-run every branch regex now (up to
        :data:`EAGER_COMPILE` branches), so no paste pays for it; a one-shot command
        that matches one paste leaves it off and compiles only the branches it checks.
        ``segments``: the prefilter segments of exactly ``parts``, in order (from
        :meth:`update`); made here, of ``segment_size`` records each, when not given.
        ``previous``: (the index these parts were updated from, the ids changed or removed
        since, the ids upserted), so the global structures are updated, not rebuilt.
        ``links``: what :attr:`links` gave for exactly these ``parts`` (from a snapshot,
        :func:`read_links`): taken as they are, nothing linked again."""
        self.parts: tuple[RecordParts, ...] = tuple(parts)
        self.vocabulary = vocabulary
        self._segment_size = segment_size
        if links is not None:
            segments = links.segments
        self._segments = list(segments or _segments(self.parts, segment_size))
        runs = self._segments
        self.records: Sequence[Record] = _PartsView(self.parts, _unpacked)
        self._variants = list(chain.from_iterable(s.variants for s in runs))
        identity_terms = _PartsView(self.parts, _identity_terms(vocabulary))
        self.info = list(chain.from_iterable(s.info for s in runs))
        if links is not None:
            self._by_id = {part.id: n for n, part in enumerate(self.parts)}
            self.similarity, self.context = links.similarity, links.context
            self.variants = links.variants
        elif previous is None:
            self._by_id = {part.id: n for n, part in enumerate(self.parts)}
            identity = joined_runs([s.identity for s in runs])
            self.similarity = Similarity.from_arrays(identity, vocabulary, identity_terms)
            del identity
            self.context = Similarity.from_arrays(
                joined_runs([s.context for s in runs]), vocabulary
            )
            self.variants = Variants.of(self._variants, [p.id for p in self.parts])
        else:  # from the index before, these records changed: only their share is redone
            before, changed, upserted = previous
            self._by_id = _positions(before, self.parts, changed, upserted)
            gone = sorted(before._by_id[k] for k in changed if k in before._by_id)
            added = sorted(self._by_id[k] for k in upserted)
            self.similarity = before.similarity.update(
                [s.identity for s in runs],
                _PartsView(self.parts, _identity),
                _PartsView(before.parts, _identity),
                identity_terms,
                gone,
                added,
            )
            self.context = before.context.update(
                [s.context for s in runs],
                _PartsView(self.parts, _context),
                _PartsView(before.parts, _context),
                (),
                gone,
                added,
            )
            self.variants = before.variants.update(
                before._variants,
                before._by_id,
                self._variants,
                lambda n: self.parts[n].id,
                gone,
                added,
            )
        self.groups = self.variants.groups
        self.knowledge = Knowledge(
            self.similarity, self.context, self.info, self.groups, self._by_id
        )
        self._offsets = [0] * len(self._segments)  # segment → the position of its first record
        for n in range(1, len(self._segments)):
            self._offsets[n] = self._offsets[n - 1] + len(self._segments[n - 1])
        self.skipped = [record_id for segment in self._segments for record_id in segment.skipped]
        if warm and sum(len(s.alts) for s in self._segments) <= EAGER_COMPILE:
            for segment in self._segments:  # small enough: no first-use cost
                segment.warm()
        if self.skipped:
            log.warning(
                "%d record(s) with a regex RE2 cannot run are matched by text only: %s",
                len(self.skipped),
                ", ".join(self.skipped),
                extra={"records": self.skipped},
            )

    @property
    def links(self) -> Links:
        """What this index linked from its records' parts (see :class:`Links`)."""
        return Links(tuple(self._segments), self.similarity, self.context, self.variants)

    @classmethod
    def build(
        cls, records: Sequence[Record], *, warm: bool = True, segment_size: int = SEGMENT
    ) -> MatchIndex:
        vocabulary = Vocabulary()
        parts = [RecordParts.of(r, vocabulary) for r in records]
        return cls(parts, vocabulary, warm=warm, segment_size=segment_size)

    def update(self, upserted: Sequence[Record], removed: Collection[str] = ()) -> MatchIndex:
        """A new index with ``upserted`` records added or replaced and ``removed`` ids gone,
        records ordered by id: the same index :meth:`build` makes of those records sorted
        by id. Only the changed records' parts, and the prefilter segments holding them,
        are computed; the others, with their compiled branches, are shared with this
        index (which stays valid). Not to be called from two threads at once (the shared
        vocabulary grows)."""
        segments = self._segments
        firsts = [segment.parts[0].id for segment in segments]
        changed: dict[int, dict[str, RecordParts | None]] = {}
        for record_id in removed:
            if record_id in self._by_id:
                n = bisect_right(firsts, record_id) - 1
                changed.setdefault(n, {})[record_id] = None
        for record in upserted:
            n = max(bisect_right(firsts, record.id) - 1, 0)
            changed.setdefault(n, {})[record.id] = RecordParts.of(record, self.vocabulary)
        rebuilt: list[_Segment] = []
        for n, segment in enumerate(segments):
            if n not in changed:
                rebuilt.append(segment)
                continue
            edits = changed.get(n, {})
            kept = {p.id: p for p in segment.parts if p.id not in edits}
            kept.update({k: p for k, p in edits.items() if p is not None})
            compiled = {segment.text(alt): m for alt, m in list(segment.compiled.items())}
            rebuilt += _segments([kept[k] for k in sorted(kept)], self._segment_size, compiled)
        if not segments and changed:  # an empty index: the new records are the first
            added = {k: p for k, p in changed[0].items() if p is not None}
            rebuilt = _segments([added[k] for k in sorted(added)], self._segment_size)
        parts = list(chain.from_iterable(segment.parts for segment in rebuilt))
        upserted_ids = {record.id for record in upserted}
        return MatchIndex(
            parts,
            self.vocabulary,
            segments=rebuilt,
            segment_size=self._segment_size,
            previous=(self, upserted_ids | set(removed), upserted_ids),
        )

    def __len__(self) -> int:
        return len(self.parts)

    def record(self, record_id: str) -> Record | None:
        index = self._by_id.get(record_id)
        return None if index is None else unpack(self.parts[index].packed)

    def packed_records(self) -> PackedRecords:
        """The records by id, still packed (what the graph keeps: the same bytes)."""
        return PackedRecords({part.id: part.packed for part in self.parts})

    def _line_hits(self, line: str) -> tuple[list[tuple[int, Branch]], int]:
        """(record, alternative) for every record branch that matches ``line``, and how
        many branches were checked. Each segment's candidates are taken in segment order;
        a branch text seen in an earlier segment is checked there only, with the owners
        of every segment (as one table of all records would)."""
        data = line.encode("utf-8", "surrogatepass")
        low = line.lower()
        order: dict[str, tuple[_Segment, int, list[int]]] = {}  # text → where first, owners
        for segment, offset in zip(self._segments, self._offsets, strict=True):
            for alt in segment.candidates(low):
                text = segment.text(alt)
                owners = [offset + owner for owner in segment.owners[alt]]
                if text in order:
                    order[text][2].extend(owners)
                else:
                    order[text] = (segment, alt, owners)
        found: list[tuple[int, Branch]] = []
        for segment, alt, owners in order.values():
            regex = segment.regex(alt)
            if regex is not None and regex(data):
                branch = segment.alts[alt]
                found.extend((owner, branch) for owner in owners)
        return found, len(order)

    def _hits(self, extraction: Extraction) -> list[Hit]:
        """Every (record, line) regex hit, with the longest branch that fired there.

        Lines are taken most telling first (exception, then error lines, the last
        ones first), and at most :data:`MAX_CONFIRMATIONS` branch checks are made
        per paste: a paste made of thousands of different known errors costs a
        bounded time and keeps the hits of its final errors.
        """
        lines = extraction.lines
        order = sorted(_scan_positions(extraction), key=lambda i: (_PRIORITY[lines[i].role], -i))
        best: dict[tuple[int, int], Branch] = {}
        budget = MAX_CONFIRMATIONS
        for position in order:
            if budget <= 0:
                break
            found, checked = self._line_hits(lines[position].text)
            budget -= checked
            for record, branch in found:
                known = best.get((record, position))
                if known is None or branch.literal_chars > known.literal_chars:
                    best[(record, position)] = branch
        return [
            Hit(record, position, branch.literal_chars, branch.type_named)
            for (record, position), branch in sorted(best.items())
        ]

    def triage(
        self,
        text: str | Excerpt | Extraction,
        *,
        limit: int = 10,
        learned: Mapping[str, str | None] | None = None,
    ) -> Triage:
        """Extract the errors of ``text`` and rank the records that answer them.

        ``text`` may be what was read of a long paste (:func:`bot.match.excerpt.excerpt`):
        line numbers are then the paste's own. It may also be its extraction already made
        (:func:`extract`), by a caller that read the errors first to ask what was learnt
        about them.

        ``learned`` maps normalised error templates (:attr:`ExtractedError.template`) to
        the record people chose for that error, or to None for "none of these records":
        a learned record wins over weaker lexical matches (its match carries the feature
        ``learned``), a None declines that error; ids not in the index are ignored.
        """
        extraction = text if isinstance(text, Extraction) else extract(text)
        return rank(
            extraction, self._hits(extraction), self.knowledge, limit=limit, learned=learned
        )

    def feature_rows(self, text: str) -> tuple[list[str], list[int], np.ndarray]:
        """Every candidate record of a paste (ids, variant groups) and its feature values,
        unscored: what the ranker's weights are fitted on."""
        extraction = extract(text)
        records, values = feature_rows(extraction, self._hits(extraction), self.knowledge)
        return [self.parts[r].id for r in records], [self.groups[r] for r in records], values

    def search(self, words: str, *, limit: int = 10) -> list[tuple[str, float]]:
        """Records best matching ``words`` in any text that names or describes them: the
        signature, aliases, error code and regex words first, the root cause and tags too,
        in every locale (Chinese by character bigrams). Scores are relative to the best
        match (1.0)."""
        query = terms(words)
        if not query or not self.parts:
            return []
        scores = self.similarity.scores(query, normalised=False) + 0.5 * self.context.scores(
            query, normalised=False
        )
        top = self.similarity.best(scores, limit)
        best = top[0][1] if top else 1.0
        return [(self.parts[i].id, round(score / best, 4)) for i, score in top]

    def variant_groups(self) -> list[list[str]]:
        """Records that are variants of one error (same template or id slug), by group."""
        return [[self.parts[i].id for i in m] for m in members(self.groups).values()]


__all__ = ["Match", "MatchIndex", "Triage"]


@dataclass(frozen=True)
class Links:
    """What an index works out from all its records' parts together: the prefilter
    segments (branch tables and automata), the two BM25 indexes and the variant groups.
    A snapshot keeps them (:func:`write_links`), so a restart or a one-shot command reads
    them instead of working them out again, which cost more than reading the parts."""

    segments: tuple[_Segment, ...]
    similarity: Similarity
    context: Similarity
    variants: Variants


class _LinksPickler(pickle.Pickler):
    """Pickles an index's :class:`Links` without what the snapshot holds already (the
    parts, what the segments list of them, the vocabulary) or what the serving process
    fills as it answers (compiled regexes, weighted postings, IDF by term): those are
    named, and :class:`_LinksUnpickler` puts the parts and vocabulary back and fresh caches
    in their place. Named by object identity: every object named is held by the index
    while it is written."""

    def __init__(self, out: IO[bytes], links: Links, vocabulary: Vocabulary) -> None:
        super().__init__(out, protocol=pickle.HIGHEST_PROTOCOL)
        named: dict[int, tuple[Any, ...]] = {
            id(vocabulary): ("vocabulary",),
            id(vocabulary.numbers): ("numbers",),
        }
        start = 0
        for segment in links.segments:
            end = start + len(segment)
            named[id(segment.parts)] = ("parts", start, end)
            named[id(segment.info)] = ("infos", start, end)
            named[id(segment.variants)] = ("variant keys", start, end)
            named[id(segment.compiled)] = ("empty",)
            for n, part in enumerate(segment.parts, start):
                for k, branch in enumerate(part.branches or ()):
                    named[id(branch)] = ("branch", n, k)
            start = end
        for similarity in (links.similarity, links.context):
            named[id(similarity._kept)] = ("empty",)
            named[id(similarity._room)] = ("room",)
            idf = similarity.idf
            named[id(idf)] = ("idf", idf._frequency, idf._size)
            if isinstance(similarity.doc_terms, _PartsView):
                named[id(similarity.doc_terms)] = ("identity terms",)
        self._named = named

    def persistent_id(self, obj: object) -> tuple[Any, ...] | None:
        return self._named.get(id(obj))


class _LinksUnpickler(pickle.Unpickler):
    def __init__(
        self, source: IO[bytes], parts: Sequence[RecordParts], vocabulary: Vocabulary
    ) -> None:
        super().__init__(source)
        self._parts = tuple(parts)
        self._vocabulary = vocabulary

    def persistent_load(self, pid: tuple[Any, ...]) -> object:
        kind = pid[0]
        if kind == "vocabulary":
            return self._vocabulary
        if kind == "numbers":
            return self._vocabulary.numbers
        if kind == "parts":
            return self._parts[pid[1] : pid[2]]
        if kind == "infos":
            return tuple(part.info for part in self._parts[pid[1] : pid[2]])
        if kind == "variant keys":
            return tuple(part.variant for part in self._parts[pid[1] : pid[2]])
        if kind == "branch":
            return self._parts[pid[1]].branches[pid[2]]  # type: ignore[index]
        if kind == "empty":
            return {}
        if kind == "room":
            return [-1]
        if kind == "idf":
            return TermIdf(self._vocabulary, pid[1], pid[2])
        if kind == "identity terms":
            return _PartsView(self._parts, _identity_terms(self._vocabulary))
        raise pickle.UnpicklingError(f"unknown name in a snapshot's links: {kind!r}")


def write_links(out: IO[bytes], links: Links, vocabulary: Vocabulary) -> None:
    """Write an index's ``links`` (:attr:`MatchIndex.links`) to ``out`` as one pickle,
    without its parts and ``vocabulary``, which the reader is given."""
    _LinksPickler(out, links, vocabulary).dump(links)


def read_links(source: IO[bytes], parts: Sequence[RecordParts], vocabulary: Vocabulary) -> Links:
    """The :class:`Links` :func:`write_links` wrote for an index of ``parts`` and
    ``vocabulary`` (as read back from the same snapshot)."""
    links = _LinksUnpickler(source, parts, vocabulary).load()
    if not isinstance(links, Links):
        raise pickle.UnpicklingError("a snapshot's links are not an index's")
    return links
