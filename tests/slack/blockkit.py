"""Every rendered payload checked with slack_sdk's own Block Kit models and Slack's limits."""

from __future__ import annotations

import json
from typing import Any

from slack_sdk.models.blocks import Block
from slack_sdk.models.views import View

MESSAGE_BLOCKS = 50
MODAL_BLOCKS = 100


def _walk(node: Any) -> Any:
    if isinstance(node, dict):
        yield node
        for value in node.values():
            yield from _walk(value)
    elif isinstance(node, list):
        for value in node:
            yield from _walk(value)


def assert_limits(blocks: list[dict[str, Any]], max_blocks: int) -> None:
    assert len(blocks) <= max_blocks, f"{len(blocks)} blocks"
    for block in blocks:
        if block["type"] == "section":
            assert len(block["text"]["text"]) <= 3000
        if block["type"] == "context":
            assert len(block["elements"]) <= 10
            assert all(len(e["text"]) <= 2000 for e in block["elements"])
        if block["type"] == "actions":
            assert len(block["elements"]) <= 25
        if "block_id" in block:
            assert len(block["block_id"]) <= 255
    for node in _walk(blocks):
        if node.get("type") == "button":
            assert len(node["text"]["text"]) <= 75
            assert len(node["action_id"]) <= 255
            assert len(node.get("value", "")) <= 2000


def assert_valid_blocks(blocks: Any, max_blocks: int = MESSAGE_BLOCKS) -> None:
    if isinstance(blocks, str):
        blocks = json.loads(blocks)
    assert blocks, "no blocks"
    parsed = Block.parse_all(blocks)
    assert len(parsed) == len(blocks)
    for block in parsed:
        block.validate_json()
    assert_limits(blocks, max_blocks)


def assert_valid_message(params: dict[str, Any]) -> None:
    assert params.get("text"), "a message needs fallback text"
    assert_valid_blocks(params["blocks"])


def assert_valid_view(view: dict[str, Any]) -> None:
    View(**view).validate_json()
    assert_valid_blocks(view["blocks"], MODAL_BLOCKS)
    assert len(view.get("private_metadata", "")) <= 3000


def read_text(blocks: list[dict[str, Any]]) -> str:
    """What a reader reads in ``blocks``: section, context, header and rich text, not buttons."""
    parts: list[str] = []
    for block in blocks:
        if block["type"] in ("section", "header") and "text" in block:
            parts.append(block["text"]["text"])
        elif block["type"] == "context":
            parts += [e.get("text", "") for e in block["elements"]]
        elif block["type"] == "rich_text":
            parts += [n["text"] for n in _walk(block["elements"]) if n.get("type") == "text"]
    return "\n".join(parts)


def buttons(blocks: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The message's buttons by action id."""
    return {n["action_id"]: n for n in _walk(blocks) if n.get("type") == "button"}
