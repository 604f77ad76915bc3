"""Tests for calendar_rest.dates: strtotime-compatible parsing, timezones and formatting."""

from __future__ import annotations

import subprocess
import sys
from datetime import date, datetime, timedelta, timezone, tzinfo
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # the package may not be installed; import it from the checkout
    sys.path.insert(0, str(ROOT))

from calendar_rest import dates  # noqa: E402
from calendar_rest.dates import DateParseError  # noqa: E402

UTC = ZoneInfo("UTC")
NY = ZoneInfo("America/New_York")
PARIS = ZoneInfo("Europe/Paris")
# A Wednesday afternoon with seconds set, so "time kept" vs "time reset" is visible.
NOW = datetime(2026, 6, 10, 14, 30, 45)
MONDAY = datetime(2026, 6, 8, 8, 15, 0)


# --------------------------------------------------------------------------- timezones


def test_date_parse_error_is_value_error() -> None:
    assert issubclass(DateParseError, ValueError)


@pytest.mark.parametrize(
    ("name", "offset"),
    [
        ("UTC", timedelta(0)),
        ("UTC+0", timedelta(0)),
        ("UTC+2", timedelta(hours=2)),
        ("UTC-5", timedelta(hours=-5)),
        ("UTC+5.5", timedelta(hours=5, minutes=30)),
        ("UTC-3.75", timedelta(hours=-3, minutes=-45)),
        ("UTC+05:30", timedelta(hours=5, minutes=30)),
        ("UTC+14", timedelta(hours=14)),
        ("America/New_York", timedelta(hours=-5)),
        ("Europe/Paris", timedelta(hours=1)),
    ],
)
def test_resolve_timezone(name: str, offset: timedelta) -> None:
    tz = dates.resolve_timezone(name)
    assert isinstance(tz, tzinfo)
    assert tz.utcoffset(datetime(2026, 1, 15, 12)) == offset


def test_resolve_timezone_types() -> None:
    assert dates.resolve_timezone("Europe/Paris") == PARIS
    assert isinstance(dates.resolve_timezone("UTC+2"), timezone)
    assert dates.resolve_timezone("UTC+2").tzname(None) == "UTC+2"


def test_resolve_timezone_is_cached() -> None:
    assert dates.resolve_timezone("UTC+5.5") is dates.resolve_timezone("UTC+5.5")
    assert dates.resolve_timezone.cache_info().hits >= 1


@pytest.mark.parametrize(
    "name",
    [
        "",
        " ",
        "utc+2",
        "UTC+",
        "UTC+24",
        "UTC+5:60",
        "GMT+2",
        "+02:00",
        "Foo/Bar",
        "America",
        "../etc/passwd",
        "/etc/localtime",
        "localtime",
        "UTC +2",
    ],
)
def test_resolve_timezone_invalid(name: str) -> None:
    with pytest.raises(DateParseError):
        dates.resolve_timezone(name)
    assert dates.is_valid_timezone(name) is False


@pytest.mark.parametrize("name", ["UTC", "UTC-3.75", "America/New_York", "Asia/Kolkata"])
def test_is_valid_timezone(name: str) -> None:
    assert dates.is_valid_timezone(name) is True


@pytest.mark.parametrize(
    ("name", "when", "abbr"),
    [
        ("America/New_York", datetime(2027, 1, 1, 20), "EST"),
        ("America/New_York", datetime(2026, 7, 1), "EDT"),
        ("Europe/Paris", datetime(2026, 1, 1), "CET"),
        ("Europe/Paris", datetime(2026, 7, 1), "CEST"),
        ("UTC", datetime(2026, 7, 1), "UTC"),
        ("UTC+2", datetime(2026, 7, 1), "UTC+2"),
        ("UTC+0", datetime(2026, 7, 1), "UTC+0"),
        ("UTC-3.75", datetime(2026, 7, 1), "UTC-3.75"),
        ("Europe/Istanbul", datetime(2026, 7, 1), "+03"),
        # aware input is converted into the zone first: 03:00 UTC is 23:00 EDT
        ("America/New_York", datetime(2026, 3, 8, 7, tzinfo=UTC), "EDT"),
    ],
)
def test_timezone_abbr(name: str, when: datetime, abbr: str) -> None:
    assert dates.timezone_abbr(name, when) == abbr


def test_timezone_abbr_invalid() -> None:
    with pytest.raises(DateParseError):
        dates.timezone_abbr("Nowhere/Land", datetime(2026, 1, 1))


# --------------------------------------------------------------------------- UTC conversion / DST


@pytest.mark.parametrize(
    ("local", "tz", "utc"),
    [
        (datetime(2027, 1, 1, 20), NY, datetime(2027, 1, 2, 1)),  # EST, crosses midnight
        (datetime(2026, 7, 1, 12), NY, datetime(2026, 7, 1, 16)),  # EDT
        (datetime(2026, 7, 1, 12), PARIS, datetime(2026, 7, 1, 10)),
        (datetime(2026, 7, 1, 12), dates.resolve_timezone("UTC+5.5"), datetime(2026, 7, 1, 6, 30)),
        (datetime(2026, 7, 1, 12), UTC, datetime(2026, 7, 1, 12)),
        # fold=0: nonexistent 02:30 uses the pre-gap offset (EST); ambiguous 01:30 is EDT
        (datetime(2026, 3, 8, 2, 30), NY, datetime(2026, 3, 8, 7, 30)),
        (datetime(2026, 11, 1, 1, 30), NY, datetime(2026, 11, 1, 5, 30)),
    ],
)
def test_to_utc_and_back(local: datetime, tz: tzinfo, utc: datetime) -> None:
    assert dates.to_utc(local, tz) == utc
    assert dates.to_utc(local, tz).tzinfo is None
    if local != datetime(2026, 3, 8, 2, 30):  # a gap time has no exact inverse
        assert dates.from_utc(utc, tz) == local


def test_from_utc_is_naive_wall_time() -> None:
    result = dates.from_utc(datetime(2027, 1, 2, 1), NY)
    assert result == datetime(2027, 1, 1, 20)
    assert result.tzinfo is None


def test_to_utc_accepts_aware() -> None:
    aware = datetime(2026, 7, 1, 12, tzinfo=PARIS)
    assert dates.to_utc(aware, NY) == datetime(2026, 7, 1, 10)


def test_to_utc_out_of_range() -> None:
    with pytest.raises(DateParseError):
        dates.to_utc(datetime(1, 1, 1), PARIS)


# --------------------------------------------------------------------------- formatting


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (datetime(2026, 12, 5, 19, 0, 0), "2026-12-05 19:00:00"),
        (datetime(2026, 1, 2, 3, 4, 5, 999999), "2026-01-02 03:04:05"),
        (datetime(999, 1, 1), "0999-01-01 00:00:00"),
        (None, "0000-00-00 00:00:00"),
    ],
)
def test_format_datetime(value: datetime | None, expected: str) -> None:
    assert dates.format_datetime(value) == expected


def test_date_details() -> None:
    details = dates.date_details(datetime(2026, 12, 5, 19, 0, 0))
    assert details == {
        "year": "2026",
        "month": "12",
        "day": "05",
        "hour": "19",
        "minutes": "00",
        "seconds": "00",
    }
    assert list(details) == ["year", "month", "day", "hour", "minutes", "seconds"]


def test_date_details_none() -> None:
    assert dates.date_details(None) == {
        "year": "1970",
        "month": "01",
        "day": "01",
        "hour": "00",
        "minutes": "00",
        "seconds": "00",
    }


@pytest.mark.parametrize(
    ("local", "tz", "expected"),
    [
        (datetime(2026, 12, 5, 19), UTC, "2026-12-05T19:00:00+00:00"),
        (datetime(2026, 12, 5, 19), NY, "2026-12-05T19:00:00-05:00"),
        (datetime(2026, 7, 1, 19, 0, 0, 5), NY, "2026-07-01T19:00:00-04:00"),
        (datetime(2026, 7, 1, 19), dates.resolve_timezone("UTC+5.5"), "2026-07-01T19:00:00+05:30"),
    ],
)
def test_iso8601(local: datetime, tz: tzinfo, expected: str) -> None:
    assert dates.iso8601(local, tz) == expected


def test_start_and_end_of_day() -> None:
    d = datetime(2026, 12, 5, 19, 30, 15, 123)
    assert dates.start_of_day(d) == datetime(2026, 12, 5, 0, 0, 0)
    assert dates.end_of_day(d) == datetime(2026, 12, 5, 23, 59, 59)


# --------------------------------------------------------------------------- parsing: fast path


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-12-05 19:00:00", datetime(2026, 12, 5, 19)),
        ("2026-12-05 19:00", datetime(2026, 12, 5, 19)),
        ("2026-12-05", datetime(2026, 12, 5)),
        ("  2026-12-05 07:08:09\n", datetime(2026, 12, 5, 7, 8, 9)),
        ("2026-12-05T19:00", datetime(2026, 12, 5, 19)),
        ("2026-12-05T19:00:30", datetime(2026, 12, 5, 19, 0, 30)),
        ("2026-12-05T19:00:30.987654", datetime(2026, 12, 5, 19, 0, 30)),
        ("2026/12/05", datetime(2026, 12, 5)),
        ("2026/12/05 9:05", datetime(2026, 12, 5, 9, 5)),
        ("2026-1-5", datetime(2026, 1, 5)),
        ("12/05/2026", datetime(2026, 12, 5)),  # PHP: slashes are m/d/Y
        ("05-12-2026", datetime(2026, 12, 5)),  # PHP: dashes are d-m-Y
        ("05.12.2026 10:30", datetime(2026, 12, 5, 10, 30)),
        ("9999-12-31 23:59:59", datetime(9999, 12, 31, 23, 59, 59)),
        ("0001-01-01", datetime(1, 1, 1)),
    ],
)
def test_parse_fast_path(text: str, expected: datetime) -> None:
    assert dates.parse_datetime(text, NY, now=NOW) == expected


@pytest.mark.parametrize(
    ("text", "tz", "expected"),
    [
        ("2026-12-05T19:00:00Z", UTC, datetime(2026, 12, 5, 19)),
        ("2026-12-05T19:00:00Z", NY, datetime(2026, 12, 5, 14)),
        ("2026-12-05T19:00:00z", NY, datetime(2026, 12, 5, 14)),
        ("2026-07-05T19:00:00Z", NY, datetime(2026, 7, 5, 15)),
        ("2026-12-05T19:00:00+02:00", UTC, datetime(2026, 12, 5, 17)),
        ("2026-12-05T19:00:00.5+02:00", PARIS, datetime(2026, 12, 5, 18)),
        ("2026-12-05T19:00-0500", NY, datetime(2026, 12, 5, 19)),
        ("2026-12-05T19:00:00+05", UTC, datetime(2026, 12, 5, 14)),
        ("2026-12-05 19:00:00+00:00", NY, datetime(2026, 12, 5, 14)),
        ("2026-12-31T23:30:00-01:00", UTC, datetime(2027, 1, 1, 0, 30)),
    ],
)
def test_parse_explicit_offset_converts_to_tz(text: str, tz: tzinfo, expected: datetime) -> None:
    assert dates.parse_datetime(text, tz) == expected


@pytest.mark.parametrize(
    ("value", "tz", "expected"),
    [
        (0, UTC, datetime(1970, 1, 1)),
        (1780000000, UTC, datetime(2026, 5, 28, 20, 26, 40)),
        (1780000000, NY, datetime(2026, 5, 28, 16, 26, 40)),
        (1780000000.75, UTC, datetime(2026, 5, 28, 20, 26, 40)),
        ("1780000000", NY, datetime(2026, 5, 28, 16, 26, 40)),
        ("-86400", UTC, datetime(1969, 12, 31)),
        ("-86400", NY, datetime(1969, 12, 30, 19)),
        ("@0", UTC, datetime(1970, 1, 1)),
        (" 60 ", UTC, datetime(1970, 1, 1, 0, 1)),
    ],
)
def test_parse_timestamp(value: object, tz: tzinfo, expected: datetime) -> None:
    assert dates.parse_datetime(value, tz) == expected


def test_parse_passes_datetime_and_date_through() -> None:
    assert dates.parse_datetime(datetime(2026, 1, 1, 9, 0, 0, 7), NY) == datetime(2026, 1, 1, 9)
    aware = datetime(2026, 1, 1, 14, tzinfo=UTC)
    assert dates.parse_datetime(aware, NY) == datetime(2026, 1, 1, 9)
    assert dates.parse_datetime(date(2026, 1, 1), NY) == datetime(2026, 1, 1)


@pytest.mark.parametrize(
    "value",
    [
        True,
        False,
        None,
        "",
        "   ",
        "foo",
        "not a date",
        "2026-13-45",
        "2026-02-30",
        "2026-12-05 24:00:00",
        "2026-12-05 19:60",
        "0000-01-01",
        "10000-01-01",
        "2026-12-05T19:00:00+25:00",
        "a",
        "the 5th",
        "13pm",
        "25:00",
        "next",
        "at",
        "tomorrow foo",
        "2026-12-05 nonsense",
        "9999-12-31 +1 day",
        "+100000 years",
        "x" * 500,
        float("nan"),
        float("inf"),
        10**20,
        [],
        object(),
    ],
)
def test_parse_invalid(value: object) -> None:
    with pytest.raises(DateParseError):
        dates.parse_datetime(value, NY, now=NOW)


def test_parse_result_is_naive_without_microseconds() -> None:
    result = dates.parse_datetime("now", NY, now=datetime(2026, 6, 10, 14, 30, 45, 999))
    assert result == NOW
    assert result.tzinfo is None


# --------------------------------------------------------------------------- parsing: strtotime


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("now", NOW),
        ("today", datetime(2026, 6, 10)),
        ("Today", datetime(2026, 6, 10)),
        ("midnight", datetime(2026, 6, 10)),
        ("noon", datetime(2026, 6, 10, 12)),
        ("tomorrow", datetime(2026, 6, 11)),
        ("yesterday", datetime(2026, 6, 9)),
        ("tomorrow 9am", datetime(2026, 6, 11, 9)),
        ("tomorrow at 9:30 p.m.", datetime(2026, 6, 11, 21, 30)),
        ("tomorrow noon", datetime(2026, 6, 11, 12)),
        ("noon tomorrow", datetime(2026, 6, 11)),  # PHP: "tomorrow" resets the time
        ("yesterday 23:59", datetime(2026, 6, 9, 23, 59)),
        ("3pm", datetime(2026, 6, 10, 15)),
        ("12am", datetime(2026, 6, 10, 0)),
        ("12pm", datetime(2026, 6, 10, 12)),
        ("next monday 9am", datetime(2026, 6, 15, 9)),
        ("next wednesday 4pm", datetime(2026, 6, 17, 16)),  # today is Wednesday: strictly after
        ("next monday", datetime(2026, 6, 15)),
        ("monday", datetime(2026, 6, 15)),
        ("Mon", datetime(2026, 6, 15)),
        ("wednesday", datetime(2026, 6, 10)),  # today counts
        ("this wednesday", datetime(2026, 6, 10)),
        ("last wednesday", datetime(2026, 6, 3)),
        ("last monday", datetime(2026, 6, 8)),
        ("friday 10:00", datetime(2026, 6, 12, 10)),
        ("Friday, 10:00", datetime(2026, 6, 12, 10)),
        ("9am monday", datetime(2026, 6, 15)),  # PHP: a day name resets an earlier time
        ("+1 week", datetime(2026, 6, 17, 14, 30, 45)),
        ("+2 days", datetime(2026, 6, 12, 14, 30, 45)),
        ("-1 day", datetime(2026, 6, 9, 14, 30, 45)),
        ("in 3 days", datetime(2026, 6, 13, 14, 30, 45)),
        ("1 week ago", datetime(2026, 6, 3, 14, 30, 45)),
        ("an hour ago", datetime(2026, 6, 10, 13, 30, 45)),
        ("2 days 3 hours ago", datetime(2026, 6, 8, 11, 30, 45)),
        ("+1 week 2 days 4 hours", datetime(2026, 6, 19, 18, 30, 45)),
        ("+90 minutes", datetime(2026, 6, 10, 16, 0, 45)),
        ("next week", datetime(2026, 6, 17, 14, 30, 45)),
        ("last month", datetime(2026, 5, 10, 14, 30, 45)),
        ("+1 year", datetime(2027, 6, 10, 14, 30, 45)),
        ("tomorrow +1 week", datetime(2026, 6, 18)),
        ("2018-01-01 4pm", datetime(2018, 1, 1, 16)),
        ("2018-01-01 +1 day", datetime(2018, 1, 2)),
    ],
)
def test_parse_relative(text: str, expected: datetime) -> None:
    assert dates.parse_datetime(text, NY, now=NOW) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("monday", datetime(2026, 6, 8)),  # today is Monday: today, at midnight
        ("next monday", datetime(2026, 6, 15)),
        ("last monday", datetime(2026, 6, 1)),
        ("sunday", datetime(2026, 6, 14)),
        ("tuesday 8pm", datetime(2026, 6, 9, 20)),
    ],
)
def test_parse_weekday_when_today_is_that_day(text: str, expected: datetime) -> None:
    assert dates.parse_datetime(text, NY, now=MONDAY) == expected


@pytest.mark.parametrize(
    ("now", "text", "expected"),
    [
        (datetime(2026, 1, 31, 10), "+1 month", datetime(2026, 3, 3, 10)),  # PHP overflow
        (datetime(2028, 2, 29, 10), "+1 year", datetime(2029, 3, 1, 10)),
        (datetime(2026, 12, 31, 23, 30), "+1 hour", datetime(2027, 1, 1, 0, 30)),
    ],
)
def test_parse_relative_overflow_like_php(now: datetime, text: str, expected: datetime) -> None:
    assert dates.parse_datetime(text, UTC, now=now) == expected


def test_parse_aware_now_is_converted_to_tz() -> None:
    # 02:00 UTC on June 11 is still June 10 (22:00 EDT) in New York.
    now = datetime(2026, 6, 11, 2, 0, tzinfo=timezone.utc)
    assert dates.parse_datetime("today", NY, now=now) == datetime(2026, 6, 10)
    assert dates.parse_datetime("now", NY, now=now) == datetime(2026, 6, 10, 22)
    assert dates.parse_datetime("tomorrow", NY, now=now) == datetime(2026, 6, 11)


def test_parse_default_now_uses_tz_wall_clock() -> None:
    tz = dates.resolve_timezone("UTC+5.5")
    before = datetime.now(tz).replace(tzinfo=None, microsecond=0)
    result = dates.parse_datetime("now", tz)
    after = datetime.now(tz).replace(tzinfo=None)
    assert before <= result <= after
    today = dates.parse_datetime("today", tz)
    assert today in (dates.start_of_day(before), dates.start_of_day(after))


# --------------------------------------------------------------------------- parsing: dateparser


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("December 5, 2026 7pm", datetime(2026, 12, 5, 19)),
        ("5 Dec 2026", datetime(2026, 12, 5)),
        ("Saturday, December 5, 2026 7:30 pm", datetime(2026, 12, 5, 19, 30)),
        ("Dec 5th 2026 at 7pm", datetime(2026, 12, 5, 19)),
        ("December 5", datetime(2026, 12, 5)),
        ("Dec 2026", datetime(2026, 12, 1)),
        ("3 days from now", datetime(2026, 6, 13, 14, 30, 45)),
    ],
)
def test_parse_natural_language(text: str, expected: datetime) -> None:
    assert dates.parse_datetime(text, NY, now=NOW) == expected


def test_parse_natural_language_with_zone_converts_to_tz() -> None:
    result = dates.parse_datetime("December 5, 2026 7pm UTC", NY, now=NOW)
    assert result == datetime(2026, 12, 5, 14)


# --------------------------------------------------------------------------- import cost


@pytest.mark.parametrize(
    "text", ["2026-12-05 19:00:00", "2026-12-05T19:00:00Z", "1780000000", "next monday 9am"]
)
def test_fast_paths_do_not_import_dateparser(text: str) -> None:
    code = (
        "import calendar_rest.dates as d, sys, zoneinfo; "
        f"d.parse_datetime({text!r}, zoneinfo.ZoneInfo('UTC')); "
        "assert 'dateparser' not in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
