"""Short plain-text renderings of the MCP tools' results, beside their JSON. Pure.

Every fixed string comes from the catalogs (``agent.*`` and the answer keys
that carry no Slack markup), so ``lang: zh`` reads Chinese throughout; record
text comes in the locale the result was built in. ``today`` comes from the
caller's clock.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from bot.i18n import t
from bot.match.excerpt import Skipped
from bot.mcp.models import Neighbours, Outcome, SearchResult, StaleList
from bot.render.notes import freshness, skipped_note
from bot.report import AnswerRecord, TriageReport

SHOWN_WORKAROUNDS = 5
SHOWN_DEAD_ENDS = 5
SHOWN_GRAPH_ITEMS = 3
SHOWN_CANDIDATES = 3
LINE_CHARS = 300


def _line(text: str, limit: int = LINE_CHARS) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def _indented(text: str, by: str = "     ") -> str:
    return "\n".join(by + line for line in text.splitlines())


def _labelled(loc: str, key: str, items: Sequence[tuple[str, str]]) -> list[str]:
    if not items:
        return []
    return [t(loc, key), *(f"  - {rid}: {_line(label, 160)}" for rid, label in items)]


def record_text(
    answer: AnswerRecord, loc: str, today: date, report: TriageReport | None = None
) -> str:
    """One record: signature, root cause, workarounds best first, dead ends, graph, freshness."""
    head = (
        answer.id
        if answer.band is None
        else t(loc, "agent.match", id=answer.id, band=answer.band, score=f"{answer.score or 0:.2f}")
    )
    lines = [head, _line(answer.signature, 1_000)]
    if answer.untranslated:  # the reader's language lacks some texts: say so, in it
        lines.append(answer.untranslated)
    if answer.root_cause.strip():
        lines.append(t(loc, "agent.root_cause", text=answer.root_cause.strip()))
    lines += _workaround_lines(answer, loc)
    if answer.several:
        lines.append(answer.several)
    if answer.dead_ends:
        lines.append(t(loc, "agent.dead_ends"))
    for d in answer.dead_ends[:SHOWN_DEAD_ENDS]:
        why = d.why_fails.strip() if d.why_fails.strip() != d.action.strip() else ""
        lines.append(f"  ✗ {d.action.strip()}" + (f" — {why}" if why else ""))
    if report is not None:
        lines += _graph_lines(report, answer.id, loc)
    footer = [freshness(loc, answer.last_confirmed, today)]
    if answer.versions:
        footer.append(
            t(loc, "answer.versions", versions=", ".join(v.version for v in answer.versions[:8]))
        )
    if answer.official_doc_url:
        footer.append(t(loc, "agent.docs", url=answer.official_doc_url))
    return "\n".join([*lines, " · ".join(footer)])


def _workaround_lines(answer: AnswerRecord, loc: str) -> list[str]:
    lines = [t(loc, "agent.workarounds")] if answer.workarounds else []
    if answer.workarounds and answer.why_first:  # the paste decided the first: say why
        lines.append(_indented(answer.why_first, "  "))
    for w in answer.workarounds[:SHOWN_WORKAROUNDS]:
        facts = (
            [t(loc, "answer.rate", rate=round(w.success_rate * 100))]
            if w.success_rate is not None
            else []
        )
        if w.fixed + w.failed:
            facts.append(t(loc, "answer.observed", fixed=w.fixed, total=w.fixed + w.failed))
        shown = f" ({'; '.join(facts)})" if facts else ""
        lines.append(
            t(
                loc,
                "agent.workaround",
                rank=w.rank,
                action=w.action.strip(),
                facts=shown,
                position=w.position,
            )
        )
        if w.how.strip():
            lines.append(_indented(t(loc, "answer.how", how=w.how.strip())))
        if w.condition.strip():
            lines.append(_indented(t(loc, "agent.when", condition=w.condition.strip())))
        if w.tried:
            lines.append(_indented(w.tried))
    return lines


def _graph_lines(report: TriageReport, record_id: str, loc: str) -> list[str]:
    causes = next((c.items for c in report.causes if c.error == record_id), [])
    following = next((n.items for n in report.next if n.error == record_id), [])
    alike = next((a.items for a in report.confused_with if a.error == record_id), [])
    return [
        *_labelled(loc, "agent.causes", [(c.id, c.label) for c in causes[:SHOWN_GRAPH_ITEMS]]),
        *_labelled(loc, "agent.next", [(n.id, n.label) for n in following[:SHOWN_GRAPH_ITEMS]]),
        *_labelled(
            loc,
            "agent.lookalikes",
            [
                (a.id, a.distinctions[0] if a.distinctions else a.label)
                for a in alike[:SHOWN_GRAPH_ITEMS]
            ],
        ),
    ]


def triage_text(report: TriageReport, today: date) -> str:
    loc = report.locale
    skipped = report.skipped
    intro = (
        [skipped_note(loc, Skipped(skipped.chars, skipped.lines, skipped.read))] if skipped else []
    )
    if report.answered and report.answers:
        if len(report.answers) > 1:
            intro.append(
                t(loc, "agent.cause_first", count=len(report.answers), id=report.answers[0].id)
            )
        parts = [record_text(a, loc, today, report) for a in report.answers]
        return "\n\n".join(["\n".join(intro), *parts] if intro else parts)
    if report.matches:
        lines = [*intro, t(loc, "agent.uncertain")]
        lines += [
            f"  - {m.id} ({m.band}, {m.score:.2f}): {_line(m.signature, 200)}"
            for m in report.matches[:SHOWN_CANDIDATES]
        ]
        return "\n".join([*lines, t(loc, "uncertain.hint")])
    key = "agent.nothing" if report.errors else "nothing.no_error"
    return "\n".join([*intro, t(loc, key)])


def search_text(result: SearchResult, loc: str) -> str:
    if not result.hits:
        return t(loc, "search.none", words=result.words)
    lines = [t(loc, "search.title", words=result.words)]
    lines += [f"  - {h.id} ({h.score:.2f}): {_line(h.signature, 200)}" for h in result.hits]
    return "\n".join(lines)


def neighbours_text(nb: Neighbours) -> str:
    loc = nb.locale
    ordered = sorted(nb.nodes, key=lambda n: (abs(n.layer), -n.score, n.id))
    before = [(n.id, f"{n.score:.0%} · {n.label}") for n in ordered if n.layer < 0]
    after = [(n.id, f"{n.score:.0%} · {n.label}") for n in ordered if n.layer > 0]
    alike = {
        e.target if e.source == nb.centre else e.source
        for e in nb.edges
        if e.kind == "frequently_confused_with"
    }
    labels = {n.id: n.label for n in nb.nodes}
    lines = [t(loc, "agent.neighbours", id=nb.centre, hops=nb.depth)]
    lines += _labelled(loc, "agent.causes", before)
    lines += _labelled(loc, "agent.next", after)
    lines += _labelled(loc, "agent.lookalikes", [(a, labels.get(a, a)) for a in sorted(alike)])
    lines += [t(loc, "agent.observed", id=o.target, count=o.count) for o in nb.observed]
    return "\n".join(lines)


def stale_text(stale: StaleList, loc: str) -> str:
    if not stale.total:
        return t(loc, "digest.none")
    lines = [t(loc, "digest.cli.header", count=stale.total)]
    lines += [
        f"{rank:>3}. {r.id}  [{r.domain}]  {r.why}" for rank, r in enumerate(stale.records, start=1)
    ]
    if stale.total > len(stale.records):
        lines.append(t(loc, "list.more", count=stale.total - len(stale.records)))
    return "\n".join(lines)


def outcome_text(outcome: Outcome, loc: str) -> str:
    total = outcome.fixed + outcome.failed
    text = t(
        loc,
        f"agent.outcome.{outcome.verdict}",
        id=outcome.record_id,
        position=outcome.workaround,
        fixed=outcome.fixed,
        total=total,
    )
    return text if outcome.changed else f"{text} {t(loc, 'agent.outcome.same')}"


def prompt_text(loc: str, *, outcomes: bool, error: str = "") -> str:
    """What an agent is told about when to call ``triage`` (and to report what worked)."""
    parts = [t(loc, "agent.prompt")]
    if outcomes:
        parts.append(t(loc, "agent.prompt.outcome"))
    if error.strip():
        parts.append(t(loc, "agent.prompt.error") + "\n\n" + error.strip())
    return "\n\n".join(parts)


__all__ = [
    "neighbours_text",
    "outcome_text",
    "prompt_text",
    "record_text",
    "search_text",
    "stale_text",
    "triage_text",
]
