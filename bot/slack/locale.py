"""Which language to answer a user in: gathers the facts, lets ``negotiate_locale`` decide."""

from __future__ import annotations

from bot.i18n import negotiate_locale
from bot.slack.world import World
from bot.store import slack_repo


def user_locale(world: World, *, user: str, channel: str | None, text: str = "") -> str:
    """The user's choice (database), their Slack locale (cached ``users.info``), the
    channel's default, then the language of ``text``."""
    with world.store.read() as session:
        chosen = slack_repo.chosen_locale(session, user_id=user)
    slack_locale = None if chosen else world.gateway.user_locale(user)
    channel_default = world.settings.channel_locales.get(channel or "")
    return negotiate_locale(chosen, slack_locale, channel_default, text)
