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
encoded once (:class:`Vocabulary`). An update (:meth:`Similarity.update`) does not
sort the postings again: the kept ones are renumbered and the changed documents'
put in their places; the weights are computed again in array operations (the
average document length moves with any change, and every weight with it). Scores
are normalised by each document's self-score, so ``1.0`` means the query contains
every term of the record's text.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from bot.match.normalise import recent_terms
from bot.match.normalise import terms as text_terms
from bot.match.patterns import Alternative, analyse, split_alternatives
from bot.match.variants import moved
from bot.records import Record

K1 = 1.2
B = 0.75
#: How much each field counts in a record's context document.
CONTEXT_FIELDS = {
    "slug": 1.0, "regex": 1.0, "error_code": 1.0, "tags": 0.6, "root_cause": 0.5, "fixes": 0.5,
}  # fmt: skip


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
        scan = recent_terms if name == "regex" else text_terms  # regex literals: often the same across records
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
        numbers, terms = self.numbers, self.terms
        added = [term for term in doc if term not in numbers]  # numbered in the doc's order
        if added:
            numbers.update(zip(added, range(len(terms), len(terms) + len(added)), strict=True))
            terms += added
        return (
            np.fromiter(map(numbers.__getitem__, doc), dtype=np.int32, count=len(doc)),
            np.fromiter(doc.values(), dtype=np.float64, count=len(doc)),
        )


class TermIdf(dict[str, float]):
    """The IDF of each term of a build's documents, by term: read from the build's arrays
    the first time a term is asked for, then kept (a dict of every term, filled up front,
    cost half a second per build at 100k records). ``idf[term]`` raises KeyError for a
    term in none of the documents; :meth:`weight` gives it 0.0."""

    def __init__(self, vocabulary: Vocabulary, frequency: np.ndarray, idf_of: np.ndarray) -> None:
        super().__init__()
        self._numbers, self._known = vocabulary.numbers, len(frequency)
        self._frequency, self._idf_of = frequency, idf_of

    def weight(self, term: str) -> float:
        known = self.get(term)
        if known is not None:
            return known
        number = self._numbers.get(term, self._known)
        if number >= self._known or self._frequency[number] == 0:
            return 0.0
        value = self[term] = float(self._idf_of[number])
        return value

    def __missing__(self, term: str) -> float:
        value = self.weight(term)
        if term not in self:
            raise KeyError(term)
        return value


@dataclass(frozen=True)
class Similarity:
    size: int
    idf: TermIdf
    #: term → its number (in a vocabulary shared with later builds, which may add terms);
    #: the postings of term number ``n`` are ``ids[starts[n]:starts[n + 1]]`` and the same
    #: slice of ``weights`` (one pair of flat arrays, by term then document; a term in none
    #: of these documents has an empty slice, one numbered after this build none at all)
    vocabulary: Vocabulary = field(repr=False)
    frequency: np.ndarray = field(repr=False)  # term number → its documents
    starts: np.ndarray = field(repr=False)
    ids: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    self_score: np.ndarray = field(repr=False)
    #: each posting's place in the documents joined (by document, then as each document
    #: lists its terms), and where each document starts there: what an update edits
    order: np.ndarray = field(repr=False)
    offsets: np.ndarray = field(repr=False)
    lengths: np.ndarray = field(repr=False)  # each document's length (its counts summed)
    doc_terms: Sequence[frozenset[str]] = field(repr=False, default=())
    doc_weight: tuple[float, ...] = field(repr=False, default=())

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
            [vocabulary.encode(d) for d in docs], vocabulary,
            tuple(frozenset(d) for d in docs) if keep_terms else (),
        )  # fmt: skip

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
        joined once, then together: an update re-joins only the runs it changes)."""
        numbers = docs[0]
        frequency = np.bincount(numbers, minlength=len(vocabulary))
        order = np.argsort(numbers, kind="stable")  # by term, each term's postings by document
        return cls._weighted(docs, vocabulary, frequency, order, doc_terms)

    def update(
        self,
        docs: Joined,
        doc_terms: Sequence[frozenset[str]],
        removed: Sequence[int],
        added: Sequence[int],
    ) -> Similarity:
        """The index :meth:`from_arrays` makes of ``docs``: these documents with those at
        ``removed`` (sorted positions here) taken out and those at ``added`` (sorted
        positions in ``docs``) put in. The postings are not sorted again: the kept ones
        move, the added ones are merged in; BM25 weights are computed again (the average
        length, and so every weight, moves with any change)."""
        vocabulary = self.vocabulary
        numbers, _, per_doc = docs
        gone, new = np.array(removed, dtype=np.int64), np.array(added, dtype=np.int64)
        kept = moved(len(self.offsets) - 1, removed, added)  # old document → new
        offsets = np.zeros(len(per_doc) + 1, dtype=np.int64)
        np.cumsum(per_doc, out=offsets[1:])
        old_docs = self.ids
        keep = ~np.isin(old_docs, gone) if len(gone) else np.ones(len(old_docs), dtype=bool)
        moved_docs = kept[old_docs[keep]]
        order = offsets[moved_docs] + (self.order[keep] - self.offsets[old_docs[keep]])
        frequency = np.zeros(len(vocabulary), dtype=np.int64)
        frequency[: len(self.frequency)] = self.frequency
        np.subtract.at(frequency, np.searchsorted(self.starts, np.flatnonzero(~keep), "right") - 1, 1)
        starts = np.zeros(len(frequency) + 1, dtype=np.int64)
        np.cumsum(frequency, out=starts[1:])
        # the added documents' postings put in their places (by term, then document)
        # (place among the kept, term, document, position): a place at the end of one term's
        # postings is also the start of the next term's, so the term comes before the document
        places: list[tuple[int, int, int, int]] = []
        for j in new.tolist():
            for at in range(int(offsets[j]), int(offsets[j + 1])):
                term = int(numbers[at])
                first, end = starts[term], starts[term + 1]
                places.append((int(first + np.searchsorted(moved_docs[first:end], j)), term, j, at))
        places.sort()
        where = np.array([p[0] for p in places], dtype=np.int64)
        fresh = np.array([p[3] for p in places], dtype=np.int64)
        order = np.insert(order, where, fresh)
        ids = np.insert(moved_docs.astype(np.int32), where, np.array([p[2] for p in places], np.int32))
        np.add.at(frequency, numbers[fresh], 1)
        lengths = np.zeros(len(per_doc), dtype=np.float64)
        alive = np.ones(len(kept), dtype=bool)
        alive[gone] = False
        lengths[kept[alive]] = self.lengths[alive]
        for j in new.tolist():  # summed as a build sums them (in order, from zero)
            counts = docs[1][offsets[j] : offsets[j + 1]]
            lengths[j] = np.bincount(np.zeros(len(counts), np.intp), counts, minlength=1)[0]
        return self._weighted(docs, vocabulary, frequency, order, doc_terms, ids, lengths)

    @classmethod
    def _weighted(
        cls,
        docs: Joined,
        vocabulary: Vocabulary,
        frequency: np.ndarray,
        order: np.ndarray,
        doc_terms: Sequence[frozenset[str]],
        ids: np.ndarray | None = None,
        lengths: np.ndarray | None = None,
    ) -> Similarity:
        """BM25 of ``docs`` given each term's document frequency and the postings' order by
        term then document (``order``: positions in the joined arrays; ``ids``: their
        documents, and ``lengths``: each document's, when known)."""
        numbers, tfs, per_doc = docs
        count = len(per_doc)
        size = max(count, 1)
        doc = np.repeat(np.arange(count, dtype=np.int32), per_doc)
        if lengths is None:
            lengths = np.bincount(doc, weights=tfs, minlength=count)
        average = (float(lengths.mean()) if count else 0.0) or 1.0
        present = np.flatnonzero(frequency)
        df = frequency[present].astype(np.float64)
        idf_of = np.zeros(len(frequency), dtype=np.float64)
        idf_of[present] = np.log(1 + (size - df + 0.5) / (df + 0.5))
        norm = K1 * (1 - B + B * lengths / average)
        idf_each = idf_of[numbers]
        weights = idf_each * tfs * (K1 + 1) / (tfs + norm[doc])
        self_score = np.bincount(doc, weights=weights, minlength=count).astype(np.float64)
        self_score[self_score == 0] = 1.0
        starts = np.zeros(len(frequency) + 1, dtype=np.int64)
        np.cumsum(frequency, out=starts[1:])
        offsets = np.zeros(count + 1, dtype=np.int64)
        np.cumsum(per_doc, out=offsets[1:])
        # what ranking compares lines with: the terms' IDF by name, when terms are kept
        idf = TermIdf(vocabulary, frequency if doc_terms else frequency[:0], idf_of)
        doc_weight = np.bincount(doc, weights=idf_each, minlength=count)
        doc_weight[doc_weight == 0] = 1.0
        return cls(
            count, idf, vocabulary, frequency, starts, doc[order] if ids is None else ids,
            weights.astype(np.float32)[order],
            self_score, order, offsets, lengths, doc_terms, tuple(doc_weight.tolist()),
        )  # fmt: skip

    def scores(self, query_terms: Collection[str], *, normalised: bool = True) -> np.ndarray:
        """BM25 of every record against the query terms; normalised by each record's
        self-score (0..1-ish: how much of the record the query holds), or plain (how
        much of the query the record holds, for searching by a few words)."""
        numbers, frequency = self.vocabulary.numbers, self.frequency
        known = len(frequency)  # terms numbered after this build are in none of its documents
        terms = query_terms if isinstance(query_terms, (set, frozenset)) else set(query_terms)
        found = np.fromiter(
            (n for t in terms if (n := numbers.get(t, known)) < known and frequency[n] > 0),
            dtype=np.int64,
        )
        if not len(found):
            return np.zeros(self.size, dtype=np.float64)
        first, lengths = self.starts[found], self.starts[found + 1] - self.starts[found]
        # the positions of all the found rows' postings in the flat arrays, without a loop
        ends = np.cumsum(lengths)
        positions = np.arange(int(ends[-1])) + np.repeat(first - (ends - lengths), lengths)
        ids, weights = self.ids[positions], self.weights[positions]
        found_scores = np.bincount(ids, weights=weights, minlength=self.size)
        return found_scores / self.self_score if normalised else found_scores

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
        return sum(map(self.idf.weight, line_terms)) or 1.0
