"""A zone's offsets from a first year on, with no end, as iCalendar's VTIMEZONE says
them (RFC 5545 §3.6.5): the changes a zone's TZif file lists, back to the one in
effect on January 1 of that year, then its current rule (the file's POSIX footer) as
yearly rules, as published VTIMEZONEs write ``America/New_York``: ``DTSTART`` at the
first change the rule makes, then ``RRULE:FREQ=YEARLY;BYMONTH=3;BYDAY=2SU`` and
``BYMONTH=11;BYDAY=1SU``. The rule takes over from the last change it makes itself
without skipping one of its own (a fat TZif file lists them until 2037).

A zone whose rule has no DST (UTC, ``Etc/GMT-2``, a zone that dropped DST) ends with
the change into its last offset, which then lasts; one with no change at all starts
on January 1 of the first year. A rule whose time moves a change into another year
(none in tzdata) is read as its changes, one a year each. Pure date logic: the wire
turns these into components.
"""

from __future__ import annotations

import bisect
import dataclasses
import datetime as dt
import typing as t

from .tzif import DAY, DayRule, LocalType, PosixRule, Transition, ZoneRules, unix, wall_clock

#: a common year, a leap year and the year after it: a day named from a month's
#: start or end that is written the same way in all three is written so in any year
SAMPLE_YEARS = (2023, 2024, 2025)
#: the longest a yearly rule may take to first fall on its weekday (a Gregorian cycle)
CYCLE_YEARS = 400


@dataclasses.dataclass(frozen=True)
class YearlyRule:
    """The days of a year a change falls on, as RRULE parts: in ``month``, the
    ``ordinal``-th ``weekday`` (-1: the last), or the ``weekday`` among
    ``monthdays`` (negative: from the month's end); without ``month``, among
    ``yeardays``. ``weekday`` is Python's (0 is Monday), None for a fixed date."""

    weekday: int | None
    month: int | None = None
    ordinal: int | None = None
    monthdays: tuple[int, ...] = ()
    yeardays: tuple[int, ...] = ()

    def holds(self, day: dt.date) -> bool:
        """Whether the rule falls on ``day``."""
        if self.weekday is not None and day.weekday() != self.weekday:
            return False
        if self.month is None:
            return any(day == _yearday(day.year, number) for number in self.yeardays)
        if day.month != self.month:
            return False
        if self.ordinal is not None:
            return _nth(day, self.ordinal)
        return any(day == _monthday(day.year, day.month, number) for number in self.monthdays)


@dataclasses.dataclass(frozen=True)
class Observance:
    """One STANDARD (``to.is_dst`` false) or DAYLIGHT: changes from ``offset_from``
    into ``to`` at each local wall clock of ``onsets`` (in ``offset_from``), or, with
    a ``rule``, at ``onsets[0]`` and then every year on the rule's day and time."""

    to: LocalType
    offset_from: int
    onsets: tuple[dt.datetime, ...]
    rule: YearlyRule | None = None


def observances(rules: ZoneRules, first_year: int) -> list[Observance]:
    """What covers every local time from January 1 of ``first_year`` on, the
    earliest onset first."""
    transitions, era = rules.transitions, _rule_era(rules)
    first = dt.datetime(first_year, 1, 1)
    footer = rules.footer
    if not transitions and footer is not None:  # the footer says all (RFC 8536 §3.3)
        permanent = footer.permanent()
        if permanent is not None:
            return [Observance(permanent, permanent.offset, (first,))]
        return sorted(
            _rule_observances(footer, unix(first.replace(year=first_year - 1))),
            key=lambda observance: observance.onsets[0],
        )
    walls = [change.wall() or dt.datetime.min for change in transitions]
    current = bisect.bisect_right(walls, first) - 1  # the change in effect at ``first``
    explicit: list[Transition | LocalType] = []
    if current < 0:
        explicit = [rules.initial, *transitions[:era]]
    elif current < era and walls[current] == dt.datetime.min:  # out of a datetime's range
        explicit = [transitions[current].after, *transitions[current + 1 : era]]
    elif current < era:
        explicit = list(transitions[current:era])
    result = _grouped(explicit, first)
    if footer is not None and footer.permanent() is None:
        after = transitions[era].at if era < len(transitions) else transitions[-1].at + 1
        result.extend(_rule_observances(footer, after))
    return sorted(result, key=lambda observance: observance.onsets[0])


def _rule_era(rules: ZoneRules) -> int:
    """The index of the first of the last transitions that the footer's rule makes
    itself (the list's length when it makes none of them)."""
    footer, transitions = rules.footer, rules.transitions
    if footer is None or footer.permanent() is not None:
        return len(transitions)
    made: dict[int, list[Transition]] = {}
    era = len(transitions)
    while era > 0:
        change = transitions[era - 1]
        wall = change.wall()
        if wall is None or wall.year < 2:
            break
        candidates: list[Transition] = []
        for year in range(wall.year - 1, wall.year + 2):
            candidates += made.setdefault(year, footer.transitions(year))
        if change not in candidates:
            break
        following = [other.at for other in candidates if other.at > change.at]
        if era < len(transitions) and min(following) != transitions[era].at:
            break  # the rule changes in between, the zone did not (Riga kept +02 in 2000)
        era -= 1
    return era


def _grouped(explicit: t.Sequence[Transition | LocalType], first: dt.datetime) -> list[Observance]:
    """One observance per kind of change (same offsets and name), with all its onsets;
    a bare type is in effect from ``first`` (nothing earlier is known or needed)."""
    groups: dict[tuple[LocalType, int], list[dt.datetime]] = {}
    for change in explicit:
        if isinstance(change, LocalType):
            groups.setdefault((change, change.offset), []).append(first)
            continue
        wall = change.wall()
        if wall is not None:
            groups.setdefault((change.after, change.before.offset), []).append(wall)
    return [Observance(to, offset, tuple(onsets)) for (to, offset), onsets in groups.items()]


def _rule_observances(footer: PosixRule, after: int) -> list[Observance]:
    """The rule's changes into DST and back, each as yearly rules starting with their
    first change at or after ``after`` (Unix seconds)."""
    assert footer.dst is not None and footer.start is not None and footer.end is not None
    result = []
    for day_rule, before, to in (
        (footer.start, footer.std, footer.dst),
        (footer.end, footer.dst, footer.std),
    ):
        for rule in yearly_rules(day_rule):
            onset = _first_onset(day_rule, rule, before.offset, after)
            if onset is not None:
                result.append(Observance(to, before.offset, (onset,), rule))
    return result


def _first_onset(
    day_rule: DayRule, rule: YearlyRule, offset: int, after: int
) -> dt.datetime | None:
    """The first wall clock of ``day_rule`` at or after ``after`` that ``rule`` holds."""
    start = wall_clock(after, offset)
    year = start.year - 1 if start is not None else 1
    for candidate in range(max(year, 1), year + CYCLE_YEARS):
        wall = day_rule.wall(candidate)
        if unix(wall) - offset >= after and rule.holds(wall.date()):
            return wall
    return None


def yearly_rules(day_rule: DayRule) -> list[YearlyRule]:
    """``day_rule`` as yearly rules: ``BYMONTH=3;BYDAY=2SU`` when the change falls on
    the day the rule names; when its time moves it to another day (``M9.1.6/24``: the
    Sunday after the first Saturday), the weekday among the seven days it can fall
    on, split by month when they straddle two (each day written from its month's
    start or end, or from the year's, whichever is the same in every year)."""
    shift = day_rule.time // DAY
    if day_rule.kind == "M":
        weekday = (day_rule.weekday + 6 + shift) % 7
        if shift == 0:
            ordinal = day_rule.week if day_rule.week < 5 else -1
            return [YearlyRule(weekday, day_rule.month, ordinal)]
        spread = range(7)
    else:
        weekday, spread = None, range(1)
    parts: dict[int | None, list[int]] = {}
    for offset in spread:
        month, number = _written(day_rule, shift + offset)
        parts.setdefault(month, []).append(number)
    return [
        YearlyRule(
            weekday,
            month,
            monthdays=tuple(days) if month else (),
            yeardays=() if month else tuple(days),
        )
        for month, days in sorted(parts.items(), key=lambda item: item[0] or 0)
    ]


def _candidate(day_rule: DayRule, year: int, days: int) -> dt.date:
    """The day ``days`` after the first the rule can name in ``year`` (for ``M``
    rules: the first day of its week, or the seventh-last of a month for the last)."""
    if day_rule.kind != "M":
        return day_rule.date(year) + dt.timedelta(days=days)
    if day_rule.week < 5:
        start = dt.date(year, day_rule.month, 1) + dt.timedelta(weeks=day_rule.week - 1)
    else:
        start = dt.date(year, day_rule.month, _month_length(year, day_rule.month) - 6)
    return start + dt.timedelta(days=days)


def _written(day_rule: DayRule, days_after: int) -> tuple[int | None, int]:
    """(month, day of month) or (None, day of year), positive or negative, that names
    the candidate ``days_after`` the same way in every sample year."""
    days = [_candidate(day_rule, year, days_after) for year in SAMPLE_YEARS]
    ways: list[t.Callable[[dt.date], tuple[int | None, int]]] = [
        lambda day: (day.month, day.day),
        lambda day: (day.month, day.day - _month_length(day.year, day.month) - 1),
        lambda day: (None, day.timetuple().tm_yday),
        lambda day: (None, day.timetuple().tm_yday - _year_length(day.year) - 1),
    ]
    for way in ways:
        written = {way(day) for day in days}
        if len(written) == 1:
            return written.pop()
    raise ValueError(f"no yearly rule names {days}")  # pragma: no cover - see the sample years


def _month_length(year: int, month: int) -> int:
    following = dt.date(year + month // 12, month % 12 + 1, 1)
    return (following - dt.date(year, month, 1)).days


def _year_length(year: int) -> int:
    return (dt.date(year + 1, 1, 1) - dt.date(year, 1, 1)).days


def _monthday(year: int, month: int, number: int) -> dt.date | None:
    length = _month_length(year, month)
    day = number if number > 0 else length + 1 + number
    return dt.date(year, month, day) if 1 <= day <= length else None


def _yearday(year: int, number: int) -> dt.date | None:
    length = _year_length(year)
    day = number if number > 0 else length + 1 + number
    return dt.date(year, 1, 1) + dt.timedelta(days=day - 1) if 1 <= day <= length else None


def _nth(day: dt.date, ordinal: int) -> bool:
    """Whether ``day`` is the ``ordinal``-th of its weekday in its month (-1: last)."""
    if ordinal > 0:
        return (day.day - 1) // 7 + 1 == ordinal
    return (day + dt.timedelta(weeks=1)).month != day.month
