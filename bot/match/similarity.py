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
Python loop over records. Scores are normalised by each document's self-score,
so ``1.0`` means the query contains every term of the record's text.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from bot.match.normalise import terms as text_terms
from bot.match.patterns import analyse, split_alternatives
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


def context_text(record: Record) -> dict[str, list[str]]:
    """The texts that describe a record, by field of :data:`CONTEXT_FIELDS`."""
    parts = record.id.split("/")
    slug = parts[1] if len(parts) > 2 else parts[-1]
    causes = [record.root_cause or ""]
    causes += [t.root_cause for _, t in sorted(record.translations.items()) if t.root_cause]
    return {
        "slug": [slug.replace("-", " ").replace("_", " ")],
        "regex": [analyse(branch).literal for branch in split_alternatives(record.regex)[:12]],
        "error_code": [str(record.error_code)] if record.error_code else [],
        "tags": [str(tag) for tag in record.tags],
        "root_cause": [c for c in causes if c],
        "fixes": [w.action for w in record.workarounds],
    }


def record_terms(record: Record) -> tuple[Counter[str], dict[str, float]]:
    """The identity and the context terms of one record, with their (weighted) counts."""
    identity = Counter(t for text in record_text(record) for t in text_terms(text))
    context: dict[str, float] = {}
    for name, texts in context_text(record).items():
        weight = CONTEXT_FIELDS[name]
        for text in texts:
            for term in text_terms(text):
                context[term] = context.get(term, 0.0) + weight
    return identity, context


@dataclass(frozen=True)
class Similarity:
    size: int
    idf: dict[str, float]
    #: term → its row; a row's postings are ``ids[starts[row]:starts[row + 1]]`` and the
    #: same slice of ``weights`` (one pair of flat arrays, not two arrays per term)
    rows: dict[str, int] = field(repr=False)
    starts: np.ndarray = field(repr=False)
    ids: np.ndarray = field(repr=False)
    weights: np.ndarray = field(repr=False)
    self_score: np.ndarray = field(repr=False)
    doc_terms: tuple[frozenset[str], ...] = field(repr=False, default=())
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
        size = max(len(docs), 1)
        lengths = np.array([sum(d.values()) for d in docs] or [0], dtype=np.float64)
        average = float(lengths.mean()) or 1.0
        frequency: Counter[str] = Counter()
        for doc in docs:
            frequency.update(doc.keys())
        idf = {t: math.log(1 + (size - n + 0.5) / (n + 0.5)) for t, n in frequency.items()}
        postings: dict[str, tuple[list[int], list[float]]] = {}
        self_score = np.zeros(len(docs), dtype=np.float64)
        for i, doc in enumerate(docs):
            norm = K1 * (1 - B + B * lengths[i] / average)
            for term, tf in doc.items():
                weight = idf[term] * tf * (K1 + 1) / (tf + norm)
                ids, weights = postings.setdefault(term, ([], []))
                ids.append(i)
                weights.append(weight)
                self_score[i] += weight
        rows = {t: row for row, t in enumerate(postings)}
        counts = [len(ids) for ids, _ in postings.values()]
        starts = np.zeros(len(counts) + 1, dtype=np.int64)
        np.cumsum(counts, out=starts[1:])
        flat_ids = np.fromiter(
            (i for ids, _ in postings.values() for i in ids), dtype=np.int32, count=int(starts[-1])
        )
        flat_weights = np.fromiter(
            (w for _, ws in postings.values() for w in ws), dtype=np.float32, count=int(starts[-1])
        )
        self_score[self_score == 0] = 1.0
        terms = tuple(frozenset(d) for d in docs)
        doc_weight = tuple(sum(idf[t] for t in d) or 1.0 for d in terms)
        return cls(
            len(docs), idf, rows, starts, flat_ids, flat_weights, self_score,
            terms if keep_terms else (), doc_weight,
        )  # fmt: skip

    def scores(self, query_terms: Collection[str], *, normalised: bool = True) -> np.ndarray:
        """BM25 of every record against the query terms; normalised by each record's
        self-score (0..1-ish: how much of the record the query holds), or plain (how
        much of the query the record holds, for searching by a few words)."""
        rows = self.rows
        terms = query_terms if isinstance(query_terms, (set, frozenset)) else set(query_terms)
        found = np.fromiter((rows[t] for t in terms if t in rows), dtype=np.int64)
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
        known = line_terms & self.idf.keys()
        return sum(map(self.idf.__getitem__, known)) or 1.0
