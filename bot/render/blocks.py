"""Block Kit pieces of replies to pasted errors. Pure: data in, message dicts out.

:func:`record_details` is everything errkb knows about a record: workarounds
ranked by success rate (copyable commands, the curated rate and what votes
observed "7 of 9 here", vote buttons), dead ends and why, what usually comes
before and after and its look-alikes (the graph's typed sections), variants,
versions and docs; "More" on an answer shows it (:mod:`bot.render.answer`),
``/errkb show`` shows it whole (:func:`record_blocks`).
:func:`render_candidates` is the uncertain reply; :func:`render_nothing` says
nothing is known. Every fixed string comes from the catalogs; record texts
come in the reader's locale, what is not translated yet said so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from bot.fit.order import PasteFacts, describe, fix_order
from bot.i18n import t
from bot.i18n.coverage import fallback_note
from bot.match.excerpt import Skipped
from bot.records import LocalRecord, Record
from bot.render.ids import ActionId
from bot.render.kit import (
    Block,
    Message,
    actions,
    button,
    code,
    code_lines,
    context,
    cut,
    divider,
    esc,
    link,
    message,
    preformatted,
    section,
)
from bot.render.notes import freshness, skipped_note
from bot.render.state import AddState, RecordState, ReplyState, VoteState
from bot.report import GraphSections

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
    cut_at: int | None = None  # the paste was cut at this many characters (older replies)
    skipped: Skipped | None = None  # a long paste was read where its errors are
    add: AddState | None = None  # "Add to knowledge base" button state
    facts: PasteFacts | None = None  # what the paste shows: orders each record's fixes for it


# -- small pieces -----------------------------------------------------------------


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


def paste_notes(reply: Reply) -> list[Block]:
    """A reply's notes above its content: errkb's own note, and what was skipped of the paste."""
    out = [context(reply.note)] if reply.note else []
    if reply.skipped:
        out.append(context(skipped_note(reply.locale, reply.skipped)))
    elif reply.cut_at:
        out.append(context(t(reply.locale, "paste.cut", limit=f"{reply.cut_at:,}")))
    return out


# -- one record in full ------------------------------------------------------------


def _workaround_blocks(local: LocalRecord, reply: Reply, counts: Counts) -> list[Block]:
    loc = reply.locale
    record = local.record
    fits = fix_order(record, reply.facts)
    order = list(fits.order)
    if not order:
        return []
    out = [section(t(loc, "answer.workarounds"))]
    for rank, pos in enumerate(order[:SHOWN_WORKAROUNDS], start=1):
        w = local.workarounds[pos]
        facts = []
        if w.item.success_rate is not None:
            facts.append(t(loc, "answer.rate", rate=round(w.item.success_rate * 100)))
        fixed, failed = counts.get((record.id, pos), (0, 0))
        if fixed + failed:
            facts.append(t(loc, "answer.observed", fixed=fixed, total=fixed + failed))
        lines = [
            f"*{rank}.* {esc(str(w.action))}" + (f"  _({' · '.join(facts)})_" if facts else "")
        ]
        if str(w.condition).strip():
            lines.append(t(loc, "answer.when", condition=esc(str(w.condition).strip())))
        reason = fits.why_first() if rank == 1 else fits.tried(pos)
        if reason is not None:
            lines.append(f"_{esc(describe(loc, reason))}_")
        out.append(section("\n".join(lines)))
        if str(w.how).strip():
            out.append(preformatted(str(w.how)))
        if reply.votes and reply.reply_id:
            state = VoteState(reply=reply.reply_id, record=record.id, pos=pos).dump()
            out.append(
                actions(
                    [
                        button(
                            t(loc, "button.fixed"),
                            ActionId.VOTE_FIXED,
                            value=state,
                            label=t(loc, "label.fixed_n", n=rank),
                        ),
                        button(
                            t(loc, "button.failed"),
                            ActionId.VOTE_FAILED,
                            value=state,
                            label=t(loc, "label.failed_n", n=rank),
                        ),
                    ]
                )
            )
    if len(order) > SHOWN_WORKAROUNDS:
        more = t(
            loc, "answer.more_workarounds", count=len(order) - SHOWN_WORKAROUNDS, id=esc(record.id)
        )
        out.append(context(more))
    return out


def _dead_end_blocks(local: LocalRecord, loc: str) -> list[Block]:
    if not local.record.dead_ends:
        return []
    lines = [t(loc, "answer.dead_ends")]
    for dead in local.dead_ends[:SHOWN_DEAD_ENDS]:
        why = dead.why
        lines.append(f"✗ {esc(str(dead.text))}" + (f" — _{esc(str(why))}_" if why else ""))
    return [section("\n".join(lines))]


def _graph_blocks(
    record_id: str,
    graph: GraphSections,
    loc: str,
    variants: Sequence[str],
    several: str | None = None,
) -> list[Block]:
    def item(rid: str, label: str, why: Sequence[str] = ()) -> str:
        # the label is the record's error line (signature): quoted, as an error is
        text = f"{code(rid)} “{esc(cut(label, 100))}”" if label and label != rid else code(rid)
        return text + (f" — _{esc(cut(why[0], 160))}_" if why else "")

    lines = []
    causes = graph.causes_of(record_id)[:SHOWN_GRAPH_ITEMS]
    if causes:
        lines.append(
            t(loc, "answer.causes") + "\n" + "\n".join("• " + item(c.id, c.label) for c in causes)
        )
    following = graph.next_of(record_id)[:SHOWN_GRAPH_ITEMS]
    if following:
        lines.append(
            t(loc, "answer.next")
            + "\n"
            + "\n".join("• " + item(n.id, n.label, n.conditions) for n in following)
        )
    alike = graph.lookalikes_of(record_id)[:SHOWN_GRAPH_ITEMS]
    if alike:
        lines.append(
            t(loc, "answer.lookalikes")
            + "\n"
            + "\n".join("• " + item(a.id, a.label, a.distinctions) for a in alike)
        )
    if several:
        lines.append(esc(several))
    elif variants:
        lines.append(t(loc, "answer.variants", ids=", ".join(code(v) for v in variants[:5])))
    return [section("\n".join(lines))] if lines else []


def record_details(
    local: LocalRecord,
    reply: Reply,
    graph: GraphSections,
    counts: Counts,
    variants: Sequence[str] = (),
    several: str | None = None,
) -> list[Block]:
    """What "More" shows: every workaround (in the order that fits the paste, saying why
    when the paste moved one), dead ends, what comes before and after, look-alikes,
    variants (``several``: that the paste names none of what tells them apart), versions
    and docs."""
    loc = reply.locale
    record = local.record
    blocks = [divider()]
    blocks += _workaround_blocks(local, reply, counts)
    blocks += _dead_end_blocks(local, loc)
    blocks += _graph_blocks(record.id, graph, loc, variants, several)
    footer = []
    if record.versions:
        versions = ", ".join(
            v.item.version + (f" ({v.behavior_change})" if str(v.behavior_change).strip() else "")
            for v in local.versions[:8]
        )
        footer.append(t(loc, "answer.versions", versions=esc(cut(versions, 600))))
    if record.official_doc_url:
        footer.append(link(record.official_doc_url, t(loc, "answer.docs")))
    note = fallback_note(local)
    if note:
        footer.append(note)
    if footer:
        blocks.append(context(*footer))
    return blocks


def record_blocks(
    record: Record, reply: Reply, graph: GraphSections, counts: Counts
) -> list[Block]:
    """Everything errkb knows about one record, in ``reply.locale`` (``/errkb show``)."""
    loc = reply.locale
    local = record.localized(loc)
    blocks = [
        preformatted(cut(str(local.signature), 1_500)),  # the error itself, as it reads in a log
        context(t(loc, "answer.record", id=code(record.id))),
    ]
    if str(local.root_cause).strip():
        blocks.append(section(f"{t(loc, 'answer.root_cause')}\n{esc(str(local.root_cause))}"))
    blocks += record_details(local, reply, graph, counts)[1:]
    blocks.append(context(freshness(loc, record.last_confirmed, reply.today)))
    return blocks


# -- whole replies ----------------------------------------------------------------


def render_candidates(candidates: Sequence[tuple[Record, float]], reply: Reply) -> Message:
    """Not confident: the closest records, clearly marked as uncertain."""
    loc = reply.locale
    blocks = [*paste_notes(reply), section(t(loc, "uncertain.title"))]
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
    """Nothing in the knowledge base matches (or no error was found in the text). In a
    thread, where everyone reads it, that is one short line with **Add to errkb** for
    maintainers; the person who asked privately also sees their error lines."""
    loc = reply.locale
    if errors and not reply.ephemeral:
        add = _add_button(reply)
        line = (
            section(t(loc, "nothing.short"), accessory=add)
            if add
            else section(t(loc, "nothing.short"))
        )
        return message(t(loc, "nothing.fallback"), [*paste_notes(reply), line])
    blocks = [
        *paste_notes(reply),
        section(t(loc, "nothing.title") if errors else t(loc, "nothing.no_error")),
    ]
    if errors:
        blocks.append(code_lines([cut(e, 300) for e in errors[:5]]))
        blocks.append(context(t(loc, "nothing.hint")))
    add = _add_button(reply) if errors else None
    tail = [*([actions([add])] if add else []), *_share_tail(reply)]
    return message(t(loc, "nothing.fallback"), blocks, tail=tail)


def ephemeral(payload: Message) -> Message:
    """A response_url payload only the asking user sees."""
    return {**payload, "response_type": "ephemeral", "replace_original": False}


__all__ = [
    "Counts",
    "Reply",
    "ephemeral",
    "paste_notes",
    "record_blocks",
    "record_details",
    "render_candidates",
    "render_nothing",
]
