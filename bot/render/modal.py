"""The "Add to knowledge base" modal: rendering it, reading it back, mapping errors. Pure.

The submitted form becomes a native record dict for the same pydantic
:class:`~bot.records.Record` model the importer uses; its validation
problems map back onto the modal's input blocks.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from typing import Any

from bot.i18n import t
from bot.match.suggest import suggest_regex
from bot.render.ids import BlockId, CallbackId, InputId
from bot.render.kit import INITIAL_VALUE, INPUT_LABEL, MODAL_BUTTON, MODAL_TITLE, Block, cut, plain
from bot.render.state import AddState

#: Input blocks in order: (block, catalog key suffix, multiline, optional).
FIELDS = (
    (BlockId.RECORD_ID, "id", False, False),
    (BlockId.SIGNATURE, "signature", True, False),
    (BlockId.REGEX, "regex", False, False),
    (BlockId.DOMAIN, "domain", False, False),
    (BlockId.CATEGORY, "category", False, True),
    (BlockId.ROOT_CAUSE, "root_cause", True, False),
    (BlockId.WORKAROUND, "workaround", True, True),
    (BlockId.HOW, "how", True, True),
    (BlockId.SOURCE, "source", False, True),
    (BlockId.DOCS, "docs", False, True),
)
#: Which record field's problems show under which input.
FIELD_BLOCKS = {
    "id": BlockId.RECORD_ID,
    "signature": BlockId.SIGNATURE,
    "regex": BlockId.REGEX,
    "domain": BlockId.DOMAIN,
    "category": BlockId.CATEGORY,
    "root_cause": BlockId.ROOT_CAUSE,
    "workarounds": BlockId.WORKAROUND,
    "official_doc_url": BlockId.DOCS,
}
_WORD = re.compile(r"[a-z0-9]+")


def prefill(sample: str, template: str, *, domain: str | None = None) -> dict[BlockId, str]:
    """Initial values from an error line: it as signature, a regex that matches it with what
    varies generalised (:func:`~bot.match.suggest.suggest_regex`), the domain when one is
    suggested, and an id guess in it."""
    line = sample.strip().splitlines()[0] if sample.strip() else ""
    head = re.split(r"[:(\[{]", line, maxsplit=1)[0] if line else ""
    slug = "-".join(_WORD.findall(head.lower()))[:60] or "new-error"
    values = {
        BlockId.RECORD_ID: f"{domain or 'unsorted'}/{slug}",
        BlockId.SIGNATURE: line or template,
        BlockId.REGEX: suggest_regex(line) if line else "",
    }
    if domain:
        values[BlockId.DOMAIN] = domain
    return values


def with_fix(
    values: Mapping[BlockId, str], *, action: str, how: str, source: str | None
) -> dict[BlockId, str]:
    """``values`` with the fix found in a thread as the first workaround: what to do, the
    command (``how``) and where it was found."""
    found = {**values, BlockId.WORKAROUND: action, BlockId.HOW: how}
    if source:
        found[BlockId.SOURCE] = source
    return found


def _input(
    block: BlockId, key: str, multiline: bool, optional: bool, locale: str, value: str
) -> Block:
    element: Block = {
        "type": "plain_text_input",
        "action_id": InputId.VALUE,
        "multiline": multiline,
    }
    if value:
        element["initial_value"] = cut(value, INITIAL_VALUE)
    return {
        "type": "input",
        "block_id": block,
        "optional": optional,
        "label": plain(t(locale, f"modal.{key}"), INPUT_LABEL),
        "element": element,
    }


def render_add_modal(locale: str, state: AddState, values: Mapping[BlockId, str]) -> dict[str, Any]:
    """The modal view; ``private_metadata`` carries ``state``."""
    blocks = [_input(b, k, m, o, locale, values.get(b, "")) for b, k, m, o in FIELDS]
    return modal_view(
        locale, CallbackId.ADD_RECORD_VIEW, "modal.title", "modal.submit", state.dump(), blocks
    )


def modal_view(
    locale: str,
    callback_id: str,
    title_key: str,
    submit_key: str,
    metadata: str,
    blocks: list[Block],
) -> dict[str, Any]:
    """A modal with a translated title, submit and cancel, carrying ``metadata``."""
    return {
        "type": "modal",
        "callback_id": callback_id,
        "title": plain(t(locale, title_key), MODAL_TITLE),
        "submit": plain(t(locale, submit_key), MODAL_BUTTON),
        "close": plain(t(locale, "modal.cancel"), MODAL_BUTTON),
        "private_metadata": metadata,
        "blocks": blocks,
    }


def form_values(state_values: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> dict[BlockId, str]:
    """``view.state.values`` → the text of each input (empty when left blank)."""
    out: dict[BlockId, str] = {}
    for block, _, _, _ in FIELDS:
        raw = state_values.get(block, {}).get(InputId.VALUE, {}).get("value")
        out[block] = (raw or "").strip()
    return out


def record_from_form(values: Mapping[BlockId, str], *, today: date) -> dict[str, Any]:
    """A native record dict from the form (validated by the caller with ``Record``)."""
    workaround = values.get(BlockId.WORKAROUND, "")
    return {
        "id": values.get(BlockId.RECORD_ID, ""),
        "signature": values.get(BlockId.SIGNATURE, ""),
        "regex": values.get(BlockId.REGEX, ""),
        "domain": values.get(BlockId.DOMAIN, ""),
        "category": values.get(BlockId.CATEGORY, ""),
        "root_cause": values.get(BlockId.ROOT_CAUSE, ""),
        "workarounds": [
            {
                "action": workaround,
                "how": values.get(BlockId.HOW, ""),
                "sources": [values[BlockId.SOURCE]] if values.get(BlockId.SOURCE) else [],
            }
        ]
        if workaround
        else [],
        "official_doc_url": values.get(BlockId.DOCS) or None,
        "verification_tier": "human_reviewed",
        "first_seen": today.isoformat(),
        "last_confirmed": today.isoformat(),
        "last_updated": today.isoformat(),
        "evidence_count": 1,
        "tags": ["slack"],
    }


def modal_errors(problems: list[tuple[str, str]]) -> dict[str, str]:
    """Validation problems ``(field path, message)`` → ``{block_id: message}`` for
    ``response_action``."""
    errors: dict[str, str] = {}
    for path, text in problems:
        head = re.split(r"[.\[]", path, maxsplit=1)[0]
        block = FIELD_BLOCKS.get(head, BlockId.SIGNATURE)
        errors[block] = cut(f"{errors[block]}; {text}" if block in errors else text, 2_000)
    return errors
