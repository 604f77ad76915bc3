"""Date, time and timezone helpers mirroring what TEC gets from PHP and WordPress.

TEC stores event dates as naive wall-clock strings ("Y-m-d H:i:s") in the event's
timezone plus a UTC twin, accepts REST date parameters through PHP's ``strtotime()``
and describes timezones either by IANA name or by WordPress "UTC+5.5" offset strings.
This module reproduces those behaviours so the wire format matches.

Parsing has three tiers so the common case stays cheap:

1. a fast path of precompiled regexes for ISO-like and numeric dates (every list request);
2. a small strtotime-compatible grammar for relative phrases ("tomorrow 9am",
   "next monday", "+1 week", "3 days ago") that matches PHP's rules exactly;
3. ``dateparser`` (imported lazily, ~1s) for everything else, e.g. "December 5, 2026 7pm".
"""

from __future__ import annotations

import functools
import math
import re
import threading
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta, timezone, tzinfo
from zoneinfo import ZoneInfo

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


class DateParseError(ValueError):
    """Raised for unparseable dates or unknown timezones; a ValueError so callers can 400."""


# --------------------------------------------------------------------------- timezones

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


# --------------------------------------------------------------------------- conversions

_UTC = timezone.utc
_EPOCH = datetime(1970, 1, 1)


def to_utc(local: datetime, tz: tzinfo) -> datetime:
    """Naive wall time in ``tz`` → naive UTC, for the ``*_utc`` columns.

    Uses fold=0 (like PHP): an ambiguous time (DST end) is taken as its first, DST,
    occurrence; a nonexistent time (DST gap) uses the pre-transition offset, so
    02:30 on a New York spring-forward day becomes 07:30 UTC (03:30 EDT).
    An aware ``local`` is converted as-is.
    """
    aware = local if local.tzinfo is not None else local.replace(tzinfo=tz, fold=0)
    try:
        return aware.astimezone(_UTC).replace(tzinfo=None)
    except OverflowError as exc:
        raise DateParseError(f"date out of range: {local!r}") from exc


def from_utc(utc: datetime, tz: tzinfo) -> datetime:
    """Naive UTC → naive wall time in ``tz`` (inverse of :func:`to_utc`)."""
    try:
        return utc.replace(tzinfo=_UTC).astimezone(tz).replace(tzinfo=None)
    except OverflowError as exc:
        raise DateParseError(f"date out of range: {utc!r}") from exc


# --------------------------------------------------------------------------- formatting


def format_datetime(value: datetime | None) -> str:
    """MySQL/TEC "Y-m-d H:i:s"; None becomes MySQL's zero date as TEC emits it."""
    if value is None:
        return "0000-00-00 00:00:00"
    # f-string rather than strftime: glibc does not zero-pad years < 1000.
    return (
        f"{value.year:04d}-{value.month:02d}-{value.day:02d} "
        f"{value.hour:02d}:{value.minute:02d}:{value.second:02d}"
    )


def date_details(value: datetime | None) -> dict[str, str]:
    """TEC's ``*_date_details`` object: zero-padded strings, key order as on the wire."""
    v = value if value is not None else _EPOCH
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


# --------------------------------------------------------------------------- parsing: fast path

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
        return _UTC
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
        utc = _EPOCH + timedelta(seconds=value)
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


# --------------------------------------------------------------------------- parsing: grammar

_WEEKDAYS = {"mon": 0, "tue": 1, "wed": 2, "thu": 3, "fri": 4, "sat": 5, "sun": 6}
# unit prefix → (field, multiplier); weeks/fortnights are days, like timelib.
_UNITS = {
    "se": ("seconds", 1),
    "mi": ("minutes", 1),
    "ho": ("hours", 1),
    "da": ("days", 1),
    "we": ("days", 7),
    "fo": ("days", 14),
    "mo": ("months", 1),
    "ye": ("years", 1),
}
_UNIT = r"(sec(?:ond)?s?|min(?:ute)?s?|hours?|days?|weeks?|fortnights?|months?|years?)"
_WEEKDAY = (
    r"(mon(?:day)?|tue(?:s(?:day)?)?|wed(?:nesday)?|thu(?:r(?:s(?:day)?)?)?"
    r"|fri(?:day)?|sat(?:urday)?|sun(?:day)?)"
)
_END = r"(?=\s|$)"
# "next"/"last" as numbers, "this" as 0 (timelib's reltext values).
_REL_TEXT = {"this": 0, "next": 1, "last": -1, "previous": -1}


@dataclass
class _Rel:
    """Accumulated strtotime state; applied like timelib's ``timelib_update_ts``."""

    day: date | None = None
    clock: tuple[int, int, int] | None = None
    weekday: int | None = None
    weekday_behavior: int = 0  # 1: today counts ("monday"); 0: strictly after ("next monday")
    rel: dict[str, int] = field(
        default_factory=lambda: dict.fromkeys(
            ("years", "months", "days", "hours", "minutes", "seconds"), 0
        )
    )
    meaningful: bool = False


def _tok_date(m: re.Match[str], st: _Rel) -> None:
    st.day = date(int(m[1]), int(m[2]), int(m[3]))


def _tok_time12(m: re.Match[str], st: _Rel) -> None:
    hour, minute, second = int(m[1]), int(m[2] or 0), int(m[3] or 0)
    if not 1 <= hour <= 12:
        raise DateParseError(f"invalid hour: {m[0]!r}")
    st.clock = (hour % 12 + (12 if m[4] == "p" else 0), minute, second)


def _tok_time24(m: re.Match[str], st: _Rel) -> None:
    st.clock = (int(m[1]), int(m[2]), int(m[3] or 0))


def _tok_relative(m: re.Match[str], st: _Rel) -> None:
    amount = 1 if m[2] in ("a", "an") else int(m[2])
    name, mult = _UNITS[m[3][:2]]
    st.rel[name] += (-amount if m[1] == "-" else amount) * mult


def _tok_word(m: re.Match[str], st: _Rel) -> None:
    # timelib: these reset the time (TIMELIB_UNHAVE_TIME); "now" changes nothing.
    word = m[1]
    if word == "now":
        return
    st.clock = (12, 0, 0) if word == "noon" else (0, 0, 0)
    if word == "tomorrow":
        st.rel["days"] += 1
    elif word == "yesterday":
        st.rel["days"] -= 1


def _tok_weekday(m: re.Match[str], st: _Rel) -> None:
    amount = _REL_TEXT[m[1]] if m[1] else 0
    st.weekday = _WEEKDAYS[m[2][:3]]
    st.weekday_behavior = 1 if m[1] in (None, "this") else 0
    if amount < 0:
        st.rel["days"] -= 7
    st.clock = (0, 0, 0)  # a day name resets the time, even one given earlier (PHP quirk)


def _tok_reltext(m: re.Match[str], st: _Rel) -> None:
    name, mult = _UNITS[m[2][:2]]
    st.rel[name] += _REL_TEXT[m[1]] * mult


def _tok_ago(_m: re.Match[str], st: _Rel) -> None:
    # timelib: "ago" negates every relative amount seen so far.
    for key in st.rel:
        st.rel[key] = -st.rel[key]


_Handler = Callable[[re.Match[str], _Rel], None]
_TOKENS: tuple[tuple[re.Pattern[str], _Handler | None], ...] = tuple(
    (re.compile(r"\s*" + pattern + _END), handler)
    for pattern, handler in (
        (r"(\d{4})-(\d{1,2})-(\d{1,2})", _tok_date),
        (r"(\d{1,2})(?:[:.](\d{2}))?(?:[:.](\d{2}))?\s*([ap])\.?m\.?", _tok_time12),
        (r"t?(\d{1,2})[:.](\d{2})(?:[:.](\d{2}))?", _tok_time24),
        (r"([+-]?)\s*(\d+|an?)\s*" + _UNIT, _tok_relative),
        (r"(now|today|midnight|noon|tomorrow|yesterday)", _tok_word),
        (r"(?:(this|next|last|previous)\s+)?" + _WEEKDAY, _tok_weekday),
        (r"(this|next|last|previous)\s+" + _UNIT, _tok_reltext),
        (r"ago", _tok_ago),
        (r"(?:at|on|in|and)", None),  # filler words: "tomorrow at 9am", "in 3 days"
    )
)


def _scan(text: str) -> _Rel | None:
    """Tokenise ``text`` with the grammar; None if any part is not understood."""
    st = _Rel()
    pos, end = 0, len(text)
    while pos < end and text[pos:].strip():
        for pattern, handler in _TOKENS:
            m = pattern.match(text, pos)
            if m is not None:
                if handler is not None:
                    handler(m, st)
                    st.meaningful = True
                pos = m.end()
                break
        else:
            return None
    return st


def _add_months(d: date, months: int) -> date:
    """Month arithmetic with PHP overflow: Jan 31 + 1 month = Mar 3 (not Feb 28)."""
    year, month0 = divmod(d.year * 12 + d.month - 1 + months, 12)
    return date(year, month0 + 1, 1) + timedelta(days=d.day - 1)


def _apply(st: _Rel, now: datetime) -> datetime:
    """Resolve grammar state against ``now`` in timelib's order: weekday, then relatives."""
    day = st.day if st.day is not None else now.date()
    if st.clock is not None:
        clock = time(*st.clock)
    elif st.day is not None:
        clock = time(0, 0, 0)  # an explicit date without time means midnight
    else:
        clock = now.time().replace(microsecond=0)
    rel = st.rel
    if st.weekday is not None:
        diff = st.weekday - day.weekday()
        if (rel["days"] < 0 and diff < 0) or (rel["days"] >= 0 and diff <= -st.weekday_behavior):
            diff += 7
        day += timedelta(days=diff)
    day = _add_months(day, rel["years"] * 12 + rel["months"])
    return datetime.combine(day, clock) + timedelta(
        days=rel["days"], hours=rel["hours"], minutes=rel["minutes"], seconds=rel["seconds"]
    )


def _grammar_parse(text: str, now: datetime) -> datetime | None:
    """strtotime-compatible relative phrases without dateparser; None if not understood."""
    st = _scan(text.lower().replace(",", " "))
    if st is None or not st.meaningful:
        return None
    return _apply(st, now)


# --------------------------------------------------------------------------- parsing: dateparser

# dateparser happily reads "a" or "the 5th" as dates; only hand it text that looks like one.
_FALLBACK_HINT = re.compile(
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec"
    r"|ago|from|now|later|after|before|hence|today|tomorrow|yesterday"
    r"|(?:sec|second|minute|hour|day|week|month|year)s?)",
    re.IGNORECASE,
)
# dateparser is not documented as thread-safe and warnings.catch_warnings() is process-global.
_DATEPARSER_LOCK = threading.Lock()


def _dateparser_parse(text: str, tz: tzinfo, now: datetime) -> datetime | None:
    """Natural-language fallback; imports dateparser on first use only."""
    if not _FALLBACK_HINT.search(text):
        return None
    import dateparser  # deliberately lazy: importing it costs ~1s

    settings = {
        "RELATIVE_BASE": now,
        "PREFER_DAY_OF_MONTH": "first",  # "Dec 2026" → Dec 1, like strtotime
    }
    with _DATEPARSER_LOCK, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = dateparser.parse(text, languages=["en"], settings=settings)
    if result is None:
        return None
    if result.tzinfo is not None:  # "7pm EST": honour the stated zone, return tz wall time
        result = result.astimezone(tz).replace(tzinfo=None)
    return result


# --------------------------------------------------------------------------- parsing: entry point


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
    result = _grammar_parse(text, base)
    if result is None:
        result = _dateparser_parse(text, tz, base)
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
