"""Conversions between wall time and UTC, and the formats TEC emits.

TEC stores event dates as naive wall-clock strings ("Y-m-d H:i:s") in the event's
time zone plus a UTC twin; these functions convert between the two and render them.
"""

from __future__ import annotations

from datetime import datetime, timezone, tzinfo

from .zones import DateParseError

UTC = timezone.utc
#: what a missing date shows as in ``date_details``, and where Unix time starts
EPOCH = datetime(1970, 1, 1)


def to_utc(local: datetime, tz: tzinfo) -> datetime:
    """Naive wall time in ``tz`` → naive UTC, for the ``*_utc`` columns.

    Uses fold=0 (like PHP): an ambiguous time (DST end) is taken as its first, DST,
    occurrence; a nonexistent time (DST gap) uses the pre-transition offset, so
    02:30 on a New York spring-forward day becomes 07:30 UTC (03:30 EDT).
    An aware ``local`` is converted as-is.
    """
    aware = local if local.tzinfo is not None else local.replace(tzinfo=tz, fold=0)
    try:
        return aware.astimezone(UTC).replace(tzinfo=None)
    except OverflowError as exc:
        raise DateParseError(f"date out of range: {local!r}") from exc


def from_utc(utc: datetime, tz: tzinfo) -> datetime:
    """Naive UTC → naive wall time in ``tz`` (inverse of :func:`to_utc`)."""
    try:
        return utc.replace(tzinfo=UTC).astimezone(tz).replace(tzinfo=None)
    except OverflowError as exc:
        raise DateParseError(f"date out of range: {utc!r}") from exc


def format_datetime(value: datetime | None) -> str:
    """MySQL/TEC "Y-m-d H:i:s"; None becomes MySQL's zero date as TEC emits it."""
    if value is None:
        return "0000-00-00 00:00:00"
    # isoformat rather than strftime: glibc does not zero-pad years < 1000 (and it is
    # the cheapest way, on every listed date); an aware value would add its offset
    if value.tzinfo is None:
        return value.isoformat(" ", "seconds")
    return value.replace(tzinfo=None).isoformat(" ", "seconds")


def date_details(value: datetime | None) -> dict[str, str]:
    """TEC's ``*_date_details`` object: zero-padded strings, key order as on the wire."""
    v = value if value is not None else EPOCH
    return {
        "year": f"{v.year:04d}",
        "month": f"{v.month:02d}",
        "day": f"{v.day:02d}",
        "hour": f"{v.hour:02d}",
        "minutes": f"{v.minute:02d}",
        "seconds": f"{v.second:02d}",
    }


def iso8601(local: datetime, tz: tzinfo) -> str:
    """ISO 8601 with the offset in force at that wall time (fold=0), for JSON-LD."""
    aware = local.astimezone(tz) if local.tzinfo is not None else local.replace(tzinfo=tz, fold=0)
    return aware.isoformat(timespec="seconds")


def start_of_day(d: datetime) -> datetime:
    """00:00:00 of the same day; used for date-only range filters."""
    return d.replace(hour=0, minute=0, second=0, microsecond=0)


def end_of_day(d: datetime) -> datetime:
    """23:59:59 of the same day, as TEC uses for inclusive end dates."""
    return d.replace(hour=23, minute=59, second=59, microsecond=0)
