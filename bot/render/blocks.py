"""Block Kit renderers for answers to pasted errors. Pure: data in, message dicts out.

:func:`render_answer` shows matched records cause first: the error and its
id, root cause, workarounds ranked by success rate (how to apply them, the
curated rate and what votes observed "7 of 9 here", and vote buttons), dead
ends and why, versions, what usually precedes and follows it and its
look-alikes (from the graph's ``triage_sections``), freshness computed from
``today``, and the docs link. :func:`render_candidates` is the uncertain
reply; :func:`render_nothing` says nothing is known. Every fixed string comes
from the catalogs; record text comes in the locale asked for, with English
fallback marked. Other views live in :mod:`bot.render.panels`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from bot.i18n import t
from bot.records import Record
from bot.render.ids import ActionId
from bot.render.kit import (
    Block,
    Message,
    actions,
    button,
    code,
    context,
    cut,
    divider,
    esc,
    link,
    message,
    section,
)
from bot.render.state import AddState, RecordState, ReplyState, VoteState

SHOWN_WORKAROUNDS = 5
SHOWN_DEAD_ENDS = 5
SHOWN_GRAPH_ITEMS = 3
SHOWN_CANDIDATES = 3
Counts = Mapping[tuple[str, int], tuple[int, int]]


@dataclass(frozen=True)
class Reply:
    """How a reply is shown: its language, date, and which buttons it carries."""

    locale: str
    today: date
    reply_id: int | None = None  # enables vote and share buttons
    ephemeral: bool = False  # adds "Share in channel"
    votes: bool = True
    note: str | None = None  # mrkdwn made by errkb (a vote's thanks), not text from a person
    cut_at: int | None = None  # the paste was cut at this many characters
    add: AddState | None = None  # "Add to knowledge base" button state


@dataclass(frozen=True)
class Graph:
    """The graph's triage sections, as ``graph.triage.triage_sections`` returns them."""

    sections: Mapping[str, Any] = field(default_factory=dict)

    def items(self, name: str, record_id: str) -> list[dict[str, Any]]:
        for entry in self.sections.get(name, []):
            if entry.get("error") == record_id:
                return list(entry.get("items", []))
        return []

    def order(self, ids: Sequence[str]) -> list[str]:
        ordered = [
            e["id"] for e in self.sections.get("order", {}).get("errors", []) if e["id"] in ids
        ]
        return ordered + [i for i in ids if i not in ordered]


# -- small pieces -----------------------------------------------------------------


def freshness(locale: str, last_confirmed: date | None, today: date) -> str:
    """ "last confirmed 14 months ago" in ``locale``; ``today`` comes from the caller's clock."""
    if last_confirmed is None:
        return t(locale, "fresh.never")
    days = max(0, (today - last_confirmed).days)
    if days == 0:
        when = t(locale, "fresh.today")
    elif days < 31:
        when = t(locale, "fresh.days", n=days)
    elif days < 730:
        when = t(locale, "fresh.months", n=max(1, days // 30))
    else:
        when = t(locale, "fresh.years", n=days // 365)
    return t(locale, "fresh.label", when=when)


def ranked_workarounds(record: Record) -> list[int]:
    """Workaround positions, best curated success rate first (record order breaks ties)."""
    return sorted(
        range(len(record.workarounds)),
        key=lambda i: (-(record.workarounds[i].success_rate or 0.0), i),
    )


def _fell_back(wanted: str, used: str) -> bool:
    return used.split("_")[0] != wanted.split("_")[0]


def _untranslated(record: Record, locale: str) -> bool:
    if record.locale.split("_")[0] == locale.split("_")[0]:
        return False
    return any(
        _fell_back(locale, record.text(f, locale)[1])
        for f in ("signature", "root_cause", "workarounds")
    )


def _share_tail(reply: Reply) -> list[Block]:
    if not (reply.ephemeral and reply.reply_id):
        return []
    share = button(
        t(reply.locale, "button.share"),
        ActionId.SHARE,
        value=ReplyState(reply=reply.reply_id).dump(),
    )
    return [actions([share])]


def _add_button(reply: Reply) -> Block | None:
    if reply.add is None:
        return None
    return button(t(reply.locale, "button.add"), ActionId.ADD_RECORD, value=reply.add.dump())


def _intro(reply: Reply) -> list[Block]:
    out = [context(reply.note)] if reply.note else []
    if reply.cut_at:
        out.append(context(t(reply.locale, "paste.cut", limit=f"{reply.cut_at:,}")))
    return out


# -- one record -------------------------------------------------------------------


def _workaround_blocks(record: Record, reply: Reply, counts: Counts) -> list[Block]:
    loc = reply.locale
    texts, _ = record.text("workarounds", loc)
    order = ranked_workarounds(record)
    if not order:
        return []
    out = [section(t(loc, "answer.workarounds"))]
    for rank, pos in enumerate(order[:SHOWN_WORKAROUNDS], start=1):
        w = record.workarounds[pos]
        facts = []
        if w.success_rate is not None:
            facts.append(t(loc, "answer.rate", rate=round(w.success_rate * 100)))
        fixed, failed = counts.get((record.id, pos), (0, 0))
        if fixed + failed:
            facts.append(t(loc, "answer.observed", fixed=fixed, total=fixed + failed))
        lines = [f"*{rank}.* {esc(texts[pos])}" + (f"  _({' · '.join(facts)})_" if facts else "")]
        if w.how.strip():
            lines.append(t(loc, "answer.how", how=esc(w.how.strip())))
        if w.condition.strip():
            lines.append(t(loc, "answer.when", condition=esc(w.condition.strip())))
        out.append(section("\n".join(lines)))
        if reply.votes and reply.reply_id:
            state = VoteState(reply=reply.reply_id, record=record.id, pos=pos).dump()
            out.append(actions([
                button(t(loc, "button.fixed"), ActionId.VOTE_FIXED, value=state, style="primary"),
                button(t(loc, "button.failed"), ActionId.VOTE_FAILED, value=state),
            ]))  # fmt: skip
    if len(order) > SHOWN_WORKAROUNDS:
        out.append(
            context(
                t(
                    loc,
                    "answer.more_workarounds",
                    count=len(order) - SHOWN_WORKAROUNDS,
                    id=esc(record.id),
                )
            )
        )
    return out


def _dead_end_blocks(record: Record, loc: str) -> list[Block]:
    if not record.dead_ends:
        return []
    texts, _ = record.text("dead_ends", loc)
    lines = [t(loc, "answer.dead_ends")]
    for i, dead in enumerate(record.dead_ends[:SHOWN_DEAD_ENDS]):
        why = dead.why_fails.strip() if dead.action.strip() else ""
        lines.append(f"✗ {esc(texts[i])}" + (f" — _{esc(why)}_" if why else ""))
    return [section("\n".join(lines))]


def _graph_blocks(record: Record, graph: Graph, loc: str) -> list[Block]:
    lines = []
    for name, key in (
        ("causes", "answer.causes"),
        ("next", "answer.next"),
        ("confused_with", "answer.lookalikes"),
    ):
        items = graph.items(name, record.id)[:SHOWN_GRAPH_ITEMS]
        if items:
            shown = ", ".join(
                f"{code(i['id'])} {esc(cut(str(i.get('label') or ''), 120))}".rstrip()
                for i in items
            )
            lines.append(f"{t(loc, key)} {shown}")
    return [section("\n".join(lines))] if lines else []


def record_blocks(record: Record, reply: Reply, graph: Graph, counts: Counts) -> list[Block]:
    """Everything errkb knows about one record, in ``reply.locale``."""
    loc = reply.locale
    signature, _ = record.text("signature", loc)
    root_cause, _ = record.text("root_cause", loc)
    blocks = [
        section(
            f"*{esc(cut(str(signature), 1_500))}*\n{t(loc, 'answer.record', id=code(record.id))}"
        )
    ]
    if str(root_cause).strip():
        blocks.append(section(f"{t(loc, 'answer.root_cause')}\n{esc(str(root_cause))}"))
    blocks += _workaround_blocks(record, reply, counts)
    blocks += _dead_end_blocks(record, loc)
    blocks += _graph_blocks(record, graph, loc)
    footer = [freshness(loc, record.last_confirmed, reply.today)]
    if record.versions:
        footer.append(
            t(
                loc,
                "answer.versions",
                versions=esc(", ".join(v.version for v in record.versions[:8])),
            )
        )
    if record.official_doc_url:
        footer.append(link(record.official_doc_url, t(loc, "answer.docs")))
    if _untranslated(record, loc):
        footer.append(t(loc, "answer.untranslated"))
    blocks.append(context(*footer))
    return blocks


# -- whole replies ----------------------------------------------------------------


def render_answer(records: Sequence[Record], reply: Reply, graph: Graph, counts: Counts) -> Message:
    """The answer to a paste: each matched record, the likely cause first."""
    loc = reply.locale
    by_id = {r.id: r for r in records}
    ordered = [by_id[i] for i in graph.order(list(by_id))]
    blocks = _intro(reply)
    if len(ordered) > 1:
        blocks.append(section(t(loc, "answer.cause_first", count=len(ordered))))
    for n, record in enumerate(ordered, start=1):
        if len(ordered) > 1:
            blocks += [divider(), context(t(loc, "answer.error_n", n=n, count=len(ordered)))]
        blocks += record_blocks(record, reply, graph, counts)
    first = ordered[0]
    fallback = t(
        loc,
        "answer.fallback",
        signature=esc(str(first.text("signature", loc)[0])),
        id=esc(first.id),
    )
    return message(fallback, blocks, tail=_share_tail(reply), overflow=t(loc, "answer.overflow"))


def render_candidates(candidates: Sequence[tuple[Record, float]], reply: Reply) -> Message:
    """Not confident: the closest records, clearly marked as uncertain."""
    loc = reply.locale
    blocks = [*_intro(reply), section(t(loc, "uncertain.title"))]
    for record, score in candidates[:SHOWN_CANDIDATES]:
        signature, _ = record.text("signature", loc)
        text = t(
            loc,
            "uncertain.item",
            score=round(score * 100),
            id=code(record.id),
            signature=esc(cut(str(signature), 500)),
        )
        show = button(
            t(loc, "button.show"), ActionId.SHOW_RECORD, value=RecordState(record=record.id).dump()
        )
        blocks.append(section(text, accessory=show))
    blocks.append(context(t(loc, "uncertain.hint")))
    add = _add_button(reply)
    tail = [*([actions([add])] if add else []), *_share_tail(reply)]
    return message(
        t(loc, "uncertain.fallback"), blocks, tail=tail, overflow=t(loc, "answer.overflow")
    )


def render_nothing(reply: Reply, errors: Sequence[str] = ()) -> Message:
    """Nothing in the knowledge base matches (or no error was found in the text)."""
    loc = reply.locale
    blocks = [
        *_intro(reply),
        section(t(loc, "nothing.title") if errors else t(loc, "nothing.no_error")),
    ]
    if errors:
        blocks.append(section("\n".join(code(cut(e, 300)) for e in errors[:5])))
        blocks.append(context(t(loc, "nothing.hint")))
    add = _add_button(reply) if errors else None
    tail = [*([actions([add])] if add else []), *_share_tail(reply)]
    return message(t(loc, "nothing.fallback"), blocks, tail=tail)


def ephemeral(payload: Message) -> Message:
    """A response_url payload only the asking user sees."""
    return {**payload, "response_type": "ephemeral", "replace_original": False}


__all__ = ["Graph", "Reply", "ephemeral", "freshness", "ranked_workarounds", "record_blocks",
           "render_answer", "render_candidates", "render_nothing"]  # fmt: skip
