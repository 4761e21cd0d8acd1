"""Look-alike errors, and what tells them apart.

A look-alike comes from ``frequently_confused_with`` (either side may have
said it). What tells the two apart is the stated distinction or condition;
when both are records, also the part of the signature that differs (or of the
regex, when the signatures read the same).
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

from graph.build import KnowledgeGraph

_TOKEN = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True)
class Difference:
    field: str  # "signature" or "regex"
    this_only: tuple[str, ...]  # fragments only in the error asked about
    other_only: tuple[str, ...]  # fragments only in the look-alike


@dataclass(frozen=True)
class LookAlike:
    id: str
    placeholder: bool
    distinctions: tuple[str, ...]
    difference: Difference | None


def _chunks(text: str, spans: list[tuple[int, int]], ranges: list[tuple[int, int]]) -> list[str]:
    out = []
    for start, end in ranges:
        if start < end:
            out.append(text[spans[start][0] : spans[end - 1][1]])
    return out


def text_difference(this: str, other: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The fragments (runs of words and punctuation) only in ``this`` and only in ``other``."""
    a_spans = [m.span() for m in _TOKEN.finditer(this)]
    b_spans = [m.span() for m in _TOKEN.finditer(other)]
    a_tokens = [this[s:e] for s, e in a_spans]
    b_tokens = [other[s:e] for s, e in b_spans]
    matcher = difflib.SequenceMatcher(None, a_tokens, b_tokens, autojunk=False)
    a_ranges = []
    b_ranges = []
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            a_ranges.append((i1, i2))
            b_ranges.append((j1, j2))
    return tuple(_chunks(this, a_spans, a_ranges)), tuple(_chunks(other, b_spans, b_ranges))


def _difference(kg: KnowledgeGraph, this_id: str, other_id: str) -> Difference | None:
    this = kg.record(this_id)
    other = kg.record(other_id)
    if this is None or other is None:
        return None
    for field in ("signature", "regex"):
        mine, theirs = text_difference(getattr(this, field), getattr(other, field))
        if mine or theirs:
            return Difference(field, mine, theirs)
    return None


def look_alikes(kg: KnowledgeGraph, record_id: str) -> tuple[LookAlike, ...]:
    """Errors ``record_id`` is often confused with, by id, each with what tells them apart."""
    near = kg.look_alikes_of(record_id)
    found = []
    for other in sorted(near):
        confusion = near[other]
        texts = tuple(dict.fromkeys(text for _, text in confusion.distinctions))
        found.append(
            LookAlike(
                id=other,
                placeholder=kg.is_placeholder(other),
                distinctions=texts,
                difference=_difference(kg, record_id, other),
            )
        )
    return tuple(found)
