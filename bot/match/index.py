"""The compiled match index: every record regex, one pass per line, plus BM25.

Measured on the deadends corpus: an RE2 ``Set`` of all 2,522 record regexes
is fast only on text it has seen before. Its lazily built DFA explodes on the
``.*``-joined alternations, so every *new* paste costs 40–60 ms. So the
index works in two steps, both linear-time RE2:

1. every record regex is split into its top-level alternatives, and each
   alternative gets a prefilter key: a literal every match must contain
   (:func:`bot.match.patterns.prefilter_keys`). All keys go into a few RE2
   ``Set`` objects of plain literals (an Aho-Corasick-sized DFA, case-
   insensitive, :data:`SET_SIZE` keys and :data:`SET_MAX_MEM` bytes each).
   Each set is checked with a canary after compiling, so a failed compile
   fails loudly instead of passing for "no match";
2. the alternatives whose key occurs in a line are confirmed with their own
   compiled RE2 regex (compiled on first use).

Patterns RE2 refuses (lookarounds, backreferences) are matched by Python
``re`` on at most :data:`FALLBACK_INPUT` characters of a line.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import chain

import re2

from bot.errors import ErrkbError
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
from bot.match.similarity import Similarity
from bot.records import Record

SET_SIZE = 50_000
SET_MAX_MEM = 256 << 20
FALLBACK_INPUT = 500
EAGER_COMPILE = 60_000
WARM_RECORDS = 3_000  # records whose text warms the literal sets at build
CANARY = "\x01errkb\x02canary\x03"
CONTEXT_SPAN = 3
CONTEXT_ONLY = 120
_TYPE_NAME = re.compile(r"^[\w.$]*(?:Error|Exception|Warning|Fault|Failure)$")


_Matcher = Callable[[bytes], bool]


def _matcher(regex: re2._Regexp) -> _Matcher:
    """A yes/no test of UTF-8 bytes. It calls the compiled RE2 object directly when the
    binding exposes it: the public ``search`` re-encodes the text and builds a match
    object on every call, which costs more than the match itself on a short line."""
    raw = getattr(regex, "_regexp", None)
    anchor = getattr(getattr(re2, "_Anchor", None), "UNANCHORED", None)
    if raw is None or anchor is None:
        return lambda data: regex.search(data) is not None
    no_match = (-1, -1)
    match = raw.Match
    return lambda data: match(anchor, data, 0, len(data))[0] != no_match


class IndexBuildFailed(ErrkbError):
    key = "error.index"


def _options(max_mem: int = 8 << 20) -> re2.Options:
    options = re2.Options()
    options.case_sensitive = False
    options.max_mem = max_mem
    options.log_errors = False
    return options


def _compile_set(keys: list[str]) -> re2.Set:
    """A literal set; raises :class:`IndexBuildFailed` unless its canary matches."""
    literal_set = re2.Set.SearchSet(_options(SET_MAX_MEM))
    for key in keys:
        literal_set.Add(re2.escape(key))
    canary = literal_set.Add(re2.escape(CANARY))
    try:
        literal_set.Compile()
    except re2.error as exc:
        raise IndexBuildFailed(f"RE2 set of {len(keys)} literals failed to compile: {exc}") from exc
    if canary not in (literal_set.Match(CANARY) or []):
        raise IndexBuildFailed(f"RE2 set of {len(keys)} literals failed to compile (memory budget)")
    return literal_set


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
        seen: dict[
            str, int
        ] = {}  # branch text → its alternative: identical branches are confirmed once
        self._alts: list[Alternative] = []
        self._compiled: dict[int, _Matcher | None] = {}
        self._always: list[int] = []  # alternatives without a prefilter key
        self._fallback: list[tuple[int, re.Pattern[str]]] = []
        by_key: dict[str, list[int]] = {}
        self._need: list[int] = []  # alternative → how many of its keys a line must hold
        for i, record in enumerate(self.records):
            try:
                re2.compile(record.regex, _options())
            except Exception:  # noqa: BLE001 - RE2 refuses lookarounds/backrefs
                self._fallback.append((i, re.compile(record.regex, re.IGNORECASE)))
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
                self._need.append(required[1] if required else 0)
                if required is None:
                    self._always.append(alt)
                for key in required[0] if required else ():
                    by_key.setdefault(key, []).append(alt)
        if len(self._alts) <= EAGER_COMPILE:  # small enough: no first-use cost
            for alt in range(len(self._alts)):
                self._regex(alt)
        self._keys = list(by_key.values())
        names = list(by_key)
        self._sets = [
            (_compile_set(names[start : start + SET_SIZE]), start)
            for start in range(0, len(names), SET_SIZE)
        ]
        self._warm([t for r in self.records[:WARM_RECORDS] for t in (r.signature, r.root_cause)])

    def _warm(self, texts: Sequence[str]) -> None:
        """Build the literal sets' DFA states now, over the records' own text.

        RE2 builds DFA states lazily; without this the first pastes after a
        (re)build pay for the states that ordinary technical English needs.
        """
        for text in texts:
            for literal_set, _ in self._sets:
                literal_set.Match(text[:2000])

    @classmethod
    def build(cls, records: Sequence[Record]) -> MatchIndex:
        return cls(records)

    def __len__(self) -> int:
        return len(self.records)

    @property
    def fallback_ids(self) -> list[str]:
        """Records matched by Python ``re`` because RE2 refused their regex."""
        return [self.records[i].id for i, _ in self._fallback]

    def record(self, record_id: str) -> Record | None:
        index = self._by_id.get(record_id)
        return None if index is None else self.records[index]

    def _regex(self, alt: int) -> _Matcher | None:
        if alt not in self._compiled:
            try:
                pattern = non_capturing(self._alts[alt].pattern)
                self._compiled[alt] = _matcher(re2.compile(pattern, _options()))
            except Exception:  # noqa: BLE001 - a branch RE2 cannot take alone is skipped
                self._compiled[alt] = None
        return self._compiled[alt]

    def _line_hits(self, line: str) -> list[tuple[int, int]]:
        """(record, alternative) for every RE2 record branch that matches ``line``;
        alternative ``-1`` for a record matched by its Python ``re`` fallback."""
        data = line.encode("utf-8", "surrogatepass")
        keys = self._keys
        matched: list[int] = []
        for literal_set, offset in self._sets:
            matched.extend(
                offset + j for j in literal_set.Match(data) or () if offset + j < len(keys)
            )
        counts = Counter(chain.from_iterable(keys[j] for j in matched))
        need = self._need
        candidates = [alt for alt, seen in counts.items() if seen >= need[alt]]
        candidates.extend(self._always)
        found: list[tuple[int, int]] = []
        owners = self._owners
        for alt in sorted(candidates):
            regex = self._regex(alt)
            if regex is not None and regex(data):
                found.extend((owner, alt) for owner in owners[alt])
        if self._fallback:
            bounded = line[:FALLBACK_INPUT]
            found.extend(
                (record, -1) for record, pattern in self._fallback if pattern.search(bounded)
            )
        return found

    def _alternative(self, record: int, alt: int) -> Alternative:
        if alt >= 0:
            return self._alts[alt]
        return analyse(self.records[record].regex)

    def alternative_hits(self, line: str) -> list[tuple[int, Alternative]]:
        """(record, alternative) for every record branch that matches ``line``."""
        return [(record, self._alternative(record, alt)) for record, alt in self._line_hits(line)]

    def regex_hits(self, line: str) -> list[int]:
        """Indices of every record whose regex matches ``line``."""
        return sorted({record for record, _ in self._line_hits(line)})

    def _hits(self, extraction: Extraction) -> list[Hit]:
        hits: list[Hit] = []
        for position in _scan_positions(extraction):
            best: dict[int, Alternative] = {}
            for record, index in self._line_hits(extraction.lines[position].text):
                alt = self._alternative(record, index)
                if record not in best or alt.literal_chars > best[record].literal_chars:
                    best[record] = alt
            for record, alt in best.items():
                type_only = bool(_TYPE_NAME.match(alt.literal))
                hits.append(Hit(record, position, alt.literal_chars, type_only))
        return hits

    def triage(self, text: str, *, limit: int = 10) -> Triage:
        """Extract the errors of ``text`` and rank the records that answer them."""
        extraction = extract(text)
        return rank(extraction, self._hits(extraction), self.similarity, self.info, limit=limit)

    def search(self, words: str, *, limit: int = 10) -> list[tuple[str, float]]:
        """Records whose signature, aliases or translations best match ``words``."""
        top = self.similarity.top(terms(words), limit)
        return [(self.records[i].id, round(score, 4)) for i, score in top]


__all__ = ["IndexBuildFailed", "Match", "MatchIndex", "Triage"]
