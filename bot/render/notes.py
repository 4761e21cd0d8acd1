"""Plain-text notes every surface shows alike (Slack, the terminal, the agents' tools): what
was skipped of a long paste, how long ago a record was confirmed. Kept apart from the Block
Kit builders, so a surface that draws no blocks need not load them. Pure."""

from __future__ import annotations

from datetime import date

from bot.i18n import relative_days, t
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


def ago(locale: str, when: date, today: date) -> str:
    """ "today", "3 days ago", "1 year ago" in ``locale``, by its CLDR plural and relative-time
    rules."""
    return relative_days(locale, (today - when).days)


def freshness(locale: str, last_confirmed: date | None, today: date) -> str:
    """ "last confirmed 14 months ago" in ``locale``; ``today`` comes from the caller's clock."""
    if last_confirmed is None:
        return t(locale, "fresh.never")
    return t(locale, "fresh.label", when=ago(locale, last_confirmed, today))
