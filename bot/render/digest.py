"""The staleness digest as Block Kit, and its in-place updates. Pure.

Each stale record is three blocks: what it is, why it ranks there, and its
buttons (block id ``errkb.digest.item:<record id>``). When a maintainer acts,
:func:`mark_item` swaps that record's buttons for a line saying who did what,
so the next maintainer sees the work is done.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any, Protocol

from bot.digest.select import StaleItem, explain
from bot.i18n import t
from bot.render.escape import escape_params, mention
from bot.render.ids import ActionId, BlockId, CallbackId, InputId
from bot.render.kit import (
    BOLD,
    CODE,
    HEADER_TEXT,
    Block,
    Message,
    actions,
    button,
    code,
    context,
    cut,
    divider,
    esc,
    header,
    message,
    plain,
    rich_list,
    section,
)
from bot.render.modal import modal_view
from bot.render.notes import freshness
from bot.render.state import CorrectionState, DeprecateState, DigestItemState

SIGNATURE_CHARS = 200
UNKNOWN_SHOWN = 5
CORRECTIONS_SHOWN = 5
#: Blocks a digest keeps for its header, summary, unknown errors and corrections.
_FRAME_BLOCKS = 16


def item_block_id(record_id: str) -> str:
    return f"{BlockId.DIGEST_ITEM}:{record_id}"


def _domains(counts: Mapping[str, int]) -> str:
    return ", ".join(
        f"{esc(domain)} {count}"
        for domain, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    )


def item_blocks(locale: str, rank: int, item: StaleItem, today: date) -> list[Block]:
    """One stale record: what it is, why it ranks there, its buttons (the digest, the Home tab)."""
    state = DigestItemState(record=item.record_id, domain=item.domain).dump()
    text = t(
        locale,
        "digest.item",
        rank=rank,
        signature=esc(cut(item.title(locale), SIGNATURE_CHARS)),
        id=code(item.record_id),
        fresh=freshness(locale, item.last_confirmed, today),
    )
    buttons = [
        button(
            t(locale, "digest.button.confirm"),
            ActionId.DIGEST_CONFIRM,
            value=state,
            style="primary",
        ),
        button(t(locale, "digest.button.snooze"), ActionId.DIGEST_SNOOZE, value=state),
        button(
            t(locale, "digest.button.deprecate"),
            ActionId.DIGEST_DEPRECATE,
            value=state,
            style="danger",
        ),
        button(t(locale, "digest.button.open"), ActionId.DIGEST_OPEN, value=state),
    ]
    return [
        section(text),
        context(explain(item, t, locale)),
        actions(buttons, block_id=item_block_id(item.record_id)),
    ]


class Taught(Protocol):
    """A learned choice as the digest shows it (``bot.store.corrections_repo.Correction``)."""

    @property
    def id(self) -> int: ...
    @property
    def template(self) -> str: ...
    @property
    def record_id(self) -> str | None: ...
    @property
    def user_id(self) -> str: ...


def correction_blocks(
    locale: str, wrong: Sequence[tuple[str, int]], taught: Sequence[Taught]
) -> list[Block]:
    """What people corrected lately: records said to be wrong, and the choices they taught
    errkb, each with "Undo" for maintainers."""
    blocks: list[Block] = []
    if wrong:
        lines = [
            t(locale, "digest.corrections.wrong_item", id=code(rid), count=n)
            for rid, n in wrong[:CORRECTIONS_SHOWN]
        ]
        blocks.append(section(t(locale, "digest.corrections.wrong") + "\n" + "\n".join(lines)))
    if taught:
        blocks.append(section(t(locale, "digest.corrections.taught")))
        for item in taught[:CORRECTIONS_SHOWN]:
            choice = (
                code(item.record_id)
                if item.record_id
                else t(locale, "digest.corrections.none_choice")
            )
            text = t(
                locale,
                "digest.corrections.taught_item",
                template=code(cut(item.template, 200)),
                choice=choice,
                user=mention(item.user_id),
            )
            undo = button(
                t(locale, "button.undo"),
                ActionId.UNDO_CORRECTION,
                value=CorrectionState(correction=item.id).dump(),
            )
            blocks.append(section(text, accessory=undo))
    return blocks


def render_digest(
    locale: str,
    items: Sequence[StaleItem],
    *,
    shown: int,
    unknown: Sequence[tuple[int, str]],
    today: date,
    owner_domains: Sequence[str] | None = None,
    wrong: Sequence[tuple[str, int]] = (),
    taught: Sequence[Taught] = (),
) -> Message:
    """The digest of all stale ``items``: counts, the first ``shown`` with buttons, then
    frequent unknown errors and what people corrected."""
    corrected = correction_blocks(locale, wrong, taught)
    if not items:
        none = [section(t(locale, "digest.none"))]
        return message(
            t(locale, "digest.none"), [*none, *([divider(), *corrected] if corrected else [])]
        )
    listed = items[: min(shown, (50 - _FRAME_BLOCKS) // 3)]
    title = t(locale, "digest.title", count=len(items))
    blocks: list[Block] = [header(cut(title, HEADER_TEXT))]
    summary = t(
        locale,
        "digest.summary",
        shown=len(listed),
        domains=_domains(Counter(i.domain for i in items)),
    )
    if owner_domains:
        mine = esc(", ".join(owner_domains))
        summary += "\n" + t(locale, "digest.summary.mine", domains=mine)
    blocks.append(context(summary))
    for rank, item in enumerate(listed, start=1):
        blocks.extend(item_blocks(locale, rank, item, today))
    if unknown:
        # the templates as code that copies as written (a backtick too)
        lines = [
            [(f"{count}× ", BOLD), (cut(template, 300), CODE)]
            for count, template in unknown[:UNKNOWN_SHOWN]
        ]
        blocks += [divider(), section(t(locale, "digest.unknown.title")), rich_list(lines)]
    if corrected:
        blocks += [divider(), *corrected]
    return message(title, blocks)


def item_note(locale: str, key: str, *, user: str, **params: object) -> str:
    """What was done to a digest item and by whom (``digest.done.*``): the user mentioned, a
    reason or date given as text escaped."""
    return t(locale, key, user=mention(user), **escape_params(params))


def mark_item(blocks: Sequence[Block], record_id: str, note: str) -> list[Block]:
    """The digest's blocks with ``record_id``'s buttons replaced by ``note``."""
    target = item_block_id(record_id)
    out: list[Block] = []
    for block in blocks:
        if block.get("type") == "actions" and block.get("block_id") == target:
            done = context(note)
            done["block_id"] = target
            out.append(done)
        else:
            out.append(dict(block))
    return out


def render_deprecate_modal(locale: str, state: DeprecateState) -> dict[str, Any]:
    reason = {
        "type": "input",
        "block_id": BlockId.DEPRECATE_REASON,
        "label": plain(t(locale, "digest.deprecate.reason", id=state.record), 2000),
        "element": {
            "type": "plain_text_input",
            "action_id": InputId.VALUE,
            "multiline": True,
            "max_length": 1000,
        },
    }
    return modal_view(
        locale,
        CallbackId.DEPRECATE_VIEW,
        "digest.deprecate.title",
        "digest.deprecate.submit",
        state.dump(),
        [reason],
    )


def render_stale_lines(locale: str, items: Sequence[StaleItem]) -> list[str]:
    """Plain lines for a terminal: rank, id, explanation."""
    return [
        f"{rank:>3}. {item.record_id}  [{item.domain}]  {explain(item, t, locale)}"
        for rank, item in enumerate(items, start=1)
    ]
