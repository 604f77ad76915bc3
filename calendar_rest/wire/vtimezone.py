"""The VTIMEZONEs of the feeds (``calendar.md`` §3.1): how a zone is named, and its
offsets from January 1 of the first year a feed needs on, with no end.

A zone's changes come from its TZif file (``dates.observances``): those it lists,
back to the one in effect on that January 1, then its current rule as yearly
``RRULE``s, so a client expanding an open-ended series finds the right offset in any
year. A VTIMEZONE generated from zoneinfo over a span of years (icalendar's
``Timezone.from_tzid``) lists dates and ends: a client keeps the last offset after it
(ical.js put a New York series an hour off from the end of the span on).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import typing as t

from ..dates import resolve_timezone
from ..dates.observances import Observance, YearlyRule, observances
from ..dates.tzif import LocalType, PosixRule, ZoneRules, zone_rules

if t.TYPE_CHECKING:  # pragma: no cover
    import icalendar

#: the widest whole-hour offsets ``Etc/GMT±N`` names (Etc/GMT-14 … Etc/GMT+12)
ETC_EAST, ETC_WEST = 14, 12
#: RFC 5545's weekday names, Monday first as Python counts
WEEKDAYS = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")


@dataclasses.dataclass(frozen=True)
class Zone:
    """How an event or site zone is written: its TZID, and the fixed offset of a
    WordPress ``UTC+5:30`` zone (which no IANA name covers; None otherwise)."""

    tzid: str
    fixed: dt.timedelta | None = None


@functools.lru_cache(maxsize=256)
def ical_zone(name: str) -> Zone:
    """§3.1: IANA names unchanged; WordPress whole-hour offsets as ``Etc/GMT∓N`` (the
    sign inverted) and ``UTC+0`` as ``UTC``; other offsets as ``UTC±HH:MM``."""
    zone = resolve_timezone(name)
    if not isinstance(zone, dt.timezone):
        return Zone(name)
    offset = zone.utcoffset(None)
    minutes = int(offset.total_seconds()) // 60
    hours, rest = divmod(abs(minutes), 60)
    if minutes == 0:
        return Zone("UTC")
    if not rest and (minutes > 0 and hours <= ETC_EAST or minutes < 0 and hours <= ETC_WEST):
        return Zone(f"Etc/GMT{'-' if minutes > 0 else '+'}{hours}")
    return Zone(f"UTC{'+' if minutes > 0 else '-'}{hours:02d}:{rest:02d}", offset)


@functools.lru_cache(maxsize=256)
def written_zone(tzid: str) -> Zone:
    """The zone a stored recurrence line's ``TZID`` names, under that very name (the
    lines are exported as stored)."""
    zone = resolve_timezone(tzid)
    return Zone(tzid, zone.utcoffset(None)) if isinstance(zone, dt.timezone) else Zone(tzid)


@functools.lru_cache(maxsize=128)
def vtimezone(zone: Zone, first_year: int) -> icalendar.Timezone:
    """The zone from January 1 of ``first_year`` on (cached per zone and first year;
    the component is only ever read once built)."""
    if zone.fixed is None:
        return timezone_component(zone.tzid, zone_rules(zone.tzid), first_year)
    fixed = LocalType(int(zone.fixed.total_seconds()), False, zone.tzid)
    return timezone_component(zone.tzid, ZoneRules(fixed, (), PosixRule(fixed)), first_year)


def timezone_component(tzid: str, rules: ZoneRules, first_year: int) -> icalendar.Timezone:
    """The VTIMEZONE ``tzid`` of ``rules`` from January 1 of ``first_year`` on."""
    import icalendar

    timezone = icalendar.Timezone()
    timezone.add("tzid", tzid)
    for observance in observances(rules, first_year):
        timezone.add_component(_observance(observance))
    return timezone


def _observance(observance: Observance) -> icalendar.Component:
    """A STANDARD or DAYLIGHT as TZif flags the offset it changes to (Europe/Dublin's
    winter GMT is its DST). Listed onsets are each an ``RDATE`` of their own, the
    ``DTSTART`` included: the same set (RFC 5545 §3.6.5), which ical.js
    (Thunderbird's parser) reads whole; it takes one value per ``RDATE`` and skips
    ``DTSTART`` beside them."""
    import icalendar

    to = observance.to
    component = icalendar.TimezoneDaylight() if to.is_dst else icalendar.TimezoneStandard()
    component.add("dtstart", observance.onsets[0])
    component.add("tzoffsetfrom", dt.timedelta(seconds=observance.offset_from))
    component.add("tzoffsetto", dt.timedelta(seconds=to.offset))
    if observance.rule is not None:
        component.add("rrule", _rrule(observance.rule))
    elif len(observance.onsets) > 1:
        for onset in observance.onsets:
            component.add("rdate", onset)
    component.add("tzname", to.name)
    return component


def _rrule(rule: YearlyRule) -> dict[str, t.Any]:
    """``FREQ=YEARLY;BYMONTH=3;BYDAY=2SU``, or the weekday among listed days."""
    parts: dict[str, t.Any] = {"FREQ": "YEARLY"}
    if rule.month is not None:
        parts["BYMONTH"] = rule.month
    if rule.weekday is not None:
        parts["BYDAY"] = f"{rule.ordinal or ''}{WEEKDAYS[rule.weekday]}"
    if rule.monthdays:
        parts["BYMONTHDAY"] = list(rule.monthdays)
    if rule.yeardays:
        parts["BYYEARDAY"] = list(rule.yeardays)
    return parts
