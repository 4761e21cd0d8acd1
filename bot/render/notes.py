"""Plain-text notes every surface shows alike (Slack, the terminal, the agents' tools),
kept apart from the Block Kit builders so a surface that draws no blocks need not load
them. Pure."""

from __future__ import annotations

from bot.i18n import t
from bot.match.excerpt import Skipped


def skipped_note(locale: str, skipped: Skipped) -> str:
    """What reading a long paste skipped, in ``locale``: plain text, no markup."""
    return t(
        locale,
        "paste.skipped",
        chars=f"{skipped.chars:,}",
        lines=f"{skipped.lines:,}",
        read=f"{skipped.read:,}",
    )
