"""BM25 over what each record is known by, in two indexes of weighted fields.

- *identity*: the texts an error is recognised by: the signature, aliases, error
  code and the translated signatures (every locale);
- *context*: the texts that describe it: the id's words, the regex's literal
  words, tags, the root cause and its translations, and what its workarounds do
  (a paste of ``apt-get install`` failing meets the record whose fix is to run
  ``apt-get update`` in the same layer).

Chinese runs are indexed as character bigrams (:func:`bot.match.normalise.terms`),
so a Chinese query finds records whose Chinese text contains it; identifiers
are split into their parts. The terms of each record come from
:func:`record_terms`, a function of that record alone. Built once per index; a
query is a handful of numpy ``bincount`` calls over posting arrays, never a
Python loop over records, and a build is array operations over documents
encoded once (:class:`Vocabulary`). Postings keep raw counts and are weighted when
queried (the average document length and the document frequencies move with any
change, and every weight with them), so an update (:meth:`Similarity.update`) makes
postings for the changed documents only and shares the rest; what every document
needs at once (its self-score) is worked out again run by run. Scores
are normalised by each document's self-score, so ``1.0`` means the query contains
every term of the record's text.
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from bot.match.normalise import recent_terms
from bot.match.normalise import terms as text_terms
from bot.match.patterns import Alternative, analyse, split_alternatives
from bot.match.variants import moved
from bot.records import Record

K1 = 1.2
B = 0.75
#: An update makes postings for the documents changed since the last full build; past
#: this share of all documents (and at least :data:`FOLD_LEAST` of them), they are folded
#: into a new base (one build's worth of memory, once in that many changes).
FOLD_SHARE = 0.05
FOLD_LEAST = 64
#: The share of an index's postings kept weighted for the terms queries meet (a paste's
#: common terms are weighted once per index, not once per paste).
CACHED_SHARE = 0.25
#: Postings weighted at a time when an update weighs again the terms queries met before
#: it (about a millisecond of array work in one step).
WARM_BATCH = 50_000
#: How much each field counts in a record's context document.
CONTEXT_FIELDS = {
    "slug": 1.0,
    "regex": 1.0,
    "error_code": 1.0,
    "tags": 0.6,
    "root_cause": 0.5,
    "fixes": 0.5,
}


def record_text(record: Record) -> list[str]:
    """The texts a record is known by: signature, aliases, translated signatures, error code."""
    texts = [record.signature, *record.aliases]
    texts += [t.signature for _, t in sorted(record.translations.items()) if t.signature]
    if record.error_code:
        texts.append(str(record.error_code))
    return texts


def context_text(
    record: Record, alternatives: Sequence[Alternative] | None = None
) -> dict[str, list[str]]:
    """The texts that describe a record, by field of :data:`CONTEXT_FIELDS`;
    ``alternatives``: its regex's top-level alternatives, when already analysed."""
    if alternatives is None:
        alternatives = [analyse(branch) for branch in split_alternatives(record.regex)[:12]]
    parts = record.id.split("/")
    slug = parts[1] if len(parts) > 2 else parts[-1]
    causes = [record.root_cause or ""]
    causes += [t.root_cause for _, t in sorted(record.translations.items()) if t.root_cause]
    return {
        "slug": [slug.replace("-", " ").replace("_", " ")],
        "regex": [alternative.literal for alternative in alternatives[:12]],
        "error_code": [str(record.error_code)] if record.error_code else [],
        "tags": [str(tag) for tag in record.tags],
        "root_cause": [c for c in causes if c],
        "fixes": [w.action for w in record.workarounds],
    }


def record_terms(
    record: Record, alternatives: Sequence[Alternative] | None = None
) -> tuple[Counter[str], dict[str, float]]:
    """The identity and the context terms of one record, with their (weighted) counts."""
    identity = Counter(t for text in record_text(record) for t in text_terms(text))
    context: dict[str, float] = {}
    get = context.get
    for name, texts in context_text(record, alternatives).items():
        weight = CONTEXT_FIELDS[name]
        scan = (
            recent_terms if name == "regex" else text_terms
        )  # regex literals: often the same across records
        for text in texts:
            for term in scan(text):
                context[term] = get(term, 0.0) + weight
    return identity, context


#: One document encoded: its terms' numbers (in a :class:`Vocabulary`) and their counts.
Encoded = tuple[np.ndarray, np.ndarray]


#: Documents joined: all their terms' numbers, all their counts, and each one's number of terms.
Joined = tuple[np.ndarray, np.ndarray, np.ndarray]


def joined(docs: Sequence[Encoded]) -> Joined:
    """Encoded documents as one run, in order."""
    per_doc = np.fromiter((len(n) for n, _ in docs), dtype=np.int64, count=len(docs))
    return _concatenated([n for n, _ in docs], [c for _, c in docs], [per_doc])


def joined_runs(runs: Sequence[Joined]) -> Joined:
    """Runs of documents, each already :func:`joined`, as one run, in order."""
    return _concatenated([r[0] for r in runs], [r[1] for r in runs], [r[2] for r in runs])


def _concatenated(
    numbers: list[np.ndarray], tfs: list[np.ndarray], per_doc: list[np.ndarray]
) -> Joined:
    if not numbers:
        return np.zeros(0, np.int32), np.zeros(0, np.float64), np.zeros(0, np.int64)
    return np.concatenate(numbers), np.concatenate(tfs), np.concatenate(per_doc)


class Vocabulary:
    """Terms numbered in the order first seen; it only grows. Shared by the indexes built
    one after another, so a document encoded once stays valid for every later build."""

    def __init__(self) -> None:
        self.numbers: dict[str, int] = {}
        self.terms: list[str] = []

    def __len__(self) -> int:
        return len(self.terms)

    def copy(self) -> Vocabulary:
        """The terms numbered so far (to store, while this one may still grow)."""
        copied = Vocabulary()
        copied.numbers, copied.terms = dict(self.numbers), list(self.terms)
        return copied

    def encode(self, doc: Mapping[str, float]) -> Encoded:
        numbers = self.numbers
        terms = self.terms
        added = [term for term in doc if term not in numbers]  # numbered in the doc's order
        if added:
            numbers.update(zip(added, range(len(terms), len(terms) + len(added)), strict=True))
            terms += added
        return (
            np.fromiter(map(numbers.__getitem__, doc), dtype=np.int32, count=len(doc)),
            np.fromiter(doc.values(), dtype=np.float64, count=len(doc)),
        )


class TermIdf(dict[str, float]):
    """The IDF of each term of a build's documents, by term: worked out the first time a
    term is asked for, then kept (a dict of every term, filled up front, cost half a
    second per build at 100k records). ``idf[term]`` raises KeyError for a term in none of
    the documents; :meth:`weight` gives it 0.0."""

    def __init__(self, vocabulary: Vocabulary, frequency: np.ndarray, size: int) -> None:
        super().__init__()
        self._numbers, self._known = vocabulary.numbers, len(frequency)
        self._frequency = frequency
        self._size = size

    def weight(self, term: str) -> float:
        known = self.get(term)
        if known is None:
            self._work_out([term])
            known = self.get(term, 0.0)
        return known

    def total(self, terms: Iterable[str]) -> float:
        """The sum of :meth:`weight` over ``terms``, added in their order; the terms not
        worked out yet are, in one array step (a long line brings hundreds at once)."""
        terms = list(terms)
        get = self.get
        if not all(term in self for term in terms):
            self._work_out([term for term in terms if term not in self])
        return sum(get(term, 0.0) for term in terms)

    def _work_out(self, terms: list[str]) -> None:
        """Keep the IDF of each of ``terms`` that some document has (the others weigh 0.0)."""
        known, numbers = self._known, self._numbers
        asked = [(term, n) for term in terms if (n := numbers.get(term, known)) < known]
        if not asked:
            return
        frequency = self._frequency[np.array([n for _, n in asked], dtype=np.int64)]
        worked = _idf(self._size, frequency).tolist()
        for (term, _), seen, value in zip(asked, frequency.tolist(), worked, strict=True):
            if seen:
                self[term] = value

    def __missing__(self, term: str) -> float:
        value = self.weight(term)
        if term not in self:
            raise KeyError(term)
        return value


def _idf(size: int, frequency: np.ndarray) -> np.ndarray:
    """BM25's IDF of terms in ``frequency`` documents of ``size`` (one formula for every
    caller: the same inputs give the same bits wherever they are computed)."""
    df = frequency.astype(np.float64)
    return np.log(1 + (size - df + 0.5) / (df + 0.5))  # type: ignore[no-any-return]


def _floats(values: np.ndarray) -> array[float]:
    """``values`` as a compact array that gives Python floats."""
    out = array("d")
    out.frombytes(values.astype(np.float64, copy=False).tobytes())
    return out


def _weights(idf_each: np.ndarray, tfs: np.ndarray, norm_each: np.ndarray) -> np.ndarray:
    """BM25 term weights of postings (float64), each with its term's IDF and its
    document's length norm."""
    return idf_each * tfs * (K1 + 1) / (tfs + norm_each)  # type: ignore[no-any-return]


@dataclass(frozen=True)
class Postings:
    """Term-major postings of some documents: those of term number ``n`` are
    ``ids[starts[n]:starts[n + 1]]`` (by document) with their counts in the same slice of
    ``tfs``; a term numbered after these were made has none. With ``terms`` (the term
    numbers that have postings, sorted), ``starts`` is by place in ``terms`` instead: a
    table as long as the terms these documents have, not the vocabulary. Never changed
    once made, so the indexes updated from one another share them."""

    starts: np.ndarray
    ids: np.ndarray
    tfs: np.ndarray
    terms: np.ndarray | None = None

    @classmethod
    def of(
        cls, docs: Joined, terms: int, doc_ids: np.ndarray | None = None, *, compact: bool = False
    ) -> Postings:
        """The postings of joined ``docs`` (numbered 0…, or ``doc_ids``), for the first
        ``terms`` term numbers (``compact``: a table of the terms they have)."""
        numbers, tfs, per_doc = docs
        count = len(per_doc)
        ids = np.arange(count, dtype=np.int32) if doc_ids is None else doc_ids.astype(np.int32)
        order = np.argsort(numbers, kind="stable")  # by term, each term's postings by document
        ids, tfs = np.repeat(ids, per_doc)[order], tfs[order]
        if compact:
            present, counts = np.unique(numbers, return_counts=True)
            starts = np.zeros(len(present) + 1, dtype=np.int64)
            np.cumsum(counts, out=starts[1:])
            return cls(starts, ids, tfs, present)
        starts = np.zeros(terms + 1, dtype=np.int64)
        np.cumsum(np.bincount(numbers, minlength=terms), out=starts[1:])
        return cls(starts, ids, tfs)

    def found(self, terms: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The postings of term numbers ``terms``, term by term, without a loop: their
        documents, counts, and which of ``terms`` each one is of (by position)."""
        if self.terms is None:
            inside = np.flatnonzero(terms < len(self.starts) - 1)
            rows = terms[inside]
        else:
            at = np.searchsorted(self.terms, terms)
            inside = (
                np.flatnonzero(self.terms[np.minimum(at, len(self.terms) - 1)] == terms)
                if len(self.terms)
                else at[:0]
            )
            rows = at[inside]
        first = self.starts[rows]
        lengths = self.starts[rows + 1] - first
        if not len(lengths):
            empty = np.zeros(0, np.int64)
            return empty, empty.astype(np.float64), empty
        ends = np.cumsum(lengths)
        positions = np.arange(int(ends[-1])) + np.repeat(first - (ends - lengths), lengths)
        return self.ids[positions], self.tfs[positions], np.repeat(inside, lengths)


@dataclass(frozen=True)
class Similarity:
    """BM25 over documents, kept as postings of raw counts and weighted when queried
    (with the current document frequencies and average length), so an update makes
    postings for the changed documents only: those of the last full build (``base``,
    shared with every index updated from it, its documents mapped to their current
    numbers, a changed one's to none) and those of every document added or changed
    since (``delta``, made again at each update and folded into a new base when it
    grows past :data:`FOLD_SHARE` of the documents). What depends on every document at
    once (each one's self-score and IDF weight) is one array a document, worked out again
    run by run of documents. Scores equal a fresh build's of the same documents, bit
    for bit."""

    size: int
    idf: TermIdf
    #: term → its number (in a vocabulary shared with later builds, which may add terms)
    vocabulary: Vocabulary = field(repr=False)
    frequency: np.ndarray = field(repr=False)  # term number → how many documents have it
    base: Postings = field(repr=False)
    #: base document → its number now (-1: removed or changed since); None: the same
    base_map: np.ndarray | None = field(repr=False)
    delta: Postings | None = field(repr=False)
    delta_docs: np.ndarray = field(repr=False)  # the documents in ``delta``, sorted
    lengths: np.ndarray = field(repr=False)  # each document's length (its counts summed)
    norm: np.ndarray = field(repr=False)  # each document's length norm
    self_score: np.ndarray = field(repr=False)
    doc_terms: Sequence[frozenset[str]] = field(repr=False, default=())
    #: each document's terms' IDF summed (Python floats when read, 8 bytes each)
    doc_weight: Sequence[float] = field(repr=False, default=())
    #: term number → its postings' documents and weights, as queries meet them (up to
    #: :data:`CACHED_SHARE` of the postings): a common term is weighted once per index
    _kept: dict[int, tuple[np.ndarray, np.ndarray]] = field(
        default_factory=dict, repr=False, compare=False
    )
    _room: list[int] = field(default_factory=lambda: [-1], repr=False, compare=False)

    @classmethod
    def build(cls, records: Sequence[Record]) -> Similarity:
        """The identity index of ``records``."""
        return cls.from_docs([record_terms(r)[0] for r in records])

    @classmethod
    def from_docs(
        cls, docs: Sequence[Mapping[str, float]], *, keep_terms: bool = True
    ) -> Similarity:
        """BM25 over documents given as term → (weighted) count; ``keep_terms``: keep each
        document's terms (:attr:`doc_terms`) for comparing a line with it."""
        vocabulary = Vocabulary()
        return cls.from_encoded(
            [vocabulary.encode(d) for d in docs],
            vocabulary,
            tuple(frozenset(d) for d in docs) if keep_terms else (),
        )

    @classmethod
    def from_encoded(
        cls,
        docs: Sequence[Encoded],
        vocabulary: Vocabulary,
        doc_terms: Sequence[frozenset[str]] = (),
    ) -> Similarity:
        """BM25 over documents encoded by ``vocabulary`` (:meth:`Vocabulary.encode`), in
        array operations. ``doc_terms``: each document's terms, when kept for comparing
        lines with them; only then is :attr:`idf` by term read."""
        return cls.from_arrays(joined(docs), vocabulary, doc_terms)

    @classmethod
    def from_arrays(
        cls,
        docs: Joined,
        vocabulary: Vocabulary,
        doc_terms: Sequence[frozenset[str]] = (),
    ) -> Similarity:
        """:meth:`from_encoded` of documents already :func:`joined` (runs of documents
        joined once, then together)."""
        numbers, tfs, per_doc = docs
        count = len(per_doc)
        frequency = np.bincount(numbers, minlength=len(vocabulary)).astype(np.int32)
        doc = np.repeat(np.arange(count, dtype=np.int32), per_doc)
        lengths = np.bincount(doc, weights=tfs, minlength=count)
        base = Postings.of(docs, len(vocabulary))
        return cls._weighted(
            [docs],
            vocabulary,
            frequency,
            lengths,
            doc_terms,
            base,
            None,
            None,
            np.zeros(0, np.int64),
        )

    def update(
        self,
        runs: Sequence[Joined],
        docs: Sequence[Encoded],
        before: Sequence[Encoded],
        doc_terms: Sequence[frozenset[str]],
        removed: Sequence[int],
        added: Sequence[int],
    ) -> Similarity:
        """The index :meth:`from_arrays` makes of the documents now: ``runs``, joined
        runs of consecutive documents that together are all of them (``docs``: the same
        documents one by one); those at ``removed`` (sorted positions in ``before``, the
        documents of this index) taken out and those at ``added`` (sorted positions now)
        put in. Postings are made for the documents added since the last full build
        only; the terms queries met in this index are weighted for the new one (so the
        pastes after the update do not)."""
        vocabulary = self.vocabulary
        count = sum(len(run[2]) for run in runs)
        old_count = len(self.lengths)
        gone = np.array(removed, dtype=np.int64)
        new = np.array(added, dtype=np.int64)
        kept = moved(old_count, removed, added)  # old document → new
        kept[gone] = -1
        frequency = np.zeros(len(vocabulary), dtype=np.int32)
        frequency[: len(self.frequency)] = self.frequency
        for j in removed:
            np.subtract.at(frequency, before[j][0], 1)
        lengths = np.zeros(count, dtype=np.float64)
        alive = kept >= 0
        lengths[kept[alive]] = self.lengths[alive]
        for j in added:  # summed as a build sums them (in order, from zero)
            numbers, counts = docs[j]
            np.add.at(frequency, numbers, 1)
            lengths[j] = np.bincount(np.zeros(len(counts), np.intp), counts, minlength=1)[0]
        delta_docs = np.union1d(kept[self.delta_docs][kept[self.delta_docs] >= 0], new)
        if len(delta_docs) > max(FOLD_LEAST, FOLD_SHARE * count):  # folded into a new base
            base = Postings.of(joined_runs(runs), len(vocabulary))
            updated = self._weighted(
                runs,
                vocabulary,
                frequency,
                lengths,
                doc_terms,
                base,
                None,
                None,
                np.zeros(0, np.int64),
            )
        else:
            base_map = (
                kept
                if self.base_map is None
                else np.where(self.base_map >= 0, kept[self.base_map], -1)
            )
            base_map = base_map.astype(np.int32)  # a changed document's old postings: none (-1)
            delta = Postings.of(
                joined([docs[j] for j in delta_docs.tolist()]),
                len(vocabulary),
                delta_docs,
                compact=True,
            )
            updated = self._weighted(
                runs,
                vocabulary,
                frequency,
                lengths,
                doc_terms,
                self.base,
                base_map,
                delta,
                delta_docs,
            )
        # the terms queries met here are weighted again now, not by the first pastes after,
        # a batch of about WARM_BATCH postings at a time (no one array step holds the
        # interpreter long: a server's update gives way to requests between steps)
        batch: list[int] = []
        held = 0
        for term, (ids, _) in sorted(self._kept.items()):
            batch.append(term)
            held += len(ids)
            if held >= WARM_BATCH:
                updated._weigh(np.array(batch, dtype=np.int64))
                batch = []
                held = 0
        if batch:
            updated._weigh(np.array(batch, dtype=np.int64))
        return updated

    @classmethod
    def _weighted(
        cls,
        runs: Sequence[Joined],
        vocabulary: Vocabulary,
        frequency: np.ndarray,
        lengths: np.ndarray,
        doc_terms: Sequence[frozenset[str]],
        base: Postings,
        base_map: np.ndarray | None,
        delta: Postings | None,
        delta_docs: np.ndarray,
    ) -> Similarity:
        """The index with its per-document sums (self-score, IDF weight) worked out run by
        run of ``runs`` (no array as long as all the postings is made)."""
        count = len(lengths)
        size = max(count, 1)
        average = (float(lengths.mean()) if count else 0.0) or 1.0
        norm = K1 * (1 - B + B * lengths / average)
        self_score = np.zeros(count, dtype=np.float64)
        doc_weight = np.zeros(count, dtype=np.float64)
        start = 0
        for numbers, tfs, per_doc in runs:
            n = len(per_doc)
            if n:
                doc = np.repeat(np.arange(n, dtype=np.int32), per_doc)
                idf_each = _idf(size, frequency[numbers])
                weights = _weights(idf_each, tfs, norm[start + doc])
                self_score[start : start + n] = np.bincount(doc, weights=weights, minlength=n)
                doc_weight[start : start + n] = np.bincount(doc, weights=idf_each, minlength=n)
                start += n
        self_score[self_score == 0] = 1.0
        doc_weight[doc_weight == 0] = 1.0
        # what ranking compares lines with: the terms' IDF by name, when terms are kept
        idf = TermIdf(vocabulary, frequency if doc_terms else frequency[:0], size)
        return cls(
            count,
            idf,
            vocabulary,
            frequency,
            base,
            base_map,
            delta,
            delta_docs,
            lengths,
            norm,
            self_score,
            doc_terms,
            _floats(doc_weight),
        )

    def scores(self, query_terms: Collection[str], *, normalised: bool = True) -> np.ndarray:
        """BM25 of every record against the query terms; normalised by each record's
        self-score (0..1-ish: how much of the record the query holds), or plain (how
        much of the query the record holds, for searching by a few words)."""
        numbers = self.vocabulary.numbers
        frequency = self.frequency
        known = len(frequency)  # terms numbered after this build are in none of its documents
        terms = query_terms if isinstance(query_terms, (set, frozenset)) else set(query_terms)
        found = np.fromiter(
            (n for t in terms if (n := numbers.get(t, known)) < known and frequency[n] > 0),
            dtype=np.int64,
        )
        if not len(found):
            return np.zeros(self.size, dtype=np.float64)
        ids, weights = self._postings(found)
        found_scores = np.bincount(ids, weights=weights, minlength=self.size).astype(
            np.float64, copy=False
        )
        return found_scores / self.self_score if normalised else found_scores

    def _postings(self, found: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The documents and BM25 weights (float32, as a build's) of the postings of
        term numbers ``found``, term by term in that order: weighted here for the terms
        no query met yet, in one batch of array operations."""
        kept = self._kept
        wanted = found.tolist()
        missing = [t for t in wanted if t not in kept]
        weighed = self._weigh(np.array(missing, dtype=np.int64)) if missing else kept
        pairs = [kept[t] if t in kept else weighed[t] for t in wanted]
        if len(pairs) == 1:
            return pairs[0]
        return np.concatenate([p[0] for p in pairs]), np.concatenate([p[1] for p in pairs])

    def _weigh(self, terms: np.ndarray) -> dict[int, tuple[np.ndarray, np.ndarray]]:
        """The postings of ``terms`` weighted, by term (kept for later queries while there
        is room)."""
        idf = _idf(max(self.size, 1), self.frequency[terms])
        groups = []
        for postings, mapping in ((self.base, self.base_map), (self.delta, None)):
            if postings is None:
                continue
            ids, tfs, which = postings.found(terms)
            if mapping is not None:  # base documents by their number now; changed ones out
                ids = mapping[ids]
                live = ids >= 0
                ids, tfs, which = ids[live], tfs[live], which[live]
            weights = _weights(idf[which], tfs, self.norm[ids]).astype(np.float32)
            groups.append(
                (
                    ids.astype(np.int32, copy=False),
                    weights,
                    np.searchsorted(which, np.arange(len(terms) + 1)),
                )
            )
        weighed: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        for k, term in enumerate(terms.tolist()):
            pairs = [(g[0][g[2][k] : g[2][k + 1]], g[1][g[2][k] : g[2][k + 1]]) for g in groups]
            weighed[term] = (
                pairs[0]
                if len(pairs) == 1
                else (np.concatenate([p[0] for p in pairs]), np.concatenate([p[1] for p in pairs]))
            )
        room = self._room
        if room[0] < 0:
            room[0] = int(
                CACHED_SHARE * (len(self.base.ids) + (len(self.delta.ids) if self.delta else 0))
            )
        size = sum(len(pair[0]) for pair in weighed.values())
        if size <= room[0]:
            room[0] -= size
            self._kept.update(weighed)
        return weighed

    def top(self, query_terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
        return self.best(self.scores(query_terms), limit) if self.size else []

    def best(self, scores: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """The ``limit`` highest of already computed ``scores`` (ties by record)."""
        limit = min(limit, self.size)
        if limit <= 0:
            return []
        best = np.argpartition(-scores, limit - 1)[:limit]
        ranked = sorted(((int(i), float(scores[i])) for i in best), key=lambda p: (-p[1], p[0]))
        return [(i, s) for i, s in ranked if s > 0]

    def top_ids(self, scores: np.ndarray, limit: int) -> list[int]:
        """The records of the ``limit`` highest positive ``scores``, in no particular order."""
        if limit <= 0:
            return []
        # a query's terms reach few records: select among those (one linear pass to find
        # them), not among every record (a selection over mostly zeros is slow)
        found = np.flatnonzero(scores > 0)
        if limit < len(found):
            found = found[np.argpartition(scores[found], len(found) - limit)[len(found) - limit :]]
        return found.tolist()  # type: ignore[no-any-return]

    def line_weight(self, line_terms: frozenset[str]) -> float:
        """The IDF weight of a line's known terms (the denominator of "explained")."""
        return self.idf.total(line_terms) or 1.0
