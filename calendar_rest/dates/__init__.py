"""Date, time and time zone helpers mirroring what TEC gets from PHP and WordPress.

TEC stores event dates as naive wall-clock strings ("Y-m-d H:i:s") in the event's
time zone plus a UTC twin, accepts REST date parameters through PHP's ``strtotime()``
and describes time zones either by IANA name or by WordPress "UTC+5.5" offset strings.
This package reproduces those behaviours so the wire format matches: ``zones`` (time
zones), ``formats`` (conversions and TEC's formats) and ``parsing`` (``strtotime()``,
with ``relative`` and ``natural`` as its slower tiers).
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
