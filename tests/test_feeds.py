"""iCalendar feeds (``calendar.md`` §1-§3, §4.7, §7): ``/events.ics``,
``/events/{id}.ics`` and ``Accept: text/calendar``, read back with icalendar and
recurring-ical-events and compared with the JSON API; the headers, 304s (response
cache and anonymous fast path included), negotiation, visibility, errors, the series
export, ``/doc`` and the index. ``test_feeds_clients.py`` reads the same with ical.js.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import re
import subprocess
import sys
import typing as t

import icalendar
import pytest
from conftest import NS, Api, api_for, assert_wp_error
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
from werkzeug.http import parse_date
from werkzeug.test import TestResponse

from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.wire.icalendar_feed import ical_zone

Build = t.Callable[..., Application]
CALENDAR_TYPE = "text/calendar; charset=utf-8"
BROWSER = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8"
ADMIN = "administrator"


def ok_feed(response: TestResponse) -> bytes:
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.headers["Content-Type"] == CALENDAR_TYPE
    body = response.get_data()
    icalendar.Calendar.from_ical(body)  # parses
    assert body.startswith(b"BEGIN:VCALENDAR\r\n") and body.endswith(b"END:VCALENDAR\r\n")
    text = "\r\n".join(lines(body))
    used = {"".join(name) for name in re.findall(r';TZID=(?:"([^"]+)"|([^;:]+))', text)}
    assert used == set(re.findall(r"\nTZID:([^\r]+)", text))  # each TZID, one VTIMEZONE
    return body


def varies(response: TestResponse) -> str:
    """``Vary`` without the ``Accept-Encoding`` of a text answer of 1 KB or more
    (``test_gzip.py``)."""
    names = [name.strip() for name in response.headers.get("Vary", "").split(",")]
    return ", ".join(name for name in names if name and name != "Accept-Encoding")


def lines(body: bytes) -> list[str]:
    """The unfolded content lines."""
    return body.replace(b"\r\n ", b"").decode().split("\r\n")


def vevents(body: bytes) -> list[icalendar.Event]:
    return list(icalendar.Calendar.from_ical(body).walk("VEVENT"))


@pytest.fixture
def sample(api: Api) -> dict[str, dict[str, t.Any]]:
    """Events across zones: New York on both sides of the 2027 DST change, UTC, a
    WordPress whole-hour and a half-hour offset, and an all-day event."""
    venue = api.post(
        "/venues",
        ADMIN,
        json={
            "venue": "Blue Hall",
            "address": "1 Main St",
            "city": "Springfield",
            "stateprovince": "IL",
            "zip": "62701",
            "country": "United States",
            "geo_lat": 39.78,
            "geo_lng": -89.65,
        },
    ).json
    made = {
        "before dst": api.create_event(
            title="Before DST",
            start_date="2027-03-10 18:00:00",
            end_date="2027-03-10 20:00:00",
            timezone=NEW_YORK,
            description="<p>Jazz &amp; <b>blues</b></p><ul><li>one</li><li>two</li></ul>",
            venue=venue["id"],
            organizer=[
                {"organizer": "Ann Lee", "email": "ann@example.org"},
                {"organizer": "Bob Roe", "email": "bob@example.org"},
            ],
            categories=["Music", "Night, late"],
        ),
        "after dst": api.create_event(
            title="After DST",
            start_date="2027-03-17 18:00:00",
            end_date="2027-03-17 20:00:00",
            timezone=NEW_YORK,
        ),
        "utc": api.create_event(
            title="In UTC",
            start_date="2027-04-01 09:00:00",
            end_date="2027-04-01 10:00:00",
            timezone="UTC",
            description="line one<br />line two",
        ),
        "plus two": api.create_event(
            title="Plus two",
            start_date="2027-05-01 12:00:00",
            end_date="2027-05-01 13:00:00",
            timezone="UTC+2",
        ),
        "half hour": api.create_event(
            title="Half hour",
            start_date="2027-06-01 12:00:00",
            end_date="2027-06-01 13:00:00",
            timezone="UTC+5:30",
        ),
        "all day": api.create_event(
            title="All day",
            start_date="2027-07-01 00:00:00",
            end_date="2027-07-02 23:59:59",
            all_day=True,
        ),
    }
    return made


# -- what the feed holds, compared with the JSON API --------------------------------------


def test_the_archive_feed_reads_as_the_json_archive(
    api: Api, app: Application, sample: dict[str, t.Any]
) -> None:
    body = ok_feed(api.get("/events.ics", query_string=WINDOW))
    listed = api.get("/events", query_string={**WINDOW, "per_page": 50}).json["events"]
    assert read_feed(body) == json_instances(listed, stored_uids(app))
    assert len(vevents(body)) == len(sample)
    # DST: 18:00 in New York is 23:00 UTC before the change and 22:00 after it
    starts = {item.summary: item.start for item in read_feed(body)}
    assert starts["Before DST"] == "2027-03-10 23:00:00"
    assert starts["After DST"] == "2027-03-17 22:00:00"
    assert starts["Plus two"] == "2027-05-01 10:00:00"
    assert starts["Half hour"] == "2027-06-01 06:30:00"
    assert Instance(
        stored_uids(app)[sample["all day"]["id"]], "All day", "2027-07-01", "2027-07-03", True
    ) in read_feed(body)


def test_descriptions_are_plain_text(api: Api, sample: dict[str, t.Any]) -> None:
    found = descriptions(ok_feed(api.get("/events.ics", query_string=WINDOW)))
    assert found["Before DST"] == "Jazz & blues\n\n- one\n- two"
    assert found["In UTC"] == "line one\nline two"
    assert found["After DST"] is None  # empty: omitted


def test_every_vevent_property(api: Api, app: Application, sample: dict[str, t.Any]) -> None:
    """§3.2, property by property, on the richest event."""
    event = sample["before dst"]
    body = ok_feed(api.get(f"/events/{event['id']}.ics"))
    text = lines(body)
    uid = stored_uids(app)[event["id"]]
    assert f"UID:{uid}" in text and len(uid) == 36 and uid == uid.lower()
    assert "DTSTART;TZID=America/New_York:20270310T180000" in text
    assert "DTEND;TZID=America/New_York:20270310T200000" in text
    stamp = dt.datetime.strptime(event["modified_utc"], "%Y-%m-%d %H:%M:%S")
    assert f"DTSTAMP:{stamp:%Y%m%dT%H%M%S}Z" in text
    assert f"LAST-MODIFIED:{stamp:%Y%m%dT%H%M%S}Z" in text
    assert "SUMMARY:Before DST" in text
    [vevent] = vevents(body)
    assert str(vevent["URL"]) == event["url"]
    assert str(vevent["LOCATION"]) == "Blue Hall, 1 Main St, Springfield, IL, 62701, United States"
    assert "GEO:39.78;-89.65" in text
    assert 'ORGANIZER;CN="Ann Lee":mailto:ann@example.org' in text
    assert "CONTACT:Bob Roe bob@example.org" in text
    assert "CATEGORIES:Music,Night\\, late" in text
    assert "STATUS:CONFIRMED" in text and not any(line.startswith("CLASS") for line in text)
    assert "SEQUENCE:0" in text
    assert "BEGIN:VTIMEZONE" in text and "TZID:America/New_York" in text
    assert "X-WR-CALNAME:Before DST" in text and "NAME:Before DST" in text


def test_utc_and_offset_zones_are_written_with_a_tzid(api: Api, sample: dict[str, t.Any]) -> None:
    text = lines(ok_feed(api.get("/events.ics", query_string=WINDOW)))
    assert "DTSTART;TZID=UTC:20270401T090000" in text  # never the Z form
    assert "TZID:UTC" in text
    assert "DTSTART;TZID=Etc/GMT-2:20270501T120000" in text
    assert 'DTSTART;TZID="UTC+05:30":20270601T120000' in text
    assert "TZID:UTC+05:30" in text
    assert "DTSTART;VALUE=DATE:20270701" in text and "DTEND;VALUE=DATE:20270703" in text
    for vevent in vevents(ok_feed(api.get("/events.ics", query_string=WINDOW))):
        for name in ("DTSTART", "DTEND"):  # never floating
            assert "TZID" in vevent[name].params or vevent[name].params.get("VALUE") == "DATE"
    assert ical_zone("UTC-5").tzid == "Etc/GMT+5" and ical_zone("UTC+0").tzid == "UTC"


def test_calendar_properties(api: Api, sample: dict[str, t.Any]) -> None:
    text = lines(ok_feed(api.get("/events.ics", query_string={"categories": "music"})))
    assert text[:5] == [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        "PRODID:-//calendar_rest//calendar-rest 0.1.0//EN",
        "CALSCALE:GREGORIAN",
        "METHOD:PUBLISH",
    ]
    for line in (
        "X-WR-CALNAME:Events – localhost",
        "NAME:Events – localhost",
        "X-WR-TIMEZONE:UTC",
        "REFRESH-INTERVAL;VALUE=DURATION:PT1H",
        "X-PUBLISHED-TTL:PT1H",
        f"SOURCE;VALUE=URI:http://localhost{NS}/events.ics?categories=music",
    ):
        assert line in text, line


@pytest.mark.parametrize(
    ("zone", "written"),
    [("UTC+2", "Etc/GMT-2"), ("Europe/Paris", "Europe/Paris"), ("UTC+5:30", None)],
)
def test_the_site_zone_and_settings(
    api: Api, sibling_app: Build, zone: str, written: str | None
) -> None:
    other = api_for(
        sibling_app(timezone=zone, calendar_name="Jazz club", feed_refresh_minutes=90), api
    )
    text = lines(ok_feed(other.get("/events.ics")))
    assert (
        ("X-WR-TIMEZONE:" + str(written) in text)
        if written
        else not any(line.startswith("X-WR-TIMEZONE") for line in text)
    )
    assert "X-WR-CALNAME:Jazz club" in text
    assert "REFRESH-INTERVAL;VALUE=DURATION:PT1H30M" in text and "X-PUBLISHED-TTL:PT1H30M" in text


def test_the_french_root(api: Api, sample: dict[str, t.Any]) -> None:
    response = api.get(f"/fr{NS}/events/{sample['utc']['id']}.ics")
    french_json = api.get(f"/fr{NS}/events/{sample['utc']['id']}").json
    [vevent] = vevents(ok_feed(response))
    assert str(vevent["URL"]) == french_json["url"]
    text = lines(ok_feed(api.get(f"/fr{NS}/events.ics")))
    assert "X-WR-CALNAME:Événements – localhost" in text


def test_sequence_and_status(api: Api, sample: dict[str, t.Any]) -> None:
    event = sample["utc"]
    api.patch(f"/events/{event['id']}", ADMIN, json={"description": "new"})
    api.patch(f"/events/{event['id']}", ADMIN, json={"status": "private"})
    text = lines(ok_feed(api.get(f"/events/{event['id']}.ics", ADMIN)))
    assert "SEQUENCE:2" in text
    assert "STATUS:CONFIRMED" in text and "CLASS:PRIVATE" in text
    draft = api.create_event(title="Drafted", status="draft", **_day("2027-08-01"))
    text = lines(ok_feed(api.get(f"/events/{draft['id']}.ics", ADMIN)))
    assert "STATUS:TENTATIVE" in text


def _day(day: str) -> dict[str, str]:
    return {"start_date": f"{day} 10:00:00", "end_date": f"{day} 11:00:00"}


# -- visibility and errors ----------------------------------------------------------------


def test_visibility_is_the_json_archives(api: Api) -> None:
    api.create_event(title="Published", **_day("2027-01-10"))
    api.create_event(title="Drafted", status="draft", **_day("2027-01-11"))
    api.create_event(
        title="Protected", password="s3cret", description="<p>Hidden</p>", **_day("2027-01-12")
    )
    anonymous = descriptions(ok_feed(api.get("/events.ics", query_string=WINDOW)))
    assert set(anonymous) == {"Published", "Protected"}
    assert anonymous["Protected"] is None  # withheld, as the JSON withholds it
    drafts = descriptions(
        ok_feed(api.get("/events.ics", ADMIN, query_string={**WINDOW, "status": "draft"}))
    )
    assert set(drafts) == {"Drafted"}
    unlocked = descriptions(
        ok_feed(api.get("/events.ics", query_string={**WINDOW, "password": "s3cret"}))
    )
    assert unlocked["Protected"] == "Hidden"


def test_errors_stay_json(api: Api) -> None:
    protected = api.create_event(title="Protected", password="s3cret", **_day("2027-01-12"))
    draft = api.create_event(title="Drafted", status="draft", **_day("2027-01-11"))
    assert_wp_error(api.get("/events/999999.ics"), 404, "rest-event-not-found")
    assert_wp_error(api.get(f"/events/{protected['id']}.ics"), 403, "event-password-protected")
    answer = api.get(f"/events/{draft['id']}.ics")
    assert answer.status_code in (401, 403) and answer.content_type.startswith("application/json")
    assert_wp_error(
        api.get("/events.ics", query_string={"categories": "nowhere"}), 400, "rest_invalid_param"
    )
    bad = api.get("/events.ics", headers={"Authorization": "Basic YWRtaW5pc3RyYXRvcjp3cm9uZw=="})
    assert bad.status_code == 401 and bad.content_type.startswith("application/json")
    unlocked = api.get(f"/events/{protected['id']}.ics", query_string={"password": "s3cret"})
    ok_feed(unlocked)


def test_an_empty_feed_is_a_valid_calendar(api: Api) -> None:
    body = ok_feed(api.get("/events.ics"))
    calendar = icalendar.Calendar.from_ical(body)
    assert calendar.walk("VEVENT") == [] and str(calendar["VERSION"]) == "2.0"


def test_the_cap_cuts_the_feed_and_logs_it(
    api: Api, sibling_app: Build, caplog: pytest.LogCaptureFixture
) -> None:
    for day in ("2027-01-01", "2027-01-02", "2027-01-03"):
        api.create_event(title=f"On {day}", **_day(day))
    other = api_for(sibling_app(feed_max_events=2), api)
    with caplog.at_level(logging.WARNING, logger="calendar_rest"):
        body = ok_feed(other.get("/events.ics", query_string=WINDOW))
    assert [str(event["SUMMARY"]) for event in vevents(body)] == ["On 2027-01-01", "On 2027-01-02"]
    assert "feed_max_events" in caplog.text


# -- headers, negotiation, conditional requests ------------------------------------------


def test_headers_of_the_feeds(api: Api, sample: dict[str, t.Any]) -> None:
    archive = api.get("/events.ics")
    assert archive.headers["Content-Disposition"] == 'inline; filename="events.ics"'
    assert archive.headers["ETag"].startswith('"') and varies(archive) == "Origin"
    assert "X-WP-Total" not in archive.headers
    single = api.get(f"/events/{sample['utc']['id']}.ics")
    assert (
        single.headers["Content-Disposition"]
        == f'inline; filename="event-{sample["utc"]["id"]}.ics"'
    )
    modified = parse_date(single.headers["Last-Modified"])
    assert modified is not None
    assert modified.strftime("%Y-%m-%d %H:%M:%S") == sample["utc"]["modified_utc"]
    head = api.request("HEAD", "/events.ics")
    assert head.status_code == 200 and head.get_data() == b""
    assert head.headers["ETag"] == archive.headers["ETag"]


@pytest.mark.parametrize("path", ["/events", "/events/{id}", "/events/by-slug/{slug}"])
def test_accept_negotiation(api: Api, sample: dict[str, t.Any], path: str) -> None:
    event = sample["utc"]
    url = path.format(id=event["id"], slug=event["slug"])
    feed = "/events.ics" if path == "/events" else f"/events/{event['id']}.ics"
    expected = ok_feed(api.get(feed))
    for accept in (None, "*/*", "application/json", BROWSER, "image/png"):
        answer = api.get(url, headers={"Accept": accept} if accept else {})
        assert answer.status_code == 200 and answer.content_type.startswith("application/json")
        assert varies(answer) == "Accept, Origin"
    for accept in ("text/calendar", "text/calendar, application/json;q=0.5"):
        answer = api.get(url, headers={"Accept": accept})
        assert ok_feed(answer) == expected, accept
        assert varies(answer) == "Accept, Origin"
    # on the .ics routes the suffix wins
    assert ok_feed(api.get(feed, headers={"Accept": "application/json"})) == expected
    if path != "/events":  # errors stay JSON, and vary too
        missing = api.get(
            path.format(id=999999, slug="nowhere"), headers={"Accept": "text/calendar"}
        )
        assert missing.status_code in (400, 404) and varies(missing) == "Accept, Origin"
        assert missing.content_type.startswith("application/json")


def test_json_lists_link_their_feed(api: Api, sample: dict[str, t.Any]) -> None:
    link = api.get("/events", query_string={"per_page": 1, "featured": "false"}).headers["Link"]
    feed = f"<http://localhost{NS}/events.ics?per_page=1&featured=false>"
    assert f'{feed}; rel="alternate"; type="text/calendar"' in link
    assert link.index('rel="next"') < link.index("alternate") < link.index("api.w.org")


@pytest.mark.parametrize("caller", [None, ADMIN])
def test_if_none_match_gives_304_also_from_the_cache(
    api: Api, sample: dict[str, t.Any], caller: str | None
) -> None:
    for path, accept in (
        ("/events.ics", None),
        ("/events", "text/calendar"),
        (f"/events/{sample['utc']['id']}.ics", None),
    ):
        headers = {"Accept": accept} if accept else {}
        first = api.get(path, caller, headers=headers)  # stored in the response cache
        etag = first.headers["ETag"]
        for tags in (etag, f"W/{etag}", '"other", ' + etag, "*"):
            again = api.get(path, caller, headers={**headers, "If-None-Match": tags})
            assert again.status_code == 304, (path, tags)
            assert again.get_data() == b"" and "Content-Type" not in again.headers
            assert again.headers["ETag"] == etag
            assert "Origin" in again.headers["Vary"]
            if accept:
                assert varies(again) == "Accept, Origin"
        changed = api.get(path, caller, headers={**headers, "If-None-Match": '"other"'})
        assert changed.status_code == 200 and changed.headers["ETag"] == etag
        since = api.get(
            path, caller, headers={**headers, "If-Modified-Since": first.headers["Last-Modified"]}
        )
        assert since.status_code == 304


def test_the_json_and_calendar_answers_of_one_url_are_cached_apart(
    api: Api, sample: dict[str, t.Any]
) -> None:
    json_first = api.get("/events")
    calendar = api.get("/events", headers={"Accept": "text/calendar"})
    json_again = api.get("/events", headers={"Accept": BROWSER})
    assert calendar.content_type == CALENDAR_TYPE
    assert json_again.get_data() == json_first.get_data()
    assert json_first.headers["ETag"] != calendar.headers["ETag"]


def test_bodies_are_byte_identical_across_instances(
    api: Api, sibling_app: Build, sample: dict[str, t.Any]
) -> None:
    other = api_for(sibling_app(cache_entries=0), api)
    for path in ("/events.ics", f"/events/{sample['before dst']['id']}.ics"):
        first, second = api.get(path, query_string=WINDOW), other.get(path, query_string=WINDOW)
        assert ok_feed(first) == ok_feed(second)
        assert first.headers["ETag"] == second.headers["ETag"]


def test_last_modified_of_the_archive_is_the_last_write(
    api: Api, app: Application, sibling_app: Build
) -> None:
    clock = ManualClock(dt.datetime(2026, 6, 1, 12, 0, 0))
    other = api_for(sibling_app(clock=clock), api)
    event = other.create_event(title="Soon", **_day("2027-01-01"))
    first = other.get("/events.ics")
    assert first.headers["Last-Modified"] == "Mon, 01 Jun 2026 12:00:00 GMT"
    clock.advance(hours=1)
    assert other.delete(f"/events/{event['id']}", ADMIN).status_code == 200
    second = other.get("/events.ics")
    assert second.headers["Last-Modified"] == "Mon, 01 Jun 2026 13:00:00 GMT"
    assert second.headers["ETag"] != first.headers["ETag"]
    stale = other.get("/events.ics", headers={"If-Modified-Since": first.headers["Last-Modified"]})
    assert stale.status_code == 200


# -- series (§4.7) -------------------------------------------------------------------------


MARCH = [dt.datetime(2027, 3, day, 18, 0) for day in (9, 16, 23, 30)] + [
    dt.datetime(2027, 4, 6, 18, 0)
]
RULE = ["RRULE:FREQ=WEEKLY;COUNT=5", "EXDATE;TZID=America/New_York:20270323T180000"]


@pytest.fixture
def series(api: Api, app: Application) -> dict[dt.datetime, int]:
    master = api.create_event(
        title="Weekly",
        timezone=NEW_YORK,
        start_date="2027-03-09 18:00:00",
        end_date="2027-03-09 19:00:00",
    )
    return make_series(
        app,
        master["id"],
        RULE,
        MARCH,
        moved={MARCH[1]: (dt.datetime(2027, 3, 16, 20, 0), "Moved")},
        deleted=[MARCH[2]],
    )


def test_a_series_is_exported_once_whole(
    api: Api, app: Application, series: dict[dt.datetime, int]
) -> None:
    body = ok_feed(api.get("/events.ics", query_string=WINDOW))
    components = vevents(body)
    assert len(components) == 2  # the master and its one exception, not one per occurrence
    master, exception = components
    text = lines(body)
    assert "RRULE:FREQ=WEEKLY;COUNT=5" in text
    assert "EXDATE;TZID=America/New_York:20270323T180000" in text
    assert "RECURRENCE-ID;TZID=America/New_York:20270316T180000" in text
    assert master["UID"] == exception["UID"]
    assert "RECURRENCE-ID" not in master and "RRULE" not in exception
    expected = [
        ("Weekly", "2027-03-09 23:00:00"),
        ("Moved", "2027-03-17 00:00:00"),  # moved to 20:00 EDT
        ("Weekly", "2027-03-30 22:00:00"),
        ("Weekly", "2027-04-06 22:00:00"),
    ]
    assert sorted((item.start, item.summary) for item in read_feed(body)) == [
        (start, summary) for summary, start in expected
    ]
    listed = api.get("/events", query_string={**WINDOW, "per_page": 50}).json["events"]
    assert sorted(item.start for item in read_feed(body)) == sorted(
        e["utc_start_date"] for e in listed
    )


def test_a_window_matching_a_late_occurrence_exports_the_whole_series(
    api: Api, series: dict[dt.datetime, int]
) -> None:
    late = {"start_date": "2027-04-01 00:00:00", "end_date": "2027-04-30 00:00:00"}
    body = ok_feed(api.get("/events.ics", query_string=late))
    assert len(read_feed(body)) == 4


def test_the_single_feed_of_a_master_and_of_an_occurrence(
    api: Api, series: dict[dt.datetime, int]
) -> None:
    master = ok_feed(api.get(f"/events/{series[MARCH[0]]}.ics"))
    assert len(vevents(master)) == 2 and len(read_feed(master)) == 4
    single = ok_feed(api.get(f"/events/{series[MARCH[3]]}.ics"))
    [vevent] = vevents(single)
    assert "RECURRENCE-ID;TZID=America/New_York:20270330T180000" in lines(single)
    assert "RRULE" not in vevent and vevent["UID"] == vevents(master)[0]["UID"]


def test_an_open_ended_series_has_its_zones_rules_with_no_end(api: Api) -> None:
    """A VTIMEZONE listing the changes of a span of years ends with it: a client keeps
    the last offset after it. Each is the zone's rule as yearly RRULEs."""
    api.create_event(
        title="Weekly",
        timezone=NEW_YORK,
        start_date="2027-03-09 18:00:00",
        end_date="2027-03-09 19:00:00",
        recurrence=["RRULE:FREQ=WEEKLY"],
    )
    text = lines(ok_feed(api.get("/events.ics", query_string=WINDOW)))
    start = text.index("TZID:America/New_York")
    zone = text[start : text.index("END:VTIMEZONE", start)]
    assert "RRULE:FREQ=YEARLY;BYDAY=2SU;BYMONTH=3" in zone
    assert "RRULE:FREQ=YEARLY;BYDAY=1SU;BYMONTH=11" in zone
    assert not any(line.startswith(("COMMENT", "RDATE")) for line in zone)


def test_a_zone_named_by_a_recurrence_line_has_its_vtimezone(api: Api) -> None:
    """An EXDATE in another zone than its series' (19:00 in Paris is 13:00 in New
    York): the single feed of the series defines both zones."""
    master = api.create_event(
        title="Weekly",
        timezone="Europe/Paris",
        start_date="2027-03-30 19:00:00",
        end_date="2027-03-30 20:00:00",
        recurrence=["RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE;TZID=America/New_York:20270406T130000"],
    )
    body = ok_feed(api.get(f"/events/{master['id']}.ics"))
    assert {"TZID:Europe/Paris", "TZID:America/New_York"} <= set(lines(body))
    assert [item.start for item in read_feed(body)] == [
        "2027-03-30 17:00:00",
        "2027-04-13 17:00:00",
    ]


# -- /doc, the index, lazy imports ---------------------------------------------------------


def test_doc_and_index_describe_the_feeds(api: Api) -> None:
    paths = api.get("/doc").json["paths"]
    assert list(paths["/events.ics"]["get"]["responses"]["200"]["content"]) == ["text/calendar"]
    assert paths["/events.ics"]["get"]["operationId"] == "get_events_ics"
    assert paths["/events/{id}.ics"]["get"]["operationId"] == "get_events_item_ics"
    for path in ("/events", "/events/{id}"):
        content = paths[path]["get"]["responses"]["200"]["content"]
        assert list(content) == ["application/json", "text/calendar"]
    routes = api.get("/").json["routes"]
    assert f"/{NS.strip('/')}/events.ics" in routes
    assert routes[f"/{NS.strip('/')}/events.ics"]["endpoints"][0]["args"]["categories"]


def test_importing_the_app_or_the_cli_does_not_load_icalendar() -> None:
    code = (
        "import sys, calendar_rest.app, calendar_rest.cli; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('icalendar', 'dateutil')))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(done.stdout.strip().replace("'", '"')) == []


def test_an_enveloped_feed_holds_the_calendar_as_text(api: Api) -> None:
    answer = api.get("/events.ics", query_string={"_envelope": "1"})
    assert answer.status_code == 200 and answer.json["body"].startswith("BEGIN:VCALENDAR")
    assert answer.json["headers"]["Content-Disposition"] == 'inline; filename="events.ics"'
