"""RFC 5545 recurrence lines (``RRULE``, ``RDATE``, ``EXDATE``): checked, normalised
and expanded on the wall clock of the series' own zone (calendar.md §4.2).

Checking is done here by hand, line by line, so that every refusal names the line as
the client wrote it (dateutil's messages quote an upper-cased rule). Expansion is
dateutil's, imported lazily: loading the app or the CLI must not pay for it. dateutil
reads ``Z`` values as the server's local zone, so every value is turned into a naive
wall time of the series zone before dateutil sees it.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
import re
import typing as t

from .formats import end_of_day, from_utc, start_of_day, to_utc
from .zones import DateParseError, resolve_timezone

PROPERTIES = ("RRULE", "RDATE", "EXDATE")
FREQUENCIES = ("SECONDLY", "MINUTELY", "HOURLY", "DAILY", "WEEKLY", "MONTHLY", "YEARLY")
WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")
#: numeric rule parts: (lowest, highest, whether negative values are allowed)
RANGES = {
    "BYSECOND": (0, 60, False),
    "BYMINUTE": (0, 59, False),
    "BYHOUR": (0, 23, False),
    "BYMONTHDAY": (1, 31, True),
    "BYYEARDAY": (1, 366, True),
    "BYWEEKNO": (1, 53, True),
    "BYMONTH": (1, 12, False),
    "BYSETPOS": (1, 366, True),
}
PARTS = ("FREQ", "UNTIL", "COUNT", "INTERVAL", "BYDAY", "WKST", *RANGES)
DATE_RE = re.compile(r"(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?")
BYDAY_RE = re.compile(r"([+-]?)(\d{1,2})?(MO|TU|WE|TH|FR|SA|SU)")
NAME_RE = re.compile(r"[A-Za-z-]+")
ONE_SECOND = dt.timedelta(seconds=1)


class RecurrenceError(ValueError):
    """A refused line: ``key`` is a ``schemas.messages`` template, ``index`` and
    ``line`` name the line as the client sent it."""

    def __init__(self, key: str, index: int, line: str, **values: t.Any) -> None:
        super().__init__(f"recurrence[{index}] {line!r}: {key}")
        self.key = key
        self.index = index
        self.line = line
        self.values = values


@dataclasses.dataclass(frozen=True)
class Line:
    """One content line: its position, its text and its parts (names upper-cased)."""

    index: int
    text: str
    name: str
    params: dict[str, str]
    value: str

    def fail(self, key: str, **values: t.Any) -> RecurrenceError:
        return RecurrenceError(key, self.index, self.text, **values)


def split_line(index: int, raw: str) -> Line:
    """Trim the line and upper-case its property name; :raises RecurrenceError:."""
    text = raw.strip()
    head, colon, value = text.partition(":")
    name, *raw_params = head.split(";")
    if not colon or not NAME_RE.fullmatch(name.strip()):
        raise RecurrenceError("rec_syntax", index, text)
    name = name.strip().upper()
    text = ";".join([name, *raw_params]) + ":" + value
    params: dict[str, str] = {}
    for param in raw_params:
        key, equals, param_value = param.partition("=")
        if not equals:
            raise RecurrenceError("rec_syntax", index, text)
        params[key.strip().upper()] = param_value.strip().strip('"')
    return Line(index, text, name, params, value.strip())


def parse_lines(lines: t.Sequence[str]) -> list[Line]:
    """Every line checked (except the cap, which needs the series' dates).

    :raises RecurrenceError: for the first bad line.
    """
    parsed = []
    rules = 0
    for index, raw in enumerate(lines):
        line = split_line(index, raw)
        if line.name not in PROPERTIES:
            raise line.fail("rec_property")
        if line.name == "RRULE":
            rules += 1
            if rules > 1:
                raise line.fail("rec_second_rrule")
            rule_parts(line)
        else:
            date_values(line, resolve_timezone("UTC"))
        parsed.append(line)
    return parsed


def normalise_lines(lines: t.Sequence[str]) -> list[str]:
    """The lines as stored: trimmed, names upper-cased. :raises RecurrenceError:."""
    return [line.text for line in parse_lines(lines)]


def rule_parts(line: Line) -> dict[str, str]:
    """An RRULE's parts, each value checked. :raises RecurrenceError:."""
    parts: dict[str, str] = {}
    for item in line.value.split(";"):
        name, equals, value = item.partition("=")
        name, value = name.strip().upper(), value.strip().upper()
        if not equals or name not in PARTS:
            raise line.fail("rec_unknown_part", part=name or item)
        if not value or name in parts:
            raise line.fail("rec_bad_value", part=name)
        parts[name] = value
        _check_part(line, name, value)
    if "FREQ" not in parts:
        raise line.fail("rec_no_freq")
    if "COUNT" in parts and "UNTIL" in parts:
        raise line.fail("rec_count_until")
    return parts


def _check_part(line: Line, name: str, value: str) -> None:
    if name == "FREQ":
        if value not in FREQUENCIES:
            raise line.fail("rec_unknown_freq")
        return
    if name == "UNTIL":
        if _date_match(value) is None:
            raise line.fail("rec_bad_date", value=value)
        return
    if name == "WKST":
        ok = value in WEEKDAYS
    elif name == "BYDAY":
        ok = all(_good_byday(item) for item in value.split(","))
    elif name in ("COUNT", "INTERVAL"):
        ok = value.isdigit() and 1 <= int(value) <= 100_000
    else:
        low, high, signed = RANGES[name]
        ok = all(_in_range(item, low, high, signed) for item in value.split(","))
    if not ok:
        raise line.fail("rec_bad_value", part=name)


def _good_byday(item: str) -> bool:
    match = BYDAY_RE.fullmatch(item)
    return match is not None and (match[2] is None or 1 <= int(match[2]) <= 53)


def _in_range(item: str, low: int, high: int, signed: bool) -> bool:
    digits = item[1:] if signed and item[:1] in "+-" else item
    return digits.isdigit() and low <= int(digits) <= high


def _date_match(value: str) -> dt.datetime | None:
    match = DATE_RE.fullmatch(value)
    if match is None:
        return None
    numbers = [int(group) for group in match.groups()[:6] if group is not None]
    try:
        return dt.datetime(*numbers)  # type: ignore[arg-type]
    except ValueError:
        return None


def _to_local(line: Line, value: str, zone: dt.tzinfo) -> dt.datetime:
    """A date or date-time value as naive wall time of ``zone``: ``Z`` from UTC, a
    ``TZID`` value from that zone, a floating one as it is."""
    moment = _date_match(value)
    if moment is None or not 1000 <= moment.year <= 9998:
        raise line.fail("rec_bad_date", value=value)
    if len(value) == 8:
        return moment
    if value.endswith("Z"):
        return from_utc(moment, zone)
    tzid = line.params.get("TZID")
    if tzid:
        try:
            source = resolve_timezone(tzid)
        except DateParseError:
            raise line.fail("rec_unknown_tzid", value=tzid) from None
        return from_utc(to_utc(moment, source), zone)
    return moment


def date_values(line: Line, zone: dt.tzinfo) -> list[dt.datetime]:
    """An RDATE's or EXDATE's values as naive wall times of ``zone``."""
    kind = line.params.get("VALUE", "DATE-TIME").upper()
    if kind == "PERIOD" or "/" in line.value:
        raise line.fail("rec_period")
    if kind not in ("DATE", "DATE-TIME"):
        raise line.fail("rec_bad_value", part="VALUE")
    return [_to_local(line, item.strip(), zone) for item in line.value.split(",")]


def localise_lines(lines: t.Sequence[str], zone: dt.tzinfo, all_day: bool = False) -> list[str]:
    """Give ``UNTIL`` the type RFC 5545 §3.3.10 wants, that of the series' start: a
    date in an all-day series, else a UTC date-time (its start has a TZID). A floating
    or date-only ``UNTIL`` of a timed series becomes the UTC time of the same wall time,
    or of the end of that day, as expansion reads it (a client drops the last
    occurrence of a timed series ending on a bare date); everything else is kept as
    given, ``COUNT`` included."""
    result = []
    for line in parse_lines(lines):
        until = rule_parts(line).get("UNTIL", "") if line.name == "RRULE" else ""
        typed = _typed_until(line, until, zone, all_day) if until else until
        if typed == until:
            result.append(line.text)
            continue
        value = re.sub(r"(?i)(UNTIL=)[0-9TZ]+(?=;|$)", rf"\g<1>{typed}", line.value)
        result.append(line.text[: len(line.text) - len(line.value)] + value)
    return result


def _typed_until(line: Line, until: str, zone: dt.tzinfo, all_day: bool) -> str:
    """``until`` as :func:`localise_lines` writes it."""
    local = _to_local(line, until, zone)
    if all_day:
        return f"{local:%Y%m%d}"
    if len(until) == 8:
        local = end_of_day(local)
    elif until.endswith("Z"):
        return until
    return to_utc(local, zone).strftime("%Y%m%dT%H%M%SZ")


@dataclasses.dataclass(frozen=True)
class Anchor:
    """What expansion needs of a series: its first local start and end, its zone."""

    start: dt.datetime
    end: dt.datetime
    zone: dt.tzinfo
    all_day: bool = False

    def end_for(self, start: dt.datetime) -> dt.datetime:
        """An instance's end: the anchor's duration (whole days in all-day series)."""
        if self.all_day:
            return end_of_day(start + (start_of_day(self.end) - start_of_day(self.start)))
        return start + (self.end - self.start)

    def real(self, local: dt.datetime) -> dt.datetime:
        """The wall time a rule instance really has: one in a DST gap moves forward."""
        return from_utc(to_utc(local, self.zone), self.zone)


def instances(lines: t.Sequence[str], anchor: Anchor) -> t.Iterator[dt.datetime]:
    """The series' starts in order, lazily (naive local; the anchor always first
    unless an EXDATE removes it). ``COUNT`` counts rule instances before ``EXDATE``.
    An EXDATE removes the instance at the same real time: in a DST gap, the rule's
    02:30 and the 03:30 a deleted occurrence's EXDATE names are one instant.

    :raises RecurrenceError: when dateutil refuses the rule.
    """
    from dateutil import rrule

    parsed = parse_lines(lines)
    rules = rrule.rruleset()
    excluded: set[dt.datetime] = set()
    start = start_of_day(anchor.start) if anchor.all_day else anchor.start
    for line in parsed:
        if line.name == "RRULE":
            built = _rrule(line, start, anchor)
            if built is not None:
                rules.rrule(built)
        else:
            for value in date_values(line, anchor.zone):
                value = start_of_day(value) if anchor.all_day else value
                if line.name == "RDATE":
                    rules.rdate(value)
                else:
                    excluded.add(anchor.real(value))
    rules.rdate(start)  # DTSTART is always the first instance (RFC 5545 §3.8.5.3)
    previous = None
    for value in rules:
        real = anchor.real(value)
        if real != previous and real not in excluded:
            previous = real
            yield real


def _rrule(line: Line, start: dt.datetime, anchor: Anchor) -> t.Any:
    """dateutil's rule for one RRULE line, values in naive local time; ``COUNT`` less
    one when DTSTART is not itself an instance (it still counts as the first)."""
    from dateutil import rrule

    parts = rule_parts(line)
    if "UNTIL" in parts:
        until = _to_local(line, parts["UNTIL"], anchor.zone)
        if len(parts["UNTIL"]) == 8 and not anchor.all_day:
            until = end_of_day(until)
        parts["UNTIL"] = until.strftime("%Y%m%dT%H%M%S")
    text = ";".join(f"{name}={value}" for name, value in parts.items())
    try:
        built = rrule.rrulestr(text, dtstart=start)
        if "COUNT" in parts and next(iter(built), None) != start:
            count = int(parts["COUNT"]) - 1
            if count < 1:
                return None
            built = built.replace(count=count)
    except (ValueError, TypeError):
        raise line.fail("rec_bad_value", part="RRULE") from None
    return built


def within(
    lines: t.Sequence[str], anchor: Anchor, until: dt.datetime, cap: int | None = None
) -> list[dt.datetime]:
    """The starts up to ``until`` (local); with ``cap``, walks at most ``cap + 1``.

    :raises RecurrenceError: ``rec_too_many`` when more than ``cap`` would exist.
    """
    limited = itertools.takewhile(lambda value: value <= until, instances(lines, anchor))
    if cap is None:
        return list(limited)
    found = list(itertools.islice(limited, cap + 1))
    if len(found) > cap:
        parsed = parse_lines(lines)
        line = next((line for line in parsed if line.name == "RRULE"), parsed[0])
        raise line.fail("rec_too_many", cap=cap, until=until.strftime("%Y-%m-%d"))
    return found


def rule_line_index(lines: t.Sequence[str]) -> int:
    return next((i for i, line in enumerate(parse_lines(lines)) if line.name == "RRULE"), 0)


def exdate_line(original: dt.datetime, zone_name: str, all_day: bool) -> str:
    """The line that removes one date: ``EXDATE;TZID=<zone>:<local>`` or a DATE."""
    if all_day:
        return f"EXDATE;VALUE=DATE:{original:%Y%m%d}"
    return f"EXDATE;TZID={zone_name}:{original:%Y%m%dT%H%M%S}"


def split_lines(
    lines: t.Sequence[str], before: dt.datetime, anchor: Anchor
) -> tuple[list[str], list[str]]:
    """Cut a series before ``before`` (a local start), as Google's "this and
    following" does: the old lines end with ``UNTIL`` just before it; the new series
    gets the rule with ``COUNT`` reduced by the instances before, and the ``RDATE`` and
    ``EXDATE`` values from ``before`` on."""
    old: list[str] = []
    new: list[str] = []
    for line in parse_lines(lines):
        if line.name == "RRULE":
            parts = rule_parts(line)
            kept = {name: value for name, value in parts.items() if name not in ("COUNT", "UNTIL")}
            if anchor.all_day:
                kept["UNTIL"] = f"{start_of_day(before) - dt.timedelta(days=1):%Y%m%d}"
            else:
                kept["UNTIL"] = f"{to_utc(before, anchor.zone) - ONE_SECOND:%Y%m%dT%H%M%SZ}"
            old.append("RRULE:" + ";".join(f"{k}={v}" for k, v in kept.items()))
            if "COUNT" in parts:
                earlier = _rule_instances_before(line, anchor, before)
                parts["COUNT"] = str(max(1, int(parts["COUNT"]) - earlier))
            new.append("RRULE:" + ";".join(f"{k}={v}" for k, v in parts.items()))
            continue
        head = line.text[: len(line.text) - len(line.value) - 1]
        values = [item.strip() for item in line.value.split(",")]
        locals_ = date_values(line, anchor.zone)
        early = [v for v, local in zip(values, locals_, strict=True) if local < before]
        late = [v for v, local in zip(values, locals_, strict=True) if local >= before]
        if early:
            old.append(f"{head}:{','.join(early)}")
        if late:
            new.append(f"{head}:{','.join(late)}")
    return old, new


def _rule_instances_before(line: Line, anchor: Anchor, before: dt.datetime) -> int:
    start = start_of_day(anchor.start) if anchor.all_day else anchor.start
    built = _rrule(line, start, anchor)
    extra = 0 if built is not None and next(iter(built), None) == start else 1
    if built is None:
        return extra
    return extra + sum(1 for _ in itertools.takewhile(lambda v: anchor.real(v) < before, built))


def ends_before(lines: t.Sequence[str], before: dt.datetime, anchor: Anchor) -> list[str]:
    """The lines of a series truncated before ``before`` (a deleted "following")."""
    return split_lines(lines, before, anchor)[0]
