"""Parsing dates like PHP's ``strtotime()``, in three tiers so the common case stays cheap.

1. a fast path of precompiled regexes for ISO-like and numeric dates (every list request);
2. a small strtotime-compatible grammar for relative phrases (``relative.py``);
3. ``dateparser`` (imported lazily) for everything else (``natural.py``).
"""

from __future__ import annotations

import math
import re
from datetime import date, datetime, time, timedelta, timezone, tzinfo

from .formats import EPOCH, UTC, from_utc
from .natural import dateparser_parse
from .relative import grammar_parse
from .zones import DateParseError

_TIME_PART = r"(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,]\d+)?)?"
# YYYY-MM-DD[( |T)HH:MM[:SS[.frac]]][Z|±HH[:]MM]; "/" as separator too.
_ISO_RE = re.compile(
    r"(\d{4})([-/])(\d{1,2})\2(\d{1,2})"
    r"(?:(?:T|\s+)" + _TIME_PART + r"\s*(Z|[+-]\d{2}(?::?\d{2})?)?)?",
    re.IGNORECASE,
)
# PHP: "m/d/Y" is American, "d-m-Y" and "d.m.Y" are European.
_NUMERIC_DATE_RE = re.compile(r"(\d{1,2})([-./])(\d{1,2})\2(\d{4})(?:\s+" + _TIME_PART + r")?")
_TIMESTAMP_RE = re.compile(r"@?-?\d+")
_MAX_INPUT = 200  # bounds the work handed to dateparser for hostile input


def _offset_tz(text: str) -> timezone:
    """Fixed tz for "Z", "+05", "+0530" or "+05:30"."""
    if text in ("Z", "z"):
        return UTC
    digits = text[1:].replace(":", "")
    delta = timedelta(hours=int(digits[:2]), minutes=int(digits[2:] or 0))
    return timezone(-delta if text[0] == "-" else delta)


def _from_iso(m: re.Match[str], tz: tzinfo) -> datetime:
    """Build the wall time for an :data:`_ISO_RE` match, converting any explicit offset."""
    year, _sep, month, day, hour, minute, second, offset = m.groups()
    result = datetime(
        int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(second or 0)
    )
    if offset is None:
        return result
    aware = result.replace(tzinfo=_offset_tz(offset))
    return aware.astimezone(tz).replace(tzinfo=None)


def _from_numeric(m: re.Match[str]) -> datetime:
    """Build the datetime for an :data:`_NUMERIC_DATE_RE` match using PHP's field order."""
    first, sep, second_, year, hour, minute, sec = m.groups()
    month, day = (first, second_) if sep == "/" else (second_, first)
    return datetime(
        int(year), int(month), int(day), int(hour or 0), int(minute or 0), int(sec or 0)
    )


def _from_timestamp(value: float, tz: tzinfo) -> datetime:
    """Unix timestamp → wall time in ``tz`` (works for negatives on every platform)."""
    if math.isnan(value) or math.isinf(value):
        raise DateParseError(f"invalid timestamp: {value!r}")
    try:
        utc = EPOCH + timedelta(seconds=value)
    except OverflowError as exc:
        raise DateParseError(f"timestamp out of range: {value!r}") from exc
    return from_utc(utc, tz).replace(microsecond=0)


def _fast_parse(text: str, tz: tzinfo) -> datetime | None:
    """Regex-only parsing of machine formats; None when the text needs the slower tiers."""
    m = _ISO_RE.fullmatch(text)
    if m is not None:
        return _from_iso(m, tz)
    m = _NUMERIC_DATE_RE.fullmatch(text)
    if m is not None:
        return _from_numeric(m)
    if _TIMESTAMP_RE.fullmatch(text):
        return _from_timestamp(int(text.lstrip("@")), tz)
    return None


def _resolve_now(now: datetime | None, tz: tzinfo) -> datetime:
    """Reference time as naive wall time in ``tz``."""
    if now is None:
        return datetime.now(tz).replace(tzinfo=None, microsecond=0)
    if now.tzinfo is not None:
        now = now.astimezone(tz).replace(tzinfo=None)
    return now.replace(microsecond=0)


def _parse_text(text: str, tz: tzinfo, now: datetime | None) -> datetime:
    """Run the three parsing tiers over a stripped, non-empty string."""
    result = _fast_parse(text, tz)
    if result is not None:
        return result
    base = _resolve_now(now, tz)
    result = grammar_parse(text, base)
    if result is None:
        result = dateparser_parse(text, tz, base)
    if result is None:
        raise DateParseError(f"could not parse date: {text!r}")
    return result


def parse_datetime(value: object, tz: tzinfo, *, now: datetime | None = None) -> datetime:
    """Parse like PHP ``strtotime()``; return the naive wall-clock time in ``tz``.

    Accepts unix timestamps (int/float/digit strings, optional "@"), ISO-like strings
    (an explicit "Z"/offset is converted into ``tz``), "m/d/Y", "d-m-Y", "d.m.Y",
    strtotime relative phrases ("tomorrow 9am", "next monday", "+1 week", "3 days ago")
    and, via dateparser, English prose ("December 5, 2026 7pm"). ``now`` (naive = wall
    time in ``tz``, or aware) anchors relative phrases. Relative arithmetic is on wall
    time. Microseconds are dropped. Raises :class:`DateParseError` on failure.
    """
    if isinstance(value, bool) or value is None:
        raise DateParseError(f"not a date: {value!r}")
    if isinstance(value, (int, float)):
        return _from_timestamp(value, tz)
    if isinstance(value, datetime):
        return _resolve_now(value, tz)
    if isinstance(value, date):
        return datetime.combine(value, time(0, 0))
    if not isinstance(value, str):
        raise DateParseError(f"not a date: {value!r}")
    text = value.strip()
    if not text or len(text) > _MAX_INPUT:
        raise DateParseError(f"not a date: {value!r}")
    try:
        result = _parse_text(text, tz, now)
    except (ValueError, OverflowError) as exc:  # out-of-range fields or year outside 1..9999
        if isinstance(exc, DateParseError):
            raise
        raise DateParseError(f"invalid date: {value!r}") from exc
    return result.replace(microsecond=0)
