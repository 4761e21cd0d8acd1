"""BM25 over record signatures, aliases and their translations (all locales).

Built once per index; a query is a handful of numpy ``bincount`` calls over
posting arrays, never a Python loop over records. Scores are normalised by
each document's self-score, so ``1.0`` means the query contains every term of
the record's text.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from bot.match.normalise import terms as text_terms
from bot.records import Record

K1 = 1.2
B = 0.75


def record_text(record: Record) -> list[str]:
    """The texts a record is known by: signature, aliases, translated signatures."""
    texts = [record.signature, *record.aliases]
    texts += [t.signature for _, t in sorted(record.translations.items()) if t.signature]
    return texts


@dataclass(frozen=True)
class Similarity:
    size: int
    idf: dict[str, float]
    postings: dict[str, tuple[np.ndarray, np.ndarray]]
    self_score: np.ndarray
    doc_terms: tuple[frozenset[str], ...] = field(repr=False)
    doc_weight: tuple[float, ...] = field(repr=False, default=())

    @classmethod
    def build(cls, records: Sequence[Record]) -> Similarity:
        docs = [Counter(t for text in record_text(r) for t in text_terms(text)) for r in records]
        size = max(len(docs), 1)
        lengths = np.array([sum(d.values()) for d in docs] or [0], dtype=np.float64)
        average = float(lengths.mean()) or 1.0
        frequency: Counter[str] = Counter()
        for doc in docs:
            frequency.update(doc.keys())
        idf = {t: math.log(1 + (size - n + 0.5) / (n + 0.5)) for t, n in frequency.items()}
        rows: dict[str, tuple[list[int], list[float]]] = {}
        self_score = np.zeros(len(docs), dtype=np.float64)
        for i, doc in enumerate(docs):
            norm = K1 * (1 - B + B * lengths[i] / average)
            for term, tf in doc.items():
                weight = idf[term] * tf * (K1 + 1) / (tf + norm)
                ids, weights = rows.setdefault(term, ([], []))
                ids.append(i)
                weights.append(weight)
                self_score[i] += weight
        postings = {
            t: (np.array(ids, dtype=np.int32), np.array(ws, dtype=np.float32))
            for t, (ids, ws) in rows.items()
        }
        self_score[self_score == 0] = 1.0
        terms = tuple(frozenset(d) for d in docs)
        doc_weight = tuple(sum(idf[t] for t in d) or 1.0 for d in terms)
        return cls(len(docs), idf, postings, self_score, terms, doc_weight)

    def scores(self, query_terms: Sequence[str]) -> np.ndarray:
        """Normalised BM25 of every record against the query terms (0..1-ish)."""
        found = [self.postings[t] for t in set(query_terms) if t in self.postings]
        if not found:
            return np.zeros(self.size, dtype=np.float64)
        ids = np.concatenate([p[0] for p in found])
        weights = np.concatenate([p[1] for p in found])
        return np.bincount(ids, weights=weights, minlength=self.size) / self.self_score

    def top(self, query_terms: Sequence[str], limit: int) -> list[tuple[int, float]]:
        return self.best(self.scores(query_terms), limit) if self.size else []

    def best(self, scores: np.ndarray, limit: int) -> list[tuple[int, float]]:
        """The ``limit`` highest of already computed ``scores`` (ties by record)."""
        limit = min(limit, self.size)
        best = np.argpartition(-scores, limit - 1)[:limit]
        ranked = sorted(((int(i), float(scores[i])) for i in best), key=lambda p: (-p[1], p[0]))
        return [(i, s) for i, s in ranked if s > 0]

    def top_ids(self, scores: np.ndarray, limit: int) -> list[int]:
        """The records of the ``limit`` highest positive ``scores``, in no particular order."""
        found = np.flatnonzero(scores > 0)
        if len(found) > limit > 0:
            found = found[np.argpartition(scores[found], len(found) - limit)[len(found) - limit :]]
        return found.tolist() if limit > 0 else []  # type: ignore[no-any-return]

    def line_weight(self, line_terms: frozenset[str]) -> float:
        """The IDF weight of a line's known terms (the denominator of "explained")."""
        known = line_terms & self.idf.keys()
        return sum(map(self.idf.__getitem__, known)) or 1.0
