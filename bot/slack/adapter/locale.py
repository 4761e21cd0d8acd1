"""Which language to answer a user in: gathers the facts, lets ``negotiate_locale`` decide.

The user's own choice is in the database; their Slack locale comes from a
cached ``users.info`` made *before* the caller's transaction (it may fail:
the channel's language or English then); the channel's default is its own
setting (``/errkb channel lang``), else the operator's (``ERRKB_CHANNEL_LOCALES``).
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from bot.channels import ChannelSettings
from bot.i18n import negotiate_locale
from bot.settings import Settings
from bot.store import channel_repo, slack_repo


def channel_default(session: Session, settings: Settings, channel: str | None) -> str | None:
    """The channel's language, None when it has none."""
    if not channel:
        return None
    return channel_repo.channel_settings(session, channel=channel).default_locale(
        settings.channel_locales
    )


def user_locale(
    session: Session,
    settings: Settings,
    *,
    user: str,
    slack_locale: str | None,
    channel: str | None,
    text: str = "",
) -> str:
    """The user's choice, their Slack locale, the channel's default, then the language of
    ``text``."""
    chosen = slack_repo.chosen_locale(session, user_id=user)
    return negotiate_locale(chosen, slack_locale, channel_default(session, settings, channel), text)


def reader_locale(
    settings: Settings,
    *,
    chosen: str | None,
    slack_locale: str | None,
    channel: ChannelSettings,
    text: str = "",
) -> str:
    """:func:`user_locale` from facts read already (the user's choice, the channel's
    settings), for a caller that read them with the rest of its work."""
    return negotiate_locale(
        chosen, slack_locale, channel.default_locale(settings.channel_locales), text
    )


def channel_locale(session: Session, settings: Settings, *, channel: str) -> str:
    """The language of what errkb posts for a whole channel: the channel's, else English."""
    return negotiate_locale(None, None, channel_default(session, settings, channel), "")
