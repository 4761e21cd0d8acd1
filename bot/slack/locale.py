"""Which language to answer a user in: gathers the facts, lets ``negotiate_locale`` decide.

The user's own choice is in the database; their Slack locale comes from a
cached ``users.info`` made *before* the caller's transaction (it may fail:
the channel's language or English then); the channel's default from the
settings.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from bot.i18n import negotiate_locale
from bot.settings import Settings
from bot.store import slack_repo


def user_locale(session: Session, settings: Settings, *, user: str, slack_locale: str | None,
                channel: str | None, text: str = "") -> str:  # fmt: skip
    """The user's choice, their Slack locale, the channel's default, then the language of ``text``."""
    chosen = slack_repo.chosen_locale(session, user_id=user)
    return negotiate_locale(chosen, slack_locale, settings.channel_locales.get(channel or ""), text)
