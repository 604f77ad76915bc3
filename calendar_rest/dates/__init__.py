"""Date, time and time zone helpers mirroring what TEC gets from PHP and WordPress.

TEC stores event dates as naive wall-clock strings ("Y-m-d H:i:s") in the event's
time zone plus a UTC twin, accepts REST date parameters through PHP's ``strtotime()``
and describes time zones either by IANA name or by WordPress "UTC+5.5" offset strings;
this package reproduces those behaviours, and RFC 5545's recurrence and time zones for
the series and feeds. It sits at the foundation and imports nothing of calendar_rest
(dateutil and dateparser load on first use); ``settings``, ``schemas``, ``queries``,
``repository``, ``wire`` and ``importing`` use it.

- ``zones`` — time zones as TEC and WordPress name them (IANA names, "UTC+N" offsets),
  and ``DateParseError``.
- ``formats`` — conversions between wall time and UTC, and the formats TEC emits.
- ``parsing`` — ``strtotime()`` in three tiers: precompiled regexes first.
- ``relative`` — the second tier: ``strtotime()``'s relative phrases ("next monday").
- ``natural`` — the last tier: English prose through dateparser, loaded lazily.
- ``recurrence`` — RFC 5545 ``RRULE``/``RDATE``/``EXDATE`` lines: checked, normalised,
  expanded on the series' wall clock.
- ``recurrence_moves`` — a moved series' lines, shifted with its instances.
- ``tzif`` — an IANA zone's rules as its TZif file states them (RFC 8536).
- ``observances`` — a zone's offsets from a first year on, as a VTIMEZONE says them.
"""

from __future__ import annotations

from .formats import (
    date_details,
    end_of_day,
    format_datetime,
    from_utc,
    iso8601,
    start_of_day,
    to_utc,
)
from .parsing import parse_datetime
from .zones import DateParseError, is_valid_timezone, resolve_timezone, timezone_abbr

__all__ = [
    "DateParseError",
    "date_details",
    "end_of_day",
    "format_datetime",
    "from_utc",
    "is_valid_timezone",
    "iso8601",
    "parse_datetime",
    "resolve_timezone",
    "start_of_day",
    "timezone_abbr",
    "to_utc",
]
