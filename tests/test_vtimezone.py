"""The feeds' VTIMEZONEs (``wire/vtimezone.py``, from ``dates/observances.py`` and
``dates/tzif.py``): their shape, and what icalendar reads in them (its own VTIMEZONE
reading, dateutil expanding the yearly rules) compared with Python's zoneinfo, zone by
zone and for made-up POSIX rules. ``test_feeds_clients.py`` has ical.js read them.
"""

from __future__ import annotations

import datetime as dt
import io
import struct
import zoneinfo

import icalendar
import pytest
from zone_probes import every_zone, expected_unix, probe_walls

from calendar_rest.dates.tzif import DayRule, parse_posix, parse_tzif, zone_rules
from calendar_rest.wire.vtimezone import Zone, timezone_component, vtimezone

#: zones with odd histories or rules: southern, :45 and :30 offsets and changes, DST in
#: winter, Ramadan tables, changes at 24:00 or on Fridays and Saturdays, DST dropped
#: (Tehran 2022, Mexico City 2022, São Paulo 2019, Apia 2021, Whitehorse 2020), a year
#: without DST under a rule that has it (Riga 2000, Port-au-Prince 2016), +14, Troll's
#: two-hour DST
ZONES = [
    "America/New_York",
    "Australia/Sydney",
    "Europe/Paris",
    "America/Santiago",
    "Pacific/Chatham",
    "Australia/Lord_Howe",
    "Europe/Dublin",
    "Africa/Casablanca",
    "Africa/Cairo",
    "Asia/Gaza",
    "America/Nuuk",
    "Asia/Jerusalem",
    "Asia/Tehran",
    "Asia/Kathmandu",
    "America/Mexico_City",
    "America/Sao_Paulo",
    "Pacific/Apia",
    "America/Whitehorse",
    "Europe/Riga",
    "America/Port-au-Prince",
    "Antarctica/Macquarie",
    "Pacific/Kiritimati",
    "Antarctica/Troll",
    "Etc/GMT-2",
    "UTC",
]


def lines(component: icalendar.Timezone) -> list[str]:
    return component.to_ical().decode().replace("\r\n ", "").split("\r\n")[:-1]


def observances(component: icalendar.Timezone) -> list[list[str]]:
    """Each STANDARD/DAYLIGHT's lines, in order."""
    found: list[list[str]] = []
    for line in lines(component):
        if line in ("BEGIN:STANDARD", "BEGIN:DAYLIGHT"):
            found.append([line])
        elif found and not found[-1][-1].startswith("END:"):
            found[-1].append(line)
    return found


def read_back(component: icalendar.Timezone, zone: dt.tzinfo, first: int, last: int) -> None:
    """icalendar's reading of ``component`` gives zoneinfo's instant for every probe
    wall clock of ``first`` to ``last``."""
    tzinfo = icalendar.Timezone.from_ical(component.to_ical()).to_tz(lookup_tzid=False)
    walls = [wall for wall in probe_walls(zone, first, last) if wall.year >= first]
    assert walls
    read = {wall: int(wall.replace(tzinfo=tzinfo).timestamp()) for wall in walls}
    assert read == dict(zip(walls, expected_unix(zone, walls), strict=True))


# -- shapes -------------------------------------------------------------------------------


def test_new_york_is_its_current_rule_from_its_first_change() -> None:
    assert lines(vtimezone(Zone("America/New_York"), 2027)) == [
        "BEGIN:VTIMEZONE",
        "TZID:America/New_York",
        "BEGIN:DAYLIGHT",
        "DTSTART:20070311T020000",
        "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3",
        "TZNAME:EDT",
        "TZOFFSETFROM:-0500",
        "TZOFFSETTO:-0400",
        "END:DAYLIGHT",
        "BEGIN:STANDARD",
        "DTSTART:20071104T020000",
        "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11",
        "TZNAME:EST",
        "TZOFFSETFROM:-0400",
        "TZOFFSETTO:-0500",
        "END:STANDARD",
        "END:VTIMEZONE",
    ]


def test_earlier_years_are_listed_back_to_the_change_in_effect_on_january_first() -> None:
    found = observances(vtimezone(Zone("America/New_York"), 2005))
    assert found[0][:5] == [
        "BEGIN:STANDARD",
        "DTSTART:20041031T020000",
        "RDATE:20041031T020000",  # DTSTART again: ical.js skips it beside RDATEs
        "RDATE:20051030T020000",
        "RDATE:20061029T020000",
    ]
    assert found[1][:4] == [
        "BEGIN:DAYLIGHT",
        "DTSTART:20050403T020000",
        "RDATE:20050403T020000",
        "RDATE:20060402T020000",
    ]
    assert [item[1] for item in found[2:]] == ["DTSTART:20070311T020000", "DTSTART:20071104T020000"]
    assert not any(line.startswith("COMMENT") for line in lines(vtimezone(Zone("UTC"), 2005)))


@pytest.mark.parametrize(
    ("zone", "first_year", "expected"),
    [
        (Zone("UTC"), 2027, ["DTSTART:20270101T000000", "TZNAME:UTC", "TZOFFSETFROM:+0000"]),
        (Zone("Etc/GMT-2"), 2027, ["DTSTART:20270101T000000", "TZNAME:+02", "TZOFFSETFROM:+0200"]),
        (
            Zone("UTC+05:30", dt.timedelta(hours=5, minutes=30)),
            2027,
            ["DTSTART:20270101T000000", "TZNAME:UTC+05:30", "TZOFFSETFROM:+0530"],
        ),
        (
            Zone("Asia/Tehran"),
            2027,
            ["DTSTART:20220922T000000", "TZNAME:+0330", "TZOFFSETFROM:+0430"],
        ),
    ],
)
def test_a_zone_without_dst_is_one_standard_that_lasts(
    zone: Zone, first_year: int, expected: list[str]
) -> None:
    [standard] = observances(vtimezone(zone, first_year))
    offset = zone.fixed or zoneinfo.ZoneInfo(zone.tzid).utcoffset(dt.datetime(first_year, 6, 1))
    assert standard[0] == "BEGIN:STANDARD" and standard[1:4] == expected
    assert standard[4] == "TZOFFSETTO:" + icalendar.vUTCOffset(offset).to_ical()


@pytest.mark.parametrize(
    ("name", "rules"),
    [
        # the Sunday after the first Saturday, at 24:00 (00:00)
        (
            "America/Santiago",
            [
                "RRULE:FREQ=YEARLY;BYDAY=SU;BYMONTHDAY=2,3,4,5,6,7,8;BYMONTH=4",
                "RRULE:FREQ=YEARLY;BYDAY=SU;BYMONTHDAY=2,3,4,5,6,7,8;BYMONTH=9",
            ],
        ),
        # the Friday after the last Thursday of October: Nov 1 when Oct 31 is a Thursday
        (
            "Africa/Cairo",
            [
                "RRULE:FREQ=YEARLY;BYDAY=-1FR;BYMONTH=4",
                "RRULE:FREQ=YEARLY;BYDAY=FR;BYMONTHDAY=26,27,28,29,30,31;BYMONTH=10",
                "RRULE:FREQ=YEARLY;BYDAY=FR;BYMONTHDAY=1;BYMONTH=11",
            ],
        ),
        # the Saturday before the last Sunday, at 23:00
        (
            "America/Nuuk",
            [
                "RRULE:FREQ=YEARLY;BYDAY=SA;BYMONTHDAY=24,25,26,27,28,29,30;BYMONTH=3",
                "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
            ],
        ),
        # the Friday after the fourth Thursday, at 02:00
        (
            "Asia/Jerusalem",
            [
                "RRULE:FREQ=YEARLY;BYDAY=FR;BYMONTHDAY=23,24,25,26,27,28,29;BYMONTH=3",
                "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10",
            ],
        ),
        # the last Sunday of September at 02:45, the first of April at 03:45
        (
            "Pacific/Chatham",
            ["RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=4", "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=9"],
        ),
    ],
)
def test_rules_whose_time_falls_on_another_day(name: str, rules: list[str]) -> None:
    found = lines(vtimezone(Zone(name), 2027))
    assert sorted(line for line in found if line.startswith("RRULE")) == sorted(rules)
    assert not any(line.startswith("RDATE") for line in found)


def test_dublin_keeps_tzdatas_negative_dst() -> None:
    """Irish Standard Time is summer's; winter's GMT is flagged as DST in tzdata."""
    [standard, daylight] = observances(vtimezone(Zone("Europe/Dublin"), 2027))
    assert standard[1:3] == ["DTSTART:19960331T010000", "RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3"]
    assert standard[3:6] == ["TZNAME:IST", "TZOFFSETFROM:+0000", "TZOFFSETTO:+0100"]
    assert daylight[3:6] == ["TZNAME:GMT", "TZOFFSETFROM:+0100", "TZOFFSETTO:+0000"]


def test_casablanca_lists_its_ramadan_changes_then_keeps_plus_one() -> None:
    found = lines(vtimezone(Zone("Africa/Casablanca"), 2027))
    assert not any(line.startswith("RRULE") for line in found)
    dates = sorted(line[6:14] for line in found if line.startswith("RDATE"))
    assert dates[0] == "20260322" and dates[-1] == "20870511"  # from the change in effect
    assert len(dates) > 100


def test_cached_per_zone_and_first_year_and_byte_stable() -> None:
    paris = vtimezone(Zone("Europe/Paris"), 2027)
    assert vtimezone(Zone("Europe/Paris"), 2027) is paris
    text = paris.to_ical()
    vtimezone.cache_clear()
    zone_rules.cache_clear()
    assert vtimezone(Zone("Europe/Paris"), 2027).to_ical() == text
    assert vtimezone(Zone("Europe/Paris"), 2030).to_ical() == text  # the rule since 1996
    assert vtimezone(Zone("Europe/Paris"), 1990).to_ical() != text


def test_the_tzif_file_is_found_where_zoneinfo_finds_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """The tzdata package's file (slim: transitions until the rule takes over) says
    what the system's (fat: listed until 2037) says."""
    system = lines(vtimezone(Zone("Europe/Paris"), 2027))
    zone_rules.cache_clear()
    monkeypatch.setattr(zoneinfo, "TZPATH", ())
    try:
        assert lines(timezone_component("Europe/Paris", zone_rules("Europe/Paris"), 2027)) == system
        with pytest.raises(ValueError):
            zone_rules("../etc/passwd")
    finally:
        zone_rules.cache_clear()


# -- what icalendar reads, compared with zoneinfo -------------------------------------------


@pytest.mark.parametrize("name", ZONES)
def test_icalendar_reads_each_zone_as_zoneinfo_from_1990(name: str) -> None:
    read_back(vtimezone(Zone(name), 1990), zoneinfo.ZoneInfo(name), 1990, 2037)


@pytest.mark.slow
def test_icalendar_reads_every_zone_as_zoneinfo_from_1970() -> None:
    """All of them (icalendar expands the yearly rules up to 2038)."""
    for name in every_zone():
        read_back(vtimezone(Zone(name), 1970), zoneinfo.ZoneInfo(name), 1970, 2037)


def tzif_of(footer: str) -> bytes:
    """A TZif file with no transitions: its footer governs all time (RFC 8536 §3.3)."""
    chars = b"LMT\x00"
    header = b"TZif2" + bytes(15) + struct.pack(">6l", 0, 0, 0, 0, 1, len(chars))
    block = struct.pack(">lBB", 0, 0, 0) + chars
    return header + block + header + block + b"\n" + footer.encode() + b"\n"


@pytest.mark.parametrize(
    "footer",
    [
        "EST5EDT,M3.2.0,M11.1.0",
        "XXX-2YYY,M2.4.0/26,M10.5.0/-25",  # into March (a day of the year), back a day
        "XXX3YYY,M3.1.0/-25,M10.5.4/24",  # back into February, on into November
        "XXX3YYY2,M2.5.0/167,M8.1.1/-167",  # RFC 8536's widest times
        "<+0545>-5:45<+0645>,J60/2,J300/3",  # days of a year without February 29
        "EST5EDT4,0/0,J365/25",  # DST all year
        "<+1245>-12:45<+1345>,M9.5.0/2:45,M4.1.0/3:45",
    ],
)
def test_icalendar_reads_posix_rules_as_zoneinfo(footer: str) -> None:
    data = tzif_of(footer)
    zone = zoneinfo.ZoneInfo.from_file(io.BytesIO(data), key="made-up")
    read_back(timezone_component("made-up", parse_tzif(data), 2000), zone, 2000, 2037)


def test_posix_days() -> None:
    """POSIX's ``Jn`` never counts February 29, ``n`` counts from 0 and does (CPython's
    zoneinfo reads J59 and the ``n`` form a day off in leap years; tzdata uses neither)."""
    assert DayRule("J", day=59).date(2024) == dt.date(2024, 2, 28)
    assert DayRule("J", day=60).date(2024) == dt.date(2024, 3, 1)
    assert DayRule("n", day=0).date(2023) == dt.date(2023, 1, 1)
    assert DayRule("n", day=59).date(2024) == dt.date(2024, 2, 29)
    assert DayRule("M", 10, 5, 0).date(2027) == dt.date(2027, 10, 31)
    rule = parse_posix("<-04>4<-03>,M9.1.6/24,M4.1.6/24")
    assert (rule.std.offset, rule.std.name, rule.dst and rule.dst.offset) == (-14400, "-04", -10800)
    assert rule.start == DayRule("M", 9, 1, 6, time=86400)
    assert parse_posix("IST-1GMT0,M10.5.0,M3.5.0/1").dst.offset == 0  # type: ignore[union-attr]
    assert parse_posix("<+0330>-3:30").permanent().offset == 12600  # type: ignore[union-attr]
    assert parse_posix("EST5EDT4,0/0,J365/25").permanent().name == "EDT"  # type: ignore[union-attr]
    for bad in ("EST5EDT", "EST", "X5Y,M13.1.0,M1.1.0", "EST5EDT,J0,J365"):
        with pytest.raises(ValueError):
            parse_posix(bad)
