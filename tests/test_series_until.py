"""``UNTIL`` has the type of the series' start (RFC 5545 §3.3.10): a date in an all-day
series, a UTC date-time in a timed one. A timed series sent with a bare-date ``UNTIL``
lists its occurrences through the end of that day; stored as a date, calendar clients
(recurring-ical-events here) dropped the last of them from the feeds."""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from conftest import Api, api_for
from feed_helpers import json_instances, read_feed, stored_uids

from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.dates import resolve_timezone
from calendar_rest.dates.recurrence import localise_lines

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
WINDOW = {"start_date": "2020-01-01", "end_date": "2030-12-31", "per_page": 50}
PARIS = resolve_timezone("Europe/Paris")


@pytest.fixture
def cal(api: Api, sibling_app: t.Callable[..., Application]) -> Api:
    return api_for(sibling_app(clock=ManualClock(NOW)), api)


def series(cal: Api, rule: str, **fields: t.Any) -> tuple[dict[str, t.Any], list[dict[str, t.Any]]]:
    body = {
        "title": "Choir",
        "start_date": "2026-03-02 19:00:00",
        "end_date": "2026-03-02 21:00:00",
        "timezone": "Europe/Paris",
        "recurrence": [rule],
        **fields,
    }
    created = cal.post("/events", "administrator", json=body)
    assert created.status_code == 201, created.get_data(as_text=True)
    listed = cal.get(f"/events/{created.json['id']}/occurrences", query_string=WINDOW)
    return created.json, listed.json["events"]


def test_a_timed_series_ending_on_a_date_keeps_its_last_day_in_every_feed(cal: Api) -> None:
    master, occurrences = series(cal, "RRULE:FREQ=WEEKLY;UNTIL=20260323")
    assert [event["start_date"][:10] for event in occurrences] == [
        "2026-03-02",
        "2026-03-09",
        "2026-03-16",
        "2026-03-23",
    ]
    # the end of 23 March in Paris (UTC+1), as a UTC date-time
    assert master["recurrence"] == ["RRULE:FREQ=WEEKLY;UNTIL=20260323T225959Z"]
    uids = stored_uids(cal.app)
    expected = json_instances(occurrences, uids)
    for path, query in (("/events.ics", WINDOW), (f"/events/{master['id']}.ics", {})):
        feed = cal.get(path, query_string=query)
        assert feed.status_code == 200
        assert [i for i in read_feed(feed.get_data()) if i.uid == uids[master["id"]]] == expected


@pytest.mark.parametrize("until", ["20260304T225959Z", "20260304T101500", "20260304"])
def test_an_all_day_series_ends_on_a_date(until: str) -> None:
    lines = [f"RRULE:FREQ=DAILY;UNTIL={until}"]
    assert localise_lines(lines, PARIS, all_day=True) == ["RRULE:FREQ=DAILY;UNTIL=20260304"]


def test_an_all_day_series_sent_with_a_date_time_until_keeps_its_days(cal: Api) -> None:
    master, occurrences = series(
        cal,
        "RRULE:FREQ=DAILY;UNTIL=20260304T120000Z",
        all_day=True,
        start_date="2026-03-02",
        end_date="2026-03-02",
    )
    assert master["recurrence"] == ["RRULE:FREQ=DAILY;UNTIL=20260304"]
    assert [event["start_date"][:10] for event in occurrences] == [
        "2026-03-02",
        "2026-03-03",
        "2026-03-04",
    ]


@pytest.mark.parametrize(
    ("sent", "stored"),
    [
        ("UNTIL=20260323T180000Z", "UNTIL=20260323T180000Z"),
        ("COUNT=3", "COUNT=3"),
        ("UNTIL=20260323T190000", "UNTIL=20260323T180000Z"),  # floating: Paris wall time
    ],
)
def test_a_timed_series_until_is_utc(sent: str, stored: str) -> None:
    lines = [f"RRULE:FREQ=WEEKLY;{sent}", "EXDATE;TZID=Europe/Paris:20260309T190000"]
    assert localise_lines(lines, PARIS) == [f"RRULE:FREQ=WEEKLY;{stored}", lines[1]]
