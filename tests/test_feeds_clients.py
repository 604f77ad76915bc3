"""The feeds read by two independent parsers, compared with the JSON API
(``calendar.md`` §3, §4.7): icalendar with recurring-ical-events (Python), and ical.js
(JavaScript, Mozilla's: Thunderbird and FullCalendar read calendars with it) through
``tests/clients/icaljs.js``. Both must see the same UIDs, UTC instants (DST and
WordPress offset zones included), all-day dates with an exclusive end, summaries and
plain descriptions, and a series expanded into exactly its listed occurrences.

Needs Node.js and ``npm ci --prefix tests/clients``; runs under
``CALENDAR_REST_TEST_CLIENTS=1`` (skipped without Node, failed under
``CALENDAR_REST_REQUIRE_CLIENTS=1``).
"""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from client_servers import node, run_node
from conftest import Api
from feed_helpers import (
    NEW_YORK,
    WINDOW,
    Instance,
    descriptions,
    json_instances,
    make_series,
    read_feed,
    stored_uids,
)

from calendar_rest.app import Application

pytestmark = [pytest.mark.clients]
UNTIL = "2035-12-31T23:59:59Z"
MARCH = [dt.datetime(2027, 3, day, 18, 0) for day in (9, 16, 23, 30)]
EVENTS = [
    # title, start, end, zone, all day, description (HTML), its plain text
    ("Before DST", "2027-03-10 18:00:00", "2027-03-10 20:00:00", NEW_YORK, False,
     "<p>Jazz &amp; <b>blues</b></p><ul><li>one</li><li>two</li></ul>",
     "Jazz & blues\n\n- one\n- two"),
    ("After DST", "2027-11-10 18:00:00", "2027-11-10 20:00:00", NEW_YORK, False,
     "line one<br />line two", "line one\nline two"),
    ("In UTC", "2027-04-01 09:00:00", "2027-04-01 10:00:00", "UTC", False, "", None),
    ("Plus two", "2027-05-01 12:00:00", "2027-05-01 13:00:00", "UTC+2", False, "", None),
    ("Half hour", "2027-06-01 12:00:00", "2027-06-01 13:00:00", "UTC+5:30", False, "", None),
    ("All day", "2027-07-01 00:00:00", "2027-07-02 23:59:59", "Europe/Paris", True, "", None),
]  # fmt: skip


@pytest.fixture
def feed(api: Api, app: Application) -> tuple[bytes, list[Instance]]:
    """The archive feed of the events above and of a weekly New York series across the
    DST change (one occurrence moved, one deleted), and what the JSON API lists."""
    node()  # skip (or fail in CI) before building anything
    for title, start, end, zone, all_day, html, _ in EVENTS:
        api.create_event(
            title=title,
            start_date=start,
            end_date=end,
            timezone=zone,
            all_day=all_day,
            **({"description": html} if html else {}),
        )
    master = api.create_event(
        title="Weekly",
        timezone=NEW_YORK,
        start_date="2027-03-09 18:00:00",
        end_date="2027-03-09 19:00:00",
    )
    make_series(
        app,
        master["id"],
        ["RRULE:FREQ=WEEKLY;COUNT=4", "EXDATE;TZID=America/New_York:20270323T180000"],
        MARCH,
        moved={MARCH[1]: (dt.datetime(2027, 3, 16, 20, 30), "Moved")},
        deleted=[MARCH[2]],
    )
    response = api.get("/events.ics", query_string=WINDOW)
    assert response.status_code == 200
    listed = api.get("/events", query_string={**WINDOW, "per_page": 50}).json["events"]
    return response.get_data(), json_instances(listed, stored_uids(app))


def icaljs_instances(report: dict[str, t.Any]) -> list[Instance]:
    found = []
    for item in report["instances"]:
        if item["allDay"]:
            span = (item["startDate"], item["endDate"])
        else:
            span = tuple(
                dt.datetime.fromisoformat(item[key].replace("Z", "+00:00")).strftime(
                    "%Y-%m-%d %H:%M:%S"
                )
                for key in ("start", "end")
            )
        found.append(Instance(item["uid"], item["summary"], *span, item["allDay"]))
    return sorted(found)


def test_both_parsers_read_what_the_json_api_lists(feed: tuple[bytes, list[Instance]]) -> None:
    body, expected = feed
    python = read_feed(body)
    report = run_node("icaljs.js", {"ics": body.decode(), "until": UNTIL})
    javascript = icaljs_instances(report)
    assert python == expected
    assert javascript == expected
    assert report["calendar"] == {"name": "Events – localhost", "timezone": "UTC"}
    starts = {item.summary: item.start for item in javascript}
    assert starts["Before DST"] == "2027-03-10 23:00:00"  # EST
    assert starts["After DST"] == "2027-11-10 23:00:00"  # EST again
    assert starts["Moved"] == "2027-03-17 00:30:00"  # 20:30 EDT
    assert starts["Plus two"] == "2027-05-01 10:00:00"
    assert starts["Half hour"] == "2027-06-01 06:30:00"
    weekly = sorted(item.start for item in javascript if item.summary in ("Weekly", "Moved"))
    assert weekly == ["2027-03-09 23:00:00", "2027-03-17 00:30:00", "2027-03-30 22:00:00"]


def test_both_parsers_read_plain_descriptions(feed: tuple[bytes, list[Instance]]) -> None:
    body, _ = feed
    wanted = {title: plain for title, *_, plain in EVENTS}
    python = descriptions(body)
    report = run_node("icaljs.js", {"ics": body.decode(), "until": UNTIL})
    javascript = {item["summary"]: item["description"] for item in report["instances"]}
    for title, plain in wanted.items():
        assert python[title] == plain, title
        assert javascript[title] == plain, title
