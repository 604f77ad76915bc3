"""An IANA zone's rules as its TZif file states them (RFC 8536): the explicit
transitions, and the POSIX TZ string of the footer (``EST5EDT,M3.2.0,M11.1.0``) that
governs every instant after the last of them.

zoneinfo reads the same file but shows neither the transitions nor the footer, and a
VTIMEZONE needs both: the footer is the zone's current rule, which iCalendar can state
as a yearly RRULE that never ends. The file is found where zoneinfo finds it
(``zoneinfo.TZPATH``, then the ``tzdata`` package), so the feeds and the API read the
same rules.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import functools
import importlib.resources
import itertools
import os
import re
import struct
import zoneinfo

DAY = 86_400
EPOCH = dt.datetime(1970, 1, 1)
#: ``Mm.w.d`` (month, week 1-5 with 5 the last, weekday 0 = Sunday), ``Jn`` (1-365,
#: February 29 never counted) or ``n`` (0-365), then an optional ``/time``
DAY_RULE_RE = re.compile(r"(?:M(\d{1,2})\.(\d)\.(\d)|J(\d{1,3})|(\d{1,3}))(?:/([+-]?[\d:]+))?")
NAME = r"<[A-Za-z0-9+-]+>|[A-Za-z]{3,}"
OFFSET = r"[+-]?\d{1,3}(?::\d{1,2}){0,2}"
TZ_RE = re.compile(
    rf"(?P<std>{NAME})(?P<std_offset>{OFFSET})"
    rf"(?:(?P<dst>{NAME})(?P<dst_offset>{OFFSET})?,(?P<start>[^,]+),(?P<end>[^,]+))?"
)


@dataclasses.dataclass(frozen=True)
class LocalType:
    """A local time type: its offset east of UTC, whether it is DST, its abbreviation."""

    offset: int
    is_dst: bool
    name: str


@dataclasses.dataclass(frozen=True)
class Transition:
    """A change of local time type at ``at`` (Unix seconds)."""

    at: int
    before: LocalType
    after: LocalType

    def wall(self) -> dt.datetime | None:
        """The local wall clock of the change, in the offset before it (as iCalendar
        writes an onset); None outside the years a datetime holds."""
        return wall_clock(self.at, self.before.offset)


@dataclasses.dataclass(frozen=True)
class DayRule:
    """When a POSIX rule changes the offset in a year: ``kind`` is ``M``, ``J`` or
    ``n``; ``time`` is seconds after that day's local midnight, in the offset before
    the change (RFC 8536 allows -167 to 167 hours: another day)."""

    kind: str
    month: int = 0
    week: int = 0
    weekday: int = 0
    day: int = 0
    time: int = 2 * 3600

    def date(self, year: int) -> dt.date:
        """The day the rule names in ``year``, before its time is added."""
        if self.kind == "J":
            leap_day = self.day >= 60 and is_leap(year)
            return dt.date(year, 1, 1) + dt.timedelta(days=self.day - 1 + leap_day)
        if self.kind == "n":
            return dt.date(year, 1, 1) + dt.timedelta(days=self.day)
        first = dt.date(year, self.month, 1)
        day = first + dt.timedelta(days=(self.weekday - sunday_based(first)) % 7)
        day += dt.timedelta(weeks=self.week - 1)
        while day.month != self.month:  # week 5: the last such weekday
            day -= dt.timedelta(weeks=1)
        return day

    def wall(self, year: int) -> dt.datetime:
        """The local wall clock of the change in ``year``."""
        return dt.datetime.combine(self.date(year), dt.time()) + dt.timedelta(seconds=self.time)


@dataclasses.dataclass(frozen=True)
class PosixRule:
    """A footer: ``std`` all year, or ``dst`` from ``start`` (std wall clock) to
    ``end`` (dst wall clock) each year."""

    std: LocalType
    dst: LocalType | None = None
    start: DayRule | None = None
    end: DayRule | None = None

    def transitions(self, year: int) -> list[Transition]:
        """The year's two changes, in time order (none without DST)."""
        if self.dst is None or self.start is None or self.end is None:
            return []
        begin = unix(self.start.wall(year)) - self.std.offset
        finish = unix(self.end.wall(year)) - self.dst.offset
        changes = [Transition(begin, self.std, self.dst), Transition(finish, self.dst, self.std)]
        return sorted(changes, key=lambda change: change.at)

    def permanent(self) -> LocalType | None:
        """The one type in effect all year: ``std`` without DST, and the type of a
        rule whose other period lasts no time (``EST5EDT4,0/0,J365/25``); else None."""
        if self.dst is None:
            return self.std
        changes = self.transitions(2001) + self.transitions(2002)
        for earlier, later in itertools.pairwise(changes):
            if earlier.at == later.at:
                return earlier.before
        return None


@dataclasses.dataclass(frozen=True)
class ZoneRules:
    """What a TZif file says: the type before any transition, the transitions, and
    the footer (None when the file has none or it cannot be read)."""

    initial: LocalType
    transitions: tuple[Transition, ...]
    footer: PosixRule | None


def is_leap(year: int) -> bool:
    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)


def sunday_based(day: dt.date) -> int:
    """POSIX's weekday number: 0 is Sunday."""
    return (day.weekday() + 1) % 7


def unix(wall: dt.datetime) -> int:
    return (wall - EPOCH) // dt.timedelta(seconds=1)


def wall_clock(at: int, offset: int) -> dt.datetime | None:
    """``at`` (Unix seconds) on a clock ``offset`` seconds east of UTC."""
    try:
        return EPOCH + dt.timedelta(seconds=at + offset)
    except OverflowError:
        return None


@functools.lru_cache(maxsize=256)
def zone_rules(key: str) -> ZoneRules:
    """The rules of the IANA zone ``key`` (a name zoneinfo accepts).

    :raises ValueError: when no TZif file of that name is found or it is malformed.
    """
    return parse_tzif(_tzif_bytes(key))


def _tzif_bytes(key: str) -> bytes:
    """The file zoneinfo would load for ``key``: the first of ``zoneinfo.TZPATH`` that
    holds it, else the ``tzdata`` package's."""
    parts = key.split("/")
    if key.startswith("/") or any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"not a zone key: {key!r}")
    for directory in zoneinfo.TZPATH:
        path = os.path.join(directory, *parts)
        if os.path.isfile(path):
            with open(path, "rb") as file:
                return file.read()
    try:
        package = ".".join(["tzdata", "zoneinfo", *parts[:-1]])
        return importlib.resources.files(package).joinpath(parts[-1]).read_bytes()
    except (ImportError, OSError) as exc:
        raise ValueError(f"no TZif file for {key!r}") from exc


def parse_tzif(data: bytes) -> ZoneRules:
    """Read a TZif file: its 64-bit data block and footer (version 2 and later), or
    the 32-bit block of a version 1 file. :raises ValueError: when malformed."""
    try:
        header = _counts(data, 0)
        if data[4:5] == b"\x00":
            return _data_block(data, 44, header, 4, b"")
        start = 44 + header[3] * 5 + header[4] * 6 + header[5] + header[2] * 8 + sum(header[:2])
        counts = _counts(data, start)
        end = start + 44 + counts[3] * 9 + counts[4] * 6 + counts[5] + counts[2] * 12
        end += sum(counts[:2])
        return _data_block(data, start + 44, counts, 8, data[end:].strip(b"\n"))
    except (struct.error, IndexError, UnicodeDecodeError) as exc:
        raise ValueError("malformed TZif data") from exc


def _counts(data: bytes, at: int) -> tuple[int, ...]:
    """isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt of the header at ``at``."""
    if data[at : at + 4] != b"TZif":
        raise ValueError("not a TZif file")
    return struct.unpack(">6l", data[at + 20 : at + 44])


def _data_block(
    data: bytes, at: int, counts: tuple[int, ...], width: int, footer: bytes
) -> ZoneRules:
    _, _, _, timecnt, typecnt, charcnt = counts
    times = struct.unpack(
        f">{timecnt}{'q' if width == 8 else 'l'}", data[at : at + timecnt * width]
    )
    at += timecnt * width
    indices = data[at : at + timecnt]
    at += timecnt
    raw_types = [struct.unpack(">lBB", data[at + 6 * n : at + 6 * n + 6]) for n in range(typecnt)]
    chars = data[at + 6 * typecnt : at + 6 * typecnt + charcnt]
    types = [
        LocalType(offset, bool(dst), chars[index : chars.index(b"\x00", index)].decode())
        for offset, dst, index in raw_types
    ]
    transitions = []
    before = types[0]
    for moment, index in zip(times, indices, strict=True):
        if types[index] != before:  # fat files add no-op ones, at 2**31 - 1 for instance
            transitions.append(Transition(moment, before, types[index]))
        before = types[index]
    try:
        rule = parse_posix(footer.decode("ascii")) if footer else None
    except ValueError:
        rule = None
    return ZoneRules(types[0], tuple(transitions), rule)


def parse_posix(text: str) -> PosixRule:
    """A POSIX TZ string as TZif footers write it. :raises ValueError:."""
    match = TZ_RE.fullmatch(text)
    if match is None:
        raise ValueError(f"unsupported TZ string: {text!r}")
    std = LocalType(-_seconds(match["std_offset"]), False, match["std"].strip("<>"))
    if match["dst"] is None:
        return PosixRule(std)
    dst_offset = -_seconds(match["dst_offset"]) if match["dst_offset"] else std.offset + 3600
    dst = LocalType(dst_offset, True, match["dst"].strip("<>"))
    return PosixRule(std, dst, _day_rule(match["start"]), _day_rule(match["end"]))


def _day_rule(text: str) -> DayRule:
    match = DAY_RULE_RE.fullmatch(text)
    if match is None:
        raise ValueError(f"unsupported TZ rule: {text!r}")
    month, week, weekday, julian, zero_based, time = match.groups()
    seconds = _seconds(time) if time else 2 * 3600
    if julian is not None:
        if not 1 <= int(julian) <= 365:
            raise ValueError(f"day out of range: {text!r}")
        return DayRule("J", day=int(julian), time=seconds)
    if zero_based is not None:
        if not 0 <= int(zero_based) <= 365:
            raise ValueError(f"day out of range: {text!r}")
        return DayRule("n", day=int(zero_based), time=seconds)
    if not (1 <= int(month) <= 12 and 1 <= int(week) <= 5 and 0 <= int(weekday) <= 6):
        raise ValueError(f"day out of range: {text!r}")
    return DayRule("M", int(month), int(week), int(weekday), time=seconds)


def _seconds(text: str) -> int:
    """``[+-]hh[:mm[:ss]]`` as seconds."""
    sign = -1 if text.startswith("-") else 1
    numbers = [int(part) for part in text.lstrip("+-").split(":")]
    hours, minutes, seconds = (numbers + [0, 0])[:3]
    return sign * (hours * 3600 + minutes * 60 + seconds)
