"""The triage report: one typed answer to a paste for every front end. Pure.

``errkb triage --json`` prints it and the MCP ``triage`` tool returns it, so the
two cannot disagree. :func:`build_report` turns a :class:`~bot.match.rank.Triage`,
the records it names, the transition graph and a locale into a
:class:`TriageReport`: the errors found, the candidates with their band, the
answering records cause first (root cause, workarounds ranked as in Slack with
what votes observed, dead ends, versions) and the graph's sections (what comes
before, what follows, look-alikes and what tells them apart, the cause-first
order). :func:`answer_record` is one record in that form, for ``show``.

The graph's sections come from ``graph.triage.triage_sections`` as plain data;
:func:`graph_sections` is the one place that turns them into models.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import date
from threading import Lock
from weakref import WeakKeyDictionary

from pydantic import BaseModel, ConfigDict, Field

from bot.answer import offered
from bot.fit.duplicates import several_note
from bot.fit.order import PasteFacts, describe, fit_score, fix_order
from bot.i18n.coverage import fallback_note
from bot.match.excerpt import Excerpt
from bot.match.rank import Triage
from bot.records import Record
from graph.build import KnowledgeGraph
from graph.triage import triage_sections

#: ``(record id, workaround position) → (fixed, failed)``: what votes observed.
Counts = Mapping[tuple[str, int], tuple[int, int]]
CANDIDATE_SIGNATURE_CHARS = 300


# -- records -----------------------------------------------------------------------


class Workaround(BaseModel):
    position: int = Field(
        description="Index of the workaround in the record; report_outcome names it."
    )
    rank: int = Field(
        description="1 for the best: what the paste shows against it first (a fix whose "
        "condition it meets or whose advice it contradicts before, one it shows tried after), "
        "then the highest curated success rate, record order on ties."
    )
    action: str
    success_rate: float | None = Field(description="Curated success rate, 0..1.")
    how: str = ""
    condition: str = ""
    fixed: int = Field(0, description="Times people or agents said it fixed the error here.")
    failed: int = Field(0, description="Times they said it did not help.")
    paste_fit: int = Field(
        0, description="How the paste places it: above 0 it fits, below 0 the paste shows it tried."
    )
    tried: str | None = Field(
        None, description="Why it is listed later, when the paste shows it tried or not its case."
    )


class DeadEnd(BaseModel):
    action: str = Field(
        description="What not to try (the why_fails text when no action is stated)."
    )
    why_fails: str
    fail_rate: float | None


class Version(BaseModel):
    version: str
    status: str = "active"
    introduced: str | None = None
    deprecated: str | None = None
    removed: str | None = None
    behavior_change: str | None = None


class AnswerRecord(BaseModel):
    """One record as an answer, its texts in the locale asked for (English where untranslated)."""

    id: str
    locale: str = Field(description="Locale the signature is shown in.")
    domain: str
    signature: str
    root_cause: str
    band: str | None = Field(
        None, description="high | medium | low, when the record matched a paste."
    )
    score: float | None = None
    workarounds: list[Workaround]
    dead_ends: list[DeadEnd]
    versions: list[Version]
    last_confirmed: date | None
    official_doc_url: str | None
    untranslated: str | None = Field(
        None,
        description="In the locale asked for: which of its texts are shown untranslated, if any.",
    )
    why_first: str | None = Field(
        None, description="Why the first workaround comes first, when the paste decided it."
    )
    several: str | None = Field(
        None,
        description="Set when several records hold this error (per version or system) and the "
        "paste names none of theirs: this one is the most general, the others are named.",
    )


def answer_record(
    record: Record,
    locale: str,
    counts: Counts,
    *,
    band: str | None = None,
    score: float | None = None,
    facts: PasteFacts | None = None,
    several: str | None = None,
) -> AnswerRecord:
    """One record as an answer, every text in ``locale`` where the record translates it;
    its workarounds in the order that fits the paste showing ``facts`` (:mod:`bot.fit.order`)."""
    local = record.localized(locale)
    fits = fix_order(record, facts)
    first = fits.why_first()
    workarounds = []
    for rank, pos in enumerate(fits.order, start=1):
        w = local.workarounds[pos]
        fixed, failed = counts.get((record.id, pos), (0, 0))
        tried = fits.tried(pos)
        workarounds.append(
            Workaround(
                position=pos,
                rank=rank,
                action=str(w.action),
                success_rate=w.item.success_rate,
                how=str(w.how),
                condition=str(w.condition),
                fixed=fixed,
                failed=failed,
                paste_fit=fit_score(fits.reasons.get(pos, ())),
                tried=describe(locale, tried) if tried else None,
            )
        )
    versions = []
    for v in local.versions:
        data = v.item.model_dump()
        if data.get("behavior_change"):
            data["behavior_change"] = str(v.behavior_change)
        versions.append(Version.model_validate(data))
    return AnswerRecord(
        id=record.id,
        locale=local.signature.locale,
        domain=record.domain,
        signature=str(local.signature),
        root_cause=str(local.root_cause),
        band=band,
        score=score,
        workarounds=workarounds,
        dead_ends=[
            DeadEnd(action=str(d.text), why_fails=str(d.why_fails), fail_rate=d.item.fail_rate)
            for d in local.dead_ends
        ],
        versions=versions,
        last_confirmed=record.last_confirmed,
        official_doc_url=record.official_doc_url,
        untranslated=fallback_note(local),
        why_first=describe(locale, first) if first else None,
        several=several,
    )


# -- the graph's sections ------------------------------------------------------------


class Cause(BaseModel):
    id: str
    label: str
    score: float = Field(description="Product of the link probabilities along the best path.")
    hops: int
    path: list[str] = Field(description="From the cause to the error.")
    placeholder: bool = Field(description="Referenced but not (yet) in the knowledge base.")


class NextError(BaseModel):
    id: str
    label: str
    probability: float | None
    weight: float
    conditions: list[str]
    placeholder: bool
    asserted_by: list[str]


class ObservedNext(BaseModel):
    id: str
    count: int
    first_seen: str
    last_seen: str
    curated: bool


class Difference(BaseModel):
    field: str
    this_only: list[str]
    other_only: list[str]


class LookAlike(BaseModel):
    id: str
    label: str
    placeholder: bool
    distinctions: list[str] = Field(description="What tells the two apart, as curated.")
    difference: Difference | None


class ErrorCauses(BaseModel):
    error: str
    items: list[Cause]


class ErrorNext(BaseModel):
    error: str
    items: list[NextError]
    observed: list[ObservedNext] = Field(default_factory=list)


class ErrorLookAlikes(BaseModel):
    error: str
    items: list[LookAlike]


class OrderedError(BaseModel):
    id: str
    position: int
    after: list[str]
    before: list[str]


class Ordering(BaseModel):
    errors: list[OrderedError]
    fix_first: str | None
    related: bool


class GraphSections(BaseModel):
    """What the transition graph says about the matched errors. Shared by every answer
    that asks the same graph about the same errors (:func:`graph_sections`): read only."""

    model_config = ConfigDict(frozen=True)

    causes: list[ErrorCauses] = Field(default_factory=list)
    next: list[ErrorNext] = Field(default_factory=list)
    confused_with: list[ErrorLookAlikes] = Field(default_factory=list)
    order: Ordering | None = None

    def causes_of(self, record_id: str) -> list[Cause]:
        return next((e.items for e in self.causes if e.error == record_id), [])

    def next_of(self, record_id: str) -> list[NextError]:
        return next((e.items for e in self.next if e.error == record_id), [])

    def lookalikes_of(self, record_id: str) -> list[LookAlike]:
        return next((e.items for e in self.confused_with if e.error == record_id), [])

    def cause_first(self, ids: Sequence[str]) -> list[str]:
        """``ids`` with the graph's cause-first order applied (unordered ones after, as given)."""
        ordered = [e.id for e in self.order.errors if e.id in ids] if self.order else []
        return ordered + [i for i in ids if i not in ordered]


#: Sections already built, per graph: a graph is read-only once built, so what it says
#: about the same errors in the same locale holds while it serves, and the answers to a
#: recurring error ask it again and again. Each graph keeps at most this many.
SECTIONS_KEPT = 1024
_sections: WeakKeyDictionary[KnowledgeGraph, dict[tuple[tuple[str, ...], str], GraphSections]] = (
    WeakKeyDictionary()
)
_sections_lock = Lock()


def graph_sections(kg: KnowledgeGraph | None, ids: Sequence[str], *, locale: str) -> GraphSections:
    """The graph's sections for ``ids``: the one place its plain data becomes models,
    built once per graph, errors and locale (:data:`SECTIONS_KEPT`)."""
    if kg is None or not ids:
        return GraphSections()
    key = (tuple(ids), locale)
    with _sections_lock:
        kept = _sections.setdefault(kg, {})
        found = kept.get(key)
    if found is not None:
        return found
    found = GraphSections.model_validate(triage_sections(kg, list(ids), locale=locale))
    with _sections_lock:
        if len(kept) >= SECTIONS_KEPT:
            kept.clear()
        kept[key] = found
    return found


# -- the report ----------------------------------------------------------------------


class ErrorFound(BaseModel):
    index: int
    line_no: int
    kind: str = Field(description="python | java | go | rust | typescript | node | log")
    role: str = Field(description="exception | error")
    text: str


class PasteSkipped(BaseModel):
    """A long paste read where its errors are: its size and how many of its lines were read."""

    chars: int = Field(description="The paste's length in characters.")
    lines: int = Field(description="The paste's number of lines.")
    read: int = Field(
        description="Lines read: the start, the end and the lines that can hold an error, "
        "with the lines around them. Line numbers are the paste's own."
    )


class Candidate(BaseModel):
    id: str
    score: float
    band: str = Field(description="high and medium answer; low is only a candidate.")
    line: str = Field(description="The paste line it matched.")
    error_index: int
    signature: str = ""


class TriageReport(BaseModel):
    """The answer to a paste; without a confident answer, the closest candidates."""

    answered: bool = Field(
        description="True when the best candidate is confident (band high or medium)."
    )
    locale: str
    skipped: PasteSkipped | None = Field(
        None, description="Set when the paste was too long to read whole: what was read of it."
    )
    truncated: bool = Field(False, description="The paste was too big to read whole.")
    errors: list[ErrorFound]
    matches: list[Candidate] = Field(
        description="Candidates worth a look, best first: none when no error was found, "
        "otherwise those at or above the calibrated candidate floor."
    )
    answers: list[AnswerRecord] = Field(description="The answering records, likely cause first.")
    best: AnswerRecord | None
    causes: list[ErrorCauses] = Field(description="Per answer: what usually comes before it.")
    next: list[ErrorNext] = Field(description="Per answer: what tends to follow once it is fixed.")
    confused_with: list[ErrorLookAlikes] = Field(description="Per answer: look-alikes.")
    order: Ordering | None = Field(description="The answers cause first, when there are any.")


def build_report(
    result: Triage,
    record: Callable[[str], Record | None],
    kg: KnowledgeGraph | None,
    *,
    locale: str,
    counts: Counts,
    read: Excerpt | None = None,
) -> TriageReport:
    """The report of a triage; ``record`` looks a record up by id; ``read`` is what was read
    of the paste (:func:`bot.answer.read_paste`)."""
    skipped = read.skipped if read is not None else None
    facts = PasteFacts.of(read.text) if read is not None else None
    ids = result.answer_ids()
    sections = graph_sections(kg, ids, locale=locale)
    matches = {m.record_id: m for m in result.matches}
    answers = []
    for rid in sections.cause_first(ids):
        found = record(rid)
        match = matches.get(rid)
        if found is not None:
            answers.append(
                answer_record(
                    found,
                    locale,
                    counts,
                    band=match.band if match else None,
                    score=match.score if match else None,
                    facts=facts,
                    several=several_note(
                        locale, found, match.variants if match else (), facts, record
                    ),
                )
            )
    return TriageReport(
        **dict(sections),
        answered=result.answered,
        locale=locale,
        truncated=result.truncated,
        skipped=PasteSkipped(chars=skipped.chars, lines=skipped.lines, read=skipped.read)
        if skipped
        else None,
        errors=[
            ErrorFound(index=e.index, line_no=e.line_no, kind=e.kind, role=e.role, text=e.text)
            for e in result.errors
        ],
        matches=[
            Candidate(
                id=m.record_id,
                score=m.score,
                band=m.band,
                line=m.line,
                error_index=m.error_index,
                signature=_signature(record(m.record_id), locale),
            )
            for m in offered(result)
        ],
        answers=answers,
        best=answers[0] if answers else None,
    )


def _signature(record: Record | None, locale: str) -> str:
    if record is None:
        return ""
    text = str(record.text("signature", locale)[0])
    return (
        text
        if len(text) <= CANDIDATE_SIGNATURE_CHARS
        else text[: CANDIDATE_SIGNATURE_CHARS - 1] + "…"
    )


__all__ = [
    "AnswerRecord",
    "Candidate",
    "Cause",
    "Counts",
    "DeadEnd",
    "ErrorFound",
    "GraphSections",
    "LookAlike",
    "NextError",
    "Ordering",
    "PasteSkipped",
    "TriageReport",
    "Workaround",
    "answer_record",
    "build_report",
    "graph_sections",
]
