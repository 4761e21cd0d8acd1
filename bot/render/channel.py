"""``/errkb channel``: a channel's settings, how to change them, and the line ``/errkb help``
shows for the channel. Pure."""

from __future__ import annotations

from bot.channels import HIGHEST, LOWEST, THRESHOLDS, ChannelSettings
from bot.i18n import available_locales, t
from bot.render.kit import Message, context, message, section


def language_name(locale: str, language: str | None) -> str:
    """A language as the reader calls it; None is "automatic"."""
    return t(locale, f"lang.name.{language}") if language else t(locale, "channel.lang.auto")


def threshold_text(locale: str, settings: ChannelSettings) -> str:
    """ "normal (50 %)", or "custom (62 %)" for a number of one's own."""
    name = settings.threshold_name
    label = (
        t(locale, f"channel.threshold.{name}") if name else t(locale, "channel.threshold.custom")
    )
    return t(locale, "channel.threshold.value", name=label, percent=round(settings.min_score * 100))


def channel_status(locale: str, settings: ChannelSettings) -> str:
    """One line: mode, threshold, language (``/errkb help`` shows it for the channel)."""
    status = t(
        locale,
        "channel.status",
        mode=t(locale, f"channel.mode.name.{settings.mode}"),
        threshold=threshold_text(locale, settings),
        language=language_name(locale, settings.locale),
    )
    return status + (t(locale, "channel.status.alerts") if settings.alerts else "")


def usage_text(locale: str) -> str:
    """How to change each setting, with the real presets and languages."""
    presets = {name: round(score * 100) for name, score in THRESHOLDS.items()}
    return t(
        locale,
        "channel.usage",
        choices="|".join((*available_locales(), "auto")),
        low=round(LOWEST * 100),
        high=round(HIGHEST * 100),
        **presets,
    )


def render_channel(
    locale: str, settings: ChannelSettings, *, note_key: str | None = None
) -> Message:
    """The channel's settings, each explained, how to change them and who may; ``note_key``
    (``channel.saved``) says a change was just made."""
    lines = [
        t(locale, f"channel.mode.{settings.mode}"),
        t(locale, "channel.threshold", value=threshold_text(locale, settings)),
        t(locale, "channel.lang", language=language_name(locale, settings.locale)),
        t(locale, "channel.alerts.on" if settings.alerts else "channel.alerts.off"),
    ]
    head = t(locale, note_key) if note_key else t(locale, "channel.title")
    blocks = [
        section(head),
        section("\n".join(lines)),
        section(usage_text(locale)),
        context(t(locale, "channel.who")),
    ]
    return message(f"{head} {channel_status(locale, settings)}", blocks)


def render_channel_usage(locale: str, problem: str | None = None) -> Message:
    """What ``/errkb channel`` accepts, after an argument it does not."""
    lead = t(locale, f"channel.problem.{problem}") if problem else t(locale, "channel.problem")
    return message(lead, [section(f":warning: {lead}"), section(usage_text(locale))])


def render_welcome(locale: str, settings: ChannelSettings) -> Message:
    """What errkb says once, when it is invited to a channel: what it does, how to configure it."""
    text = t(locale, "welcome.text")
    return message(
        text,
        [
            section(text),
            context(t(locale, "welcome.settings", status=channel_status(locale, settings))),
        ],
    )


__all__ = [
    "channel_status",
    "language_name",
    "render_channel",
    "render_channel_usage",
    "render_welcome",
    "threshold_text",
    "usage_text",
]
