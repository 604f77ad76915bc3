"""Time zones as TEC and WordPress name them: IANA names and "UTC+N" offsets.

WordPress stores manual offsets as "UTC+5.5" (decimal hours); "+05:30" is accepted too.
Unknown zones and unparseable dates raise :class:`DateParseError`, a ``ValueError`` so
callers can answer 400.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo


class DateParseError(ValueError):
    """Raised for unparseable dates or unknown timezones; a ValueError so callers can 400."""


# WordPress stores manual offsets as "UTC+5.5" (decimal hours); "+05:30" is accepted too.
_WP_OFFSET_RE = re.compile(r"UTC(?:([+-])(\d{1,2})(?:\.(\d+)|:(\d{2}))?)?")
# Keys zoneinfo accepts but whose meaning depends on the host, so not portable.
_HOST_ZONES = frozenset({"localtime", "posixrules", "Factory"})


def _wp_offset(match: re.Match[str], name: str) -> timezone:
    """Build the fixed offset for a WordPress "UTC±H[.frac]" / "UTC±HH:MM" string."""
    sign, hours, frac, minutes = match.groups()
    total = int(hours) * 60
    if frac is not None:
        total += round(float("0." + frac) * 60)
    elif minutes is not None:
        if int(minutes) >= 60:
            raise DateParseError(f"invalid UTC offset: {name!r}")
        total += int(minutes)
    if total >= 24 * 60:
        raise DateParseError(f"invalid UTC offset: {name!r}")
    return timezone(timedelta(minutes=-total if sign == "-" else total), name)


@functools.lru_cache(maxsize=256)
def resolve_timezone(name: str) -> tzinfo:
    """Turn an IANA name or WordPress offset string into a tzinfo (cached: called per event).

    IANA names (including "UTC") give a ``ZoneInfo``; "UTC+2", "UTC-3.75" and "UTC+05:30"
    give a fixed ``datetime.timezone`` whose ``tzname()`` is the string itself.
    """
    if not isinstance(name, str) or not name or name in _HOST_ZONES:
        raise DateParseError(f"unknown timezone: {name!r}")
    match = _WP_OFFSET_RE.fullmatch(name)
    if match is not None and match.group(1) is not None:
        return _wp_offset(match, name)
    try:
        return ZoneInfo(name)
    except (KeyError, ValueError, OSError) as exc:  # not found / bad key / directory
        raise DateParseError(f"unknown timezone: {name!r}") from exc


def is_valid_timezone(name: str) -> bool:
    """Validate user input (e.g. a ``timezone`` field) without exception handling at call site."""
    try:
        resolve_timezone(name)
    except DateParseError:
        return False
    return True


def timezone_abbr(name: str, when: datetime) -> str:
    """Abbreviation shown by TEC ("EST"/"EDT") for the wall time ``when`` in ``name``.

    Offset strings are echoed back verbatim, as WordPress does, since they have no abbr.
    ``when`` is naive local time (fold=0); an aware value is converted first.
    """
    tz = resolve_timezone(name)
    if isinstance(tz, timezone):
        return name
    if when.tzinfo is not None:
        aware = when.astimezone(tz)
    else:
        aware = when.replace(tzinfo=tz, fold=0)
    return aware.tzname() or name
