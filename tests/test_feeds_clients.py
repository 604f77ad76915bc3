"""The feeds read by two independent parsers, compared with the JSON API
(``calendar.md`` §3, §4.7): icalendar with recurring-ical-events (Python), and ical.js
(JavaScript, Mozilla's: Thunderbird and FullCalendar read calendars with it) through
``tests/clients/icaljs.js``. Both must see the same UIDs, UTC instants (DST and
WordPress offset zones included), all-day dates with an exclusive end, summaries and
plain descriptions, and a series expanded into exactly its listed occurrences; ical.js
reads every kind of feed the service serves as the JSON API answers the same request,
with the feed's own VTIMEZONEs (``test_feeds_zones_clients.py``: over the years).

Needs Node.js and ``npm ci --prefix tests/clients``; runs under
``CALENDAR_REST_TEST_CLIENTS=1`` (skipped without Node, failed under
``CALENDAR_REST_REQUIRE_CLIENTS=1``).
"""

from __future__ import annotations

import datetime as dt
import typing as t
from pathlib import Path

import pytest
from client_servers import node, run_node
from conftest import NS, Api
from feed_helpers import (
    NEW_YORK,
    WINDOW,
    Instance,
    descriptions,
    icaljs,
    icaljs_instances,
    json_instances,
    make_series,
    read_feed,
    stored_uids,
)
from werkzeug.test import TestResponse

from calendar_rest.app import Application

pytestmark = [pytest.mark.clients]
ADMIN = "administrator"
UNTIL = "2035-12-31T23:59:59Z"
UTC = dt.timezone.utc
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


# -- every feed kind, read by ical.js and compared with the JSON API -----------------------

YEAR = {"start_date": "2027-01-01 00:00:00", "end_date": "2027-12-31 23:59:59", "per_page": 50}
PARIS = "Europe/Paris"
CALENDAR = {"Accept": "text/calendar"}
#: a weekly Paris series across its DST change: a date added, one removed by a New York
#: EXDATE (19:00 CEST is 13:00 EDT), then one moved (an exception) and one deleted
SERIES_LINES = [
    "RRULE:FREQ=WEEKLY;COUNT=6",
    "RDATE;TZID=Europe/Paris:20270501T190000",
    "EXDATE;TZID=America/New_York:20270406T130000",
]
#: the single feed of one of ``every_kind``'s events
SINGLE_KINDS = {
    "single event": "timed",
    "all-day event": "all day",
    "offset zone event": "offset",
    "occurrence": "occurrence",
    "exception": "exception",
}
#: a list feed, its JSON list, the query of both
LIST_KINDS = {
    "archive": ("/events.ics", "/events", YEAR),
    "archive by category": ("/events.ics", "/events", {**YEAR, "categories": "jazz"}),
    "archive by search": ("/events.ics", "/events", {**YEAR, "search": "festival"}),
    "french archive": (f"/fr{NS}/events.ics", f"/fr{NS}/events", YEAR),
}
OTHER_KINDS = [
    "series master",
    "french single event",
    "accept archive",
    "accept single event",
    "accept by slug",
]


@pytest.fixture
def every_kind(api: Api) -> dict[str, dict[str, t.Any]]:
    """One of each: a timed event with a category, an all-day event, a WordPress
    offset, and a series with an added, an excluded, a moved and a deleted date."""
    node()
    made = {
        "timed": api.create_event(
            title="Jazz at noon",
            timezone=NEW_YORK,
            start_date="2027-03-10 12:00:00",
            end_date="2027-03-10 14:00:00",
            categories=["Jazz"],
        ),
        "all day": api.create_event(
            title="Festival",
            timezone=PARIS,
            start_date="2027-07-01 00:00:00",
            end_date="2027-07-02 23:59:59",
            all_day=True,
        ),
        "offset": api.create_event(
            title="Half hour",
            timezone="UTC+5:30",
            start_date="2027-06-01 12:00:00",
            end_date="2027-06-01 13:00:00",
        ),
        "master": api.create_event(
            title="Weekly",
            timezone=PARIS,
            start_date="2027-03-16 19:00:00",
            end_date="2027-03-16 20:00:00",
            recurrence=SERIES_LINES,
        ),
    }
    listing = api.get(f"/events/{made['master']['id']}/occurrences", query_string=YEAR).json
    moved, deleted, kept = listing["events"][1:4]
    exception = api.patch(
        f"/events/{moved['id']}",
        ADMIN,
        json={
            "title": "Moved",
            "start_date": "2027-03-23 21:00:00",
            "end_date": "2027-03-23 22:00:00",
        },
    )
    assert exception.status_code == 200, exception.get_data(as_text=True)
    assert api.delete(f"/events/{deleted['id']}", ADMIN).status_code == 200
    made["exception"], made["occurrence"] = exception.json, kept
    return made


def kind_request(
    kind: str, api: Api, made: dict[str, dict[str, t.Any]]
) -> tuple[TestResponse, list[dict[str, t.Any]]]:
    """The feed of ``kind`` and the JSON events the API answers for the same thing."""
    timed, master = made["timed"], made["master"]
    if kind in LIST_KINDS:
        feed, listed, query = LIST_KINDS[kind]
        return api.get(feed, query_string=query), api.get(listed, query_string=query).json["events"]
    if kind in SINGLE_KINDS:
        event = api.get(f"/events/{made[SINGLE_KINDS[kind]]['id']}").json
        return api.get(f"/events/{event['id']}.ics"), [event]
    if kind == "series master":
        series = api.get(f"/events/{master['id']}/occurrences", query_string=YEAR)
        return api.get(f"/events/{master['id']}.ics"), series.json["events"]
    if kind == "french single event":
        french = f"/fr{NS}/events/{timed['id']}"
        return api.get(f"{french}.ics"), [api.get(french).json]
    if kind == "accept archive":
        listed = api.get("/events", query_string=YEAR).json["events"]
        return api.get("/events", query_string=YEAR, headers=CALENDAR), listed
    path = f"/events/{timed['id']}" if kind == "accept single event" else None
    path = path or f"/events/by-slug/{timed['slug']}"
    return api.get(path, headers=CALENDAR), [api.get(path).json]


@pytest.mark.parametrize("kind", [*LIST_KINDS, *SINGLE_KINDS, *OTHER_KINDS])
def test_icaljs_reads_every_feed_kind_as_the_json_api(
    kind: str, api: Api, app: Application, every_kind: dict[str, dict[str, t.Any]], tmp_path: Path
) -> None:
    """Each representation the feeds serve (``/events.ics`` with filters, the single
    feed of an event, an all-day event, a series master, an occurrence and an
    exception, the French root, ``Accept: text/calendar``) read by ical.js with the
    feed's own VTIMEZONEs (a recurrence line's zone included): the instances, URLs and
    names the JSON API answers for the same request."""
    response, listed = kind_request(kind, api, every_kind)
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.content_type == "text/calendar; charset=utf-8"
    report = icaljs(response.get_data(), dt.datetime(2028, 1, 1, tzinfo=UTC), tmp_path)
    assert icaljs_instances(report) == json_instances(listed, stored_uids(app))
    for item in report["instances"]:
        assert all(zone == "date" or zone.startswith("feed:") for zone in item["zones"]), item
    if kind in LIST_KINDS or kind == "accept archive":
        name = "Événements" if kind.startswith("french") else "Events"
        assert report["calendar"]["name"] == f"{name} – localhost"
    elif kind != "series master":
        [item], [event] = report["instances"], listed
        assert (item["url"], report["calendar"]["name"]) == (event["url"], event["title"])


def test_icaljs_reads_a_cancelled_event_and_where_to_join(api: Api, tmp_path: Path) -> None:
    """anchors.md §1: a cancelled event stays in the feed with ``STATUS:CANCELLED``, and
    the online URL is its RFC 7986 ``CONFERENCE``."""
    node()
    join = "https://meet.example.org/concert"
    slot = {"start_date": "2027-02-01 20:00:00", "end_date": "2027-02-01 22:00:00"}
    api.create_event(title="Held", **slot)
    api.create_event(
        title="Called off",
        event_status="canceled",
        attendance_mode="online",
        online_url=join,
        **slot,
    )
    response = api.get("/events.ics", query_string=WINDOW)
    report = icaljs(response.get_data(), dt.datetime(2028, 1, 1, tzinfo=UTC), tmp_path)
    read = {item["summary"]: (item["status"], item["conference"]) for item in report["instances"]}
    assert read == {"Held": ("CONFIRMED", None), "Called off": ("CANCELLED", join)}
