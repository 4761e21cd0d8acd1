"""What the records say about a link, in a reader's locale.

A transition's conditions and a look-alike pair's distinctions are texts of
the records that state the link (``transition_graph`` items), so they have
translations like any other text (``transition_graph_zh``). These functions
give them in ``locale``, each falling back to the stating record's own words,
in the same order and without the duplicates :mod:`graph.build` removes.
"""

from __future__ import annotations

from collections.abc import Iterable

from graph.build import KnowledgeGraph, Reference


def _text(kg: KnowledgeGraph, ref: Reference, part: str, locale: str) -> str | None:
    english = getattr(ref, part)
    record = kg.record(ref.source)
    if record is None or not english:
        return english
    links = record.localized(locale).links(ref.kind)
    if ref.position >= len(links):
        return english
    said = getattr(links[ref.position], part).value.strip()
    return said or english


def _unique(texts: Iterable[str | None]) -> tuple[str, ...]:
    return tuple(dict.fromkeys(t for t in texts if t))


def conditions(kg: KnowledgeGraph, source: str, target: str, locale: str) -> tuple[str, ...]:
    """The conditions of the ``leads_to`` edge source → target, in ``locale``."""
    transition = kg.transition(source, target)
    if transition is None:
        return ()
    return _unique(_text(kg, ref, "condition", locale) for ref in transition.asserted_by)


def distinctions(kg: KnowledgeGraph, record_id: str, other: str, locale: str) -> tuple[str, ...]:
    """What tells ``record_id`` and its look-alike ``other`` apart, in ``locale``."""
    confusion = kg.confusion(record_id, other)
    if confusion is None:
        return ()
    return _unique(
        _text(kg, ref, part, locale)
        for ref in confusion.asserted_by
        for part in ("distinction", "condition")
    )
