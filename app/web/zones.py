"""Learners' time zones: IANA names, checked against the time zone database (`zoneinfo`).

A learner's days (the daily review limits, the activity calendar) and the times pages show
are in their own zone. UTC needs no database, so an image without tzdata still works.
"""

from datetime import UTC, date, datetime, time, timedelta, tzinfo
from functools import cache
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError, available_timezones

DEFAULT = "UTC"
# names in the database that say nothing about where a learner is
_NOT_PLACES = {"localtime", "posixrules", "Factory"}


@cache
def names() -> tuple[str, ...]:
    """Every zone a learner may choose, sorted: UTC and the zones of the database."""
    return tuple(sorted((available_timezones() - _NOT_PLACES) | {DEFAULT}))


def known(name: str) -> bool:
    """Tell whether name is a zone a learner may choose."""
    if name not in names():
        return False
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        return False
    return True


@cache
def zone(name: str) -> tzinfo:
    """The zone called name; UTC for UTC, and for a name the database no longer has."""
    if name == DEFAULT or not known(name):
        return UTC
    return ZoneInfo(name)


def today(now: datetime, name: str) -> date:
    """The learner's date at now, in their zone."""
    return now.astimezone(zone(name)).date()


def day_start(now: datetime, name: str) -> datetime:
    """When the learner's day holding now began (their midnight), in UTC."""
    return datetime.combine(today(now, name), time(), tzinfo=zone(name)).astimezone(UTC)


def day_end(now: datetime, name: str) -> datetime:
    """When the learner's day holding now ends (their next midnight), in UTC."""
    tomorrow = today(now, name) + timedelta(days=1)
    return datetime.combine(tomorrow, time(), tzinfo=zone(name)).astimezone(UTC)
