"""The answer to a paste, as people meet it. Pure: data in, a message dict out.

The first screen is the answer, in five blocks at most: the person's own
error line and the cause in one line; the best fix; its commands as a
copyable code block; one row of controls ("This fixed it", "Didn't help",
"Not this error", "More", and "Next error" when the paste held several);
and one line of context (record, freshness, which error of how many,
anything not yet translated). "More" expands the same message in place:
every workaround with its own votes, the dead ends, versions, what usually
comes before and after, look-alikes and what tells them apart, variants.
Several errors are shown one at a time, the likely cause first, each one
reachable. The notification text says the cause and the fix in one line.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from bot.fit.order import PasteFacts, describe, fix_order
from bot.i18n import t
from bot.i18n.coverage import fallback_note
from bot.records import LocalRecord, Record
from bot.render.blocks import Counts, Reply, paste_notes, record_details
from bot.render.ids import ActionId, BlockId
from bot.render.kit import (
    BOLD,
    CODE,
    Block,
    Message,
    actions,
    button,
    code,
    confirmation,
    context,
    cut,
    esc,
    message,
    preformatted,
    rich_text,
    section,
)
from bot.render.notes import freshness
from bot.render.state import CorrectState, PageState, ReplyState, VoteState
from bot.report import GraphSections

LINE_CHARS = 110  # the person's error line, quoted
CAUSE_CHARS = 170  # the cause, one line
FIX_CHARS = 150  # the best fix, one line
HOW_LINES = 4  # lines of its commands on the first screen ("More" shows all)
HOW_CHARS = 220
FALLBACK_CHARS = 150
ID_CHARS = 80  # a record id in the context line


@dataclass(frozen=True)
class Shown:
    """How an answer is shown now: which error of the paste, folded or expanded."""

    page: int = 0
    expanded: bool = False
    #: record id → the line of the paste it answers (quoted in the header)
    lines: Mapping[str, str] = field(default_factory=dict)
    removable: bool = True  # a public answer in a thread: the asker or a maintainer may remove it


def first_sentence(text: str, limit: int) -> str:
    """The first sentence of ``text`` (Latin or CJK full stop), cut to ``limit``."""
    text = " ".join(text.split())
    for stop in (". ", "。", "! ", "？", "? "):
        at = text.find(stop)
        if 0 < at < limit:
            return text[: at + len(stop.strip())]
    return cut(text, limit)


def _how_preview(how: str) -> str:
    lines = [line for line in how.strip().splitlines() if line.strip()]
    shown = "\n".join(lines[:HOW_LINES]) + ("\n…" if len(lines) > HOW_LINES else "")
    return cut(shown, HOW_CHARS)


def _facts(loc: str, record: Record, pos: int, counts: Counts) -> str:
    facts = []
    rate = record.workarounds[pos].success_rate
    if rate is not None:
        facts.append(t(loc, "answer.rate", rate=round(rate * 100)))
    fixed, failed = counts.get((record.id, pos), (0, 0))
    if fixed + failed:
        facts.append(t(loc, "answer.observed", fixed=fixed, total=fixed + failed))
    return f"  _({' · '.join(facts)})_" if facts else ""


def _controls(view: Reply, shown: Shown, record: Record, best: int | None, errors: int) -> Block:
    loc = view.locale
    reply = view.reply_id
    assert reply is not None
    error = f"“{cut(str(record.localized(loc).signature), 40)}”"  # an error line, quoted
    elements = []
    if best is not None and view.votes:
        vote = VoteState(reply=reply, record=record.id, pos=best).dump()
        elements += [
            button(
                t(loc, "button.fixed"),
                ActionId.VOTE_FIXED,
                value=vote,
                style="primary",
                label=t(loc, "label.fixed", error=error),
            ),
            button(
                t(loc, "button.failed"),
                ActionId.VOTE_FAILED,
                value=vote,
                label=t(loc, "label.failed", error=error),
            ),
        ]
    elements.append(
        button(
            t(loc, "button.not_this"),
            ActionId.NOT_THIS,
            value=CorrectState(reply=reply, page=shown.page).dump(),
            label=t(loc, "label.not_this"),
        )
    )
    more = PageState(reply=reply, page=shown.page, expanded=not shown.expanded).dump()
    elements.append(
        button(
            t(loc, "button.less" if shown.expanded else "button.more"),
            ActionId.MORE,
            value=more,
            label=t(loc, "label.less" if shown.expanded else "label.more"),
        )
    )
    if errors > 1:
        following = (shown.page + 1) % errors
        elements.append(
            button(
                t(loc, "button.next_error", n=following + 1, count=errors),
                ActionId.PAGE,
                value=PageState(reply=reply, page=following, expanded=False).dump(),
                label=t(loc, "label.next_error", n=following + 1, count=errors),
            )
        )
    if view.ephemeral:
        elements.append(
            button(t(loc, "button.share"), ActionId.SHARE, value=ReplyState(reply=reply).dump())
        )
    elif shown.removable:
        sure = confirmation(
            t(loc, "remove.confirm.title"),
            t(loc, "remove.confirm.text"),
            t(loc, "remove.confirm.yes"),
            t(loc, "remove.confirm.no"),
        )
        elements.append(
            button(
                t(loc, "button.remove"),
                ActionId.REMOVE,
                value=ReplyState(reply=reply).dump(),
                label=t(loc, "label.remove"),
                confirm=sure,
            )
        )
    return actions(elements, block_id=BlockId.ANSWER_ACTIONS)


def first_screen(
    local: LocalRecord,
    line: str,
    view: Reply,
    shown: Shown,
    counts: Counts,
    errors: int,
    fix_first: bool,
) -> list[Block]:
    """The answer's first blocks for one error: cause, best fix, its commands, controls, context."""
    loc = view.locale
    record = local.record
    quoted = cut(line or str(local.signature), LINE_CHARS)
    cause = first_sentence(str(local.root_cause), CAUSE_CHARS)
    # the error line as code that copies and searches as written, backticks and all
    blocks = [
        rich_text((quoted, CODE), ("\n", None), (t(loc, "answer.cause"), BOLD), (" " + cause, None))
    ]
    fits = fix_order(record, view.facts)
    best = fits.order[0] if fits.order else None
    shown_paths = ["signature", "root_cause"]
    if best is not None:
        fix = local.workarounds[best]
        text = first_sentence(str(fix.action), FIX_CHARS)
        line = f"{t(loc, 'answer.fix_label')} {esc(text)}{_facts(loc, record, best, counts)}"
        why = fits.why_first()
        if why is not None:  # the paste decided it: say so, in one line
            line += f"\n_{esc(describe(loc, why))}_"
        blocks.append(section(line))
        shown_paths += [f"workarounds[{best}].action", f"workarounds[{best}].how"]
        if str(fix.how).strip():
            blocks.append(preformatted(_how_preview(str(fix.how))))
    else:
        blocks.append(section(t(loc, "answer.no_fix")))
    if view.reply_id is not None:
        blocks.append(_controls(view, shown, record, best, errors))
    notes = [code(cut(record.id, ID_CHARS)), freshness(loc, record.last_confirmed, view.today)]
    if errors > 1:
        notes.append(
            t(loc, "answer.error_of", n=shown.page + 1, count=errors)
            + (" · " + t(loc, "answer.fix_first") if fix_first else "")
        )
    untranslated = fallback_note(local, shown_paths)
    if untranslated:
        notes.append(untranslated)
    blocks.append(context(*notes))
    return blocks


def notification(local: LocalRecord, loc: str, facts: PasteFacts | None = None) -> str:
    """The one line a notification shows: the cause and the fix that fits the paste."""
    cause = first_sentence(str(local.root_cause), FALLBACK_CHARS)
    order = fix_order(local.record, facts).order
    if not order:
        return cut(cause, FALLBACK_CHARS * 2)
    fix = first_sentence(str(local.workarounds[order[0]].action), FALLBACK_CHARS)
    return t(loc, "answer.notification", cause=cause, fix=fix)


def render_answer(
    records: Sequence[Record],
    view: Reply,
    shown: Shown,
    graph: GraphSections,
    counts: Counts,
    variants: Mapping[str, Sequence[str]] | None = None,
    several: Mapping[str, str] | None = None,
) -> Message:
    """The answer to a paste: one error at a time, the likely cause first; ``several``:
    per record, that the paste fits several near-duplicates and this is the most general."""
    loc = view.locale
    by_id = {r.id: r for r in records}
    ordered = [by_id[i] for i in graph.cause_first(list(by_id))]
    page = min(max(shown.page, 0), len(ordered) - 1)
    record = ordered[page]
    local = record.localized(loc)
    shown = Shown(page=page, expanded=shown.expanded, lines=shown.lines, removable=shown.removable)
    blocks = paste_notes(view)
    fix_first = bool(graph.order and graph.order.fix_first == record.id)
    blocks += first_screen(
        local, shown.lines.get(record.id, ""), view, shown, counts, len(ordered), fix_first
    )
    if shown.expanded:
        blocks += record_details(
            local,
            view,
            graph,
            counts,
            (variants or {}).get(record.id, ()),
            (several or {}).get(record.id),
        )
    text = notification(local, loc, view.facts)
    return message(esc(text), blocks, overflow=t(loc, "answer.overflow"))


__all__ = ["Shown", "first_screen", "first_sentence", "notification", "render_answer"]
