"""A moved series' lines (calendar.md §4.4): when a series-wide edit moves the start,
the zone or the all-day flag of a series, every instance moves by the anchor's shift
on the wall clock, and so must the dates its lines name. RFC 5545 matches an
``EXDATE`` (and a ``RECURRENCE-ID``) with an instance by its start: an EXDATE left
where it was excludes nothing and brings its deleted date back; an ``RDATE`` left
behind becomes another instance (its occurrence a new ID); an ``UNTIL`` left behind
cuts the last instance of a series moved later.
"""

from __future__ import annotations

import datetime as dt
import typing as t

from .formats import from_utc, start_of_day, to_utc
from .recurrence import Anchor, Line, date_values, parse_lines, rule_parts

LOCAL = "%Y%m%dT%H%M%S"
UTC = LOCAL + "Z"
DATE = "%Y%m%d"
#: characters that make a parameter value quoted (RFC 5545 §3.1)
QUOTED = frozenset(';:,"')


def move_lines(lines: t.Sequence[str], old: Anchor, new: Anchor, zone_name: str) -> list[str]:
    """``lines`` of a series whose anchor moves from ``old`` to ``new`` (``zone_name``
    is the new zone's, written as ``TZID``): ``EXDATE`` and ``RDATE`` values and
    ``UNTIL`` move by the same shift, in the forms the series' export writes (dates in
    an all-day series, ``Z`` values kept in ``Z``, others in the series zone); the
    lines are returned as they are when nothing moves."""
    shift = new.start - old.start
    if not shift and old.zone == new.zone and old.all_day == new.all_day:
        return list(lines)
    moved = []
    for line in parse_lines(lines):
        if line.name == "RRULE":
            moved.append(_move_until(line, old, new))
        else:
            moved.append(_move_dates(line, old, new, zone_name))
    return moved


def _move_dates(line: Line, old: Anchor, new: Anchor, zone_name: str) -> str:
    """An ``RDATE`` or ``EXDATE`` line with each value moved as its instance moves."""
    starts = [
        (start_of_day(value) if old.all_day else value) + (new.start - old.start)
        for value in date_values(line, old.zone)
    ]
    params = "".join(
        f";{name}={_param(value)}"
        for name, value in line.params.items()
        if name not in ("TZID", "VALUE")
    )
    if new.all_day:
        return f"{line.name}{params};VALUE=DATE:" + ",".join(f"{s:{DATE}}" for s in starts)
    if all(item.strip().endswith("Z") for item in line.value.split(",")):
        return f"{line.name}{params}:" + ",".join(f"{to_utc(s, new.zone):{UTC}}" for s in starts)
    return f"{line.name}{params};TZID={zone_name}:" + ",".join(f"{s:{LOCAL}}" for s in starts)


def _move_until(line: Line, old: Anchor, new: Anchor) -> str:
    """An ``RRULE`` line whose ``UNTIL`` moved with the instances: a date by the days
    the start moved, a date-time by the shift (then written in UTC, as stored)."""
    until = rule_parts(line).get("UNTIL")
    if until is None:
        return line.text
    if len(until) == len("YYYYMMDD"):
        days = new.start.date() - old.start.date()
        moved = f"{dt.datetime.strptime(until, DATE) + days:{DATE}}"
    else:
        local = dt.datetime.strptime(until.rstrip("Z"), LOCAL)
        if until.endswith("Z"):
            local = from_utc(local, old.zone)
        moved = f"{to_utc(local + (new.start - old.start), new.zone):{UTC}}"
    parts = [
        f"UNTIL={moved}" if item.strip().upper().startswith("UNTIL=") else item
        for item in line.value.split(";")
    ]
    return f"{line.text[: len(line.text) - len(line.value)]}{';'.join(parts)}"


def _param(value: str) -> str:
    return f'"{value}"' if QUOTED & set(value) else value
