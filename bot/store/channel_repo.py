"""Channel settings (``/errkb channel``). Keyword-only arguments; nothing commits.

Each setter is one ``INSERT … ON CONFLICT DO UPDATE`` of the one setting it
changes: two people changing two settings at once both win.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Row, bindparam, select
from sqlalchemy.orm import Session

from bot.channels import ChannelSettings, Mode
from bot.store.dialect import insert
from bot.store.models import ChannelSettingsRow, table_of

if TYPE_CHECKING:
    from bot.store.loading import Rows


_CHANNELS = table_of(ChannelSettingsRow)
# Built once: every paste asks it, and building it costs more than running it.
_CHANNEL_SETTINGS = select(_CHANNELS).where(_CHANNELS.c.channel == bindparam("p_channel"))


def channel_settings(session: Rows, *, channel: str) -> ChannelSettings:
    """The channel's settings; the defaults for a channel nobody configured. A Core select,
    so a paste's plain read connection can ask it too."""
    row = session.execute(_CHANNEL_SETTINGS, {"p_channel": channel}).first()
    if row is None:
        return ChannelSettings(channel)
    return _settings(row)


def _settings(row: ChannelSettingsRow | Row[Any]) -> ChannelSettings:
    return ChannelSettings(
        row.channel, Mode(row.mode), row.threshold, row.locale, row.updated_by, bool(row.alerts)
    )


def configured_channels(session: Session) -> list[ChannelSettings]:
    """Every channel someone configured."""
    rows = session.scalars(select(ChannelSettingsRow).order_by(ChannelSettingsRow.channel))
    return [_settings(r) for r in rows]


def _upsert(session: Session, channel: str, change: dict[str, Any], by: str, at: datetime) -> None:
    table = table_of(ChannelSettingsRow)
    values = {"mode": Mode.ON.value, "threshold": None, "locale": None, "alerts": False, **change}
    statement = insert(session, table).values(
        channel=channel, updated_by=by, updated_at=at, **values
    )
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[table.c.channel], set_={**change, "updated_by": by, "updated_at": at}
        )
    )


def set_channel_mode(session: Session, *, channel: str, mode: Mode, by: str, at: datetime) -> None:
    _upsert(session, channel, {"mode": Mode(mode).value}, by, at)


def set_channel_threshold(
    session: Session, *, channel: str, threshold: float | None, by: str, at: datetime
) -> None:
    """``None`` goes back to errkb's default threshold."""
    _upsert(session, channel, {"threshold": threshold}, by, at)


def set_channel_locale(
    session: Session, *, channel: str, locale: str | None, by: str, at: datetime
) -> None:
    """``None`` goes back to choosing automatically."""
    _upsert(session, channel, {"locale": locale}, by, at)


def set_channel_alerts(
    session: Session, *, channel: str, alerts: bool, by: str, at: datetime
) -> None:
    """Whether errkb reads other apps' monitoring alerts in the channel."""
    _upsert(session, channel, {"alerts": bool(alerts)}, by, at)


def alert_channels(session: Session) -> list[str]:
    """The channels where errkb answers monitoring alerts."""
    return list(
        session.scalars(
            select(ChannelSettingsRow.channel)
            .where(ChannelSettingsRow.alerts.is_(True))
            .order_by(ChannelSettingsRow.channel)
        )
    )


__all__ = [
    "alert_channels",
    "channel_settings",
    "configured_channels",
    "set_channel_alerts",
    "set_channel_locale",
    "set_channel_mode",
    "set_channel_threshold",
]
