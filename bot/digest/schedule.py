"""When a digest is due: cron arithmetic on APScheduler 3's ``CronTrigger``.

A *period* is named by the scheduled fire time that opened it. Every replica
computes the same name for the same moment, so a database claim on it makes
the digest happen once per period however many processes run, and a process
that starts after a missed fire time still finds that period due.

``ERRKB_DIGEST_CRON`` takes the usual five fields (minute hour day month
weekday) or six with seconds first, for short test schedules.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from apscheduler.triggers.cron import CronTrigger

from bot.errors import ConfigError

_FIELDS5 = ("minute", "hour", "day", "month", "day_of_week")
_FIELDS6 = ("second", *_FIELDS5)
_MAX_LOOKBACK = timedelta(days=800)


def make_trigger(expression: str, timezone: str) -> CronTrigger:
    """A trigger for a five- or six-field cron expression in ``timezone``."""
    try:
        zone = ZoneInfo(timezone)
    except (KeyError, ValueError) as exc:
        raise ConfigError(f"ERRKB_TIMEZONE: unknown time zone {timezone!r}") from exc
    try:
        return parse_cron(expression, zone)
    except ValueError as exc:
        raise ConfigError(f"ERRKB_DIGEST_CRON: {exc}") from exc


def parse_cron(expression: str, zone: ZoneInfo) -> CronTrigger:
    """The trigger of a five- or six-field cron expression; ValueError says what is wrong."""
    parts = expression.split()
    if len(parts) not in (5, 6):
        raise ValueError(
            f"expected 5 fields (minute hour day month weekday) "
            f"or 6 with seconds first, got {expression!r}"
        )
    names = _FIELDS5 if len(parts) == 5 else _FIELDS6
    return CronTrigger(timezone=zone, **dict(zip(names, parts, strict=True)))


def latest_fire(trigger: CronTrigger, now: datetime) -> datetime | None:
    """The most recent scheduled time at or before ``now`` (None if none in ~2 years)."""
    lookback = timedelta(minutes=1)
    while lookback <= _MAX_LOOKBACK:
        start = now - lookback
        fire = trigger.get_next_fire_time(None, start)
        if fire is not None and fire <= now:
            latest = fire
            while True:
                following = trigger.get_next_fire_time(latest, latest + timedelta(microseconds=1))
                if following is None or following > now:
                    return latest
                latest = following
        lookback *= 4
    return None


def next_fire(trigger: CronTrigger, now: datetime) -> datetime | None:
    return trigger.get_next_fire_time(None, now + timedelta(microseconds=1))


def period_key(fire: datetime) -> str:
    """A stable name for the period opened at ``fire`` (UTC, seconds)."""
    return fire.astimezone(ZoneInfo("UTC")).strftime("%Y-%m-%dT%H:%M:%SZ")
