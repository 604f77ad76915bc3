"""Event status and attendance mode (anchors.md §1): writes and their 400s, the archive
filter, series scopes, ``previous_start_date``, JSON-LD, the iCalendar feed, the
change feed and webhooks, imports and the public pages."""

from __future__ import annotations

import datetime as dt
import typing as t
from pathlib import Path

import icalendar
import pytest
from conftest import NS, Api, api_for, assert_wp_error
from site_helpers import page, shown_ids
from sync_helpers import seen, walk
from test_site_records import json_lds, path_of
from webhook_helpers import messages, payload, subscribe

from calendar_rest import cli
from calendar_rest.app import Application
from calendar_rest.clock import SYSTEM_CLOCK
from calendar_rest.importing.common import ImportOptions
from calendar_rest.importing.tec_status import status_args

Json = dict[str, t.Any]
WINDOW = {"start_date": "2020-01-01", "end_date": "2030-12-31", "per_page": 50}
JOIN = "https://meet.example.org/jazz"
STATUS_KEYS = [
    "event_status",
    "event_status_reason",
    "attendance_mode",
    "online_url",
    "previous_start_date",
]


def slot(days: int = 30, hour: int = 19) -> dict[str, str]:
    start = dt.datetime.now().replace(hour=hour, minute=0, second=0, microsecond=0)
    start += dt.timedelta(days=days)
    return {
        "start_date": start.strftime("%Y-%m-%d %H:%M:%S"),
        "end_date": (start + dt.timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S"),
    }


def titles(api: Api, as_: str | None = None, **query: t.Any) -> list[str]:
    response = api.get("/events", as_, query_string={**WINDOW, **query})
    assert response.status_code == 200, response.get_data(as_text=True)
    return [event["title"] for event in response.json["events"]]


# -- writes and reads -------------------------------------------------------------------


def test_a_new_event_is_scheduled_and_offline(api: Api) -> None:
    event = api.create_event()
    assert {key: event[key] for key in STATUS_KEYS} == {
        "event_status": "scheduled",
        "event_status_reason": "",
        "attendance_mode": "offline",
        "online_url": "",
        "previous_start_date": None,
    }
    keys = list(api.get(f"/events/{event['id']}").json)
    assert keys[keys.index("original_start_date") + 1 :][:5] == STATUS_KEYS


def test_status_fields_are_written_read_and_filtered_by_fields(api: Api) -> None:
    event = api.create_event(
        event_status="canceled",
        event_status_reason="Storm <script>x</script><strong>warning</strong>",
        attendance_mode="mixed",
        online_url=JOIN,
        as_="author",
    )
    assert event["event_status"] == "canceled"
    assert event["event_status_reason"] == "Storm <strong>warning</strong>"  # as excerpts
    assert (event["attendance_mode"], event["online_url"]) == ("mixed", JOIN)
    only = api.get(f"/events/{event['id']}", query_string={"_fields": "id,event_status"})
    assert only.json == {"id": event["id"], "event_status": "canceled"}
    french = api.get(f"/fr{NS}/events/{event['id']}")
    assert french.status_code == 200 and french.json["event_status"] == "canceled"
    changed = api.patch(
        f"/events/{event['id']}", "administrator", json={"event_status": "postponed"}
    )
    assert changed.status_code == 200, changed.json
    assert changed.json["event_status"] == "postponed"
    assert changed.json["online_url"] == JOIN  # untouched fields stay


@pytest.mark.parametrize(
    ("body", "param"),
    [
        ({"event_status": "cancelled"}, "event_status"),
        ({"event_status": 3}, "event_status"),
        ({"attendance_mode": "hybrid"}, "attendance_mode"),
        ({"online_url": "ftp://meet.example.org/x"}, "online_url"),
        ({"online_url": "javascript:alert(1)"}, "online_url"),
        ({"attendance_mode": "online"}, "online_url"),
        ({"attendance_mode": "mixed", "online_url": ""}, "online_url"),
        ({"event_status": "moved_online"}, "online_url"),
        ({"event_status_reason": 5}, "event_status_reason"),
    ],
)
def test_bad_values_are_rest_invalid_param(api: Api, body: Json, param: str) -> None:
    response = api.post("/events", "administrator", json={"title": "x", **slot(), **body})
    error = assert_wp_error(response, 400, "rest_invalid_param")
    assert list(error["data"]["params"]) == [param]


def test_an_update_needs_the_url_the_event_as_left_would_lack(api: Api) -> None:
    event = api.create_event()
    path = f"/events/{event['id']}"
    refused = api.patch(path, "administrator", json={"attendance_mode": "online"})
    assert list(assert_wp_error(refused, 400, "rest_invalid_param")["data"]["params"]) == [
        "online_url"
    ]
    ok = api.patch(path, "administrator", json={"attendance_mode": "online", "online_url": JOIN})
    assert ok.status_code == 200 and ok.json["attendance_mode"] == "online"
    moved = api.patch(path, "administrator", json={"event_status": "moved_online"})
    assert moved.status_code == 200  # the stored URL serves
    cleared = api.patch(path, "administrator", json={"online_url": ""})
    assert_wp_error(cleared, 400, "rest_invalid_param")
    offline = api.patch(
        path,
        "administrator",
        json={"attendance_mode": "offline", "event_status": "scheduled", "online_url": ""},
    )
    assert offline.status_code == 200 and offline.json["online_url"] == ""


def test_a_password_hides_the_reason_and_the_url_not_the_status(api: Api) -> None:
    event = api.create_event(
        password="secret",
        event_status="postponed",
        event_status_reason="Until spring",
        attendance_mode="online",
        online_url=JOIN,
    )
    (shown,) = api.get("/events", query_string=WINDOW).json["events"]
    assert api.get(f"/events/{event['id']}").status_code == 403
    assert (shown["event_status"], shown["attendance_mode"]) == ("postponed", "online")
    assert (shown["event_status_reason"], shown["online_url"]) == ("", "")


def test_previous_start_date_follows_a_rescheduling(api: Api) -> None:
    first, later = slot(10), slot(20)
    event = api.create_event(**first)
    path = f"/events/{event['id']}"
    moved = api.patch(path, "administrator", json=later).json
    assert moved["previous_start_date"] is None  # a scheduled event just moves
    back = api.patch(path, "administrator", json={"event_status": "rescheduled", **first}).json
    assert back["event_status"] == "rescheduled"
    assert back["previous_start_date"] == later["start_date"]
    titled = api.patch(path, "administrator", json={"title": "Still rescheduled"}).json
    assert titled["previous_start_date"] == later["start_date"]  # no move, kept
    ld = api.get(path).json["json_ld"]
    assert ld["eventStatus"] == "https://schema.org/EventRescheduled"
    assert ld["previousStartDate"].startswith(later["start_date"].replace(" ", "T"))


# -- the archive filter -----------------------------------------------------------------


def test_the_archive_lists_every_status_and_filters_as_a_list(api: Api) -> None:
    api.create_event(title="On", **slot(5))
    api.create_event(title="Off", event_status="canceled", **slot(6))
    api.create_event(title="Later", event_status="postponed", **slot(7))
    assert titles(api) == ["On", "Off", "Later"]  # a cancelled event stays listed
    assert titles(api, event_status="canceled") == ["Off"]
    assert titles(api, event_status="canceled,postponed") == ["Off", "Later"]
    assert titles(api, **{"event_status[]": ["scheduled", "postponed"]}) == ["On", "Later"]
    repeated = api.get(
        "/events",
        query_string=[*WINDOW.items(), *(("event_status", s) for s in ("scheduled", "canceled"))],
    )
    assert [e["title"] for e in repeated.json["events"]] == ["On", "Off"]
    every = "scheduled,canceled,postponed,rescheduled,moved_online"
    assert titles(api, event_status=every) == ["On", "Off", "Later"]
    listed = api.get("/events", query_string={**WINDOW, "event_status": "postponed,canceled"})
    assert "&event_status=canceled,postponed" in listed.json["rest_url"]
    assert listed.json["total"] == 2
    bad = api.get("/events", query_string={"event_status": "gone"})
    assert list(assert_wp_error(bad, 400, "rest_invalid_param")["data"]["params"]) == [
        "event_status"
    ]


def test_the_filter_is_one_condition_on_the_archive_index(
    api: Api, sql_statements: list[str]
) -> None:
    for day in range(3):
        api.create_event(title=f"E{day}", event_status="canceled", **slot(5 + day))
    sql_statements.clear()
    assert titles(api, event_status="canceled") == ["E0", "E1", "E2"]
    reads = [s for s in sql_statements if "event_status" in s]
    assert reads and all("IN" in s.upper() for s in reads)
    assert len(sql_statements) < 12  # no statement per event


# -- series -----------------------------------------------------------------------------


def series(api: Api) -> tuple[Json, list[Json]]:
    start = dt.datetime.now().replace(hour=18, minute=0, second=0, microsecond=0)
    start += dt.timedelta(days=3)
    master = api.create_event(
        title="Weekly",
        start_date=start.strftime("%Y-%m-%d %H:%M:%S"),
        end_date=(start + dt.timedelta(hours=1)).strftime("%Y-%m-%d %H:%M:%S"),
        recurrence=["RRULE:FREQ=WEEKLY;COUNT=4"],
    )
    rows = api.get(
        f"/events/{master['id']}/occurrences", "administrator", query_string=WINDOW
    ).json["events"]
    assert len(rows) == 4
    return master, rows


def statuses(api: Api, master_id: int) -> list[str]:
    rows = api.get(f"/events/{master_id}/occurrences", "administrator", query_string=WINDOW)
    return [row["event_status"] for row in rows.json["events"]]


def test_a_series_status_applies_by_scope(api: Api) -> None:
    master, rows = series(api)
    one = api.patch(
        f"/events/{rows[1]['id']}",
        "administrator",
        json={"event_status": "canceled", "scope": "this"},
    )
    assert one.status_code == 200, one.json
    assert statuses(api, master["id"]) == ["scheduled", "canceled", "scheduled", "scheduled"]
    every = api.patch(
        f"/events/{rows[0]['id']}",
        "administrator",
        json={"attendance_mode": "online", "online_url": JOIN, "scope": "all"},
    )
    assert every.status_code == 200, every.json
    listed = api.get(
        f"/events/{master['id']}/occurrences", "administrator", query_string=WINDOW
    ).json["events"]
    assert [row["attendance_mode"] for row in listed] == ["online"] * 4
    following = api.patch(
        f"/events/{rows[2]['id']}",
        "administrator",
        json={"event_status": "postponed", "scope": "following"},
    )
    assert following.status_code == 200, following.json
    new_master = following.json["id"]
    assert statuses(api, master["id"]) == ["scheduled", "canceled"]
    assert statuses(api, new_master) == ["postponed", "postponed"]


def test_a_series_rescheduled_as_a_whole_keeps_each_previous_start(api: Api) -> None:
    master, rows = series(api)
    start = dt.datetime.strptime(rows[0]["start_date"], "%Y-%m-%d %H:%M:%S")
    moved = {
        "event_status": "rescheduled",
        "start_date": (start + dt.timedelta(hours=2)).strftime("%Y-%m-%d %H:%M:%S"),
        "end_date": (start + dt.timedelta(hours=3)).strftime("%Y-%m-%d %H:%M:%S"),
        "scope": "all",
    }
    answer = api.patch(f"/events/{rows[0]['id']}", "administrator", json=moved)
    assert answer.status_code == 200, answer.json
    listed = api.get(
        f"/events/{master['id']}/occurrences", "administrator", query_string=WINDOW
    ).json["events"]
    assert [row["previous_start_date"] for row in listed] == [row["start_date"] for row in rows]
    assert {row["event_status"] for row in listed} == {"rescheduled"}


# -- JSON-LD, feeds, change feed and webhooks ------------------------------------------


@pytest.mark.parametrize(
    ("status", "schema"),
    [
        ("scheduled", "EventScheduled"),
        ("canceled", "EventCancelled"),
        ("postponed", "EventPostponed"),
        ("rescheduled", "EventRescheduled"),
        ("moved_online", "EventMovedOnline"),
    ],
)
def test_json_ld_event_status(api: Api, status: str, schema: str) -> None:
    extra = {"online_url": JOIN} if status == "moved_online" else {}
    event = api.create_event(event_status=status, **extra)
    ld = api.get(f"/events/{event['id']}").json["json_ld"]
    if status == "scheduled":  # key for key as TEC's REST answer; its page says it
        assert "eventStatus" not in ld
        ld = json_lds(page(api, path_of(event["url"])).get_data(as_text=True))[0]
    assert ld["eventStatus"] == f"https://schema.org/{schema}"


def test_json_ld_attendance_and_virtual_location(api: Api) -> None:
    venue = {"venue": "Harbor Hall", "city": "Boston"}
    offline = api.create_event(venue=venue)
    ld = api.get(f"/events/{offline['id']}").json["json_ld"]
    assert ld["eventAttendanceMode"] == "https://schema.org/OfflineEventAttendanceMode"
    assert ld["location"]["@type"] == "Place"
    online = api.create_event(attendance_mode="online", online_url=JOIN)
    ld = api.get(f"/events/{online['id']}").json["json_ld"]
    assert ld["eventAttendanceMode"] == "https://schema.org/OnlineEventAttendanceMode"
    assert ld["location"] == {"@type": "VirtualLocation", "url": JOIN}
    mixed = api.create_event(attendance_mode="mixed", online_url=JOIN, venue=venue)
    ld = api.get(f"/events/{mixed['id']}").json["json_ld"]
    assert ld["eventAttendanceMode"] == "https://schema.org/MixedEventAttendanceMode"
    place, virtual = ld["location"]
    assert place["@type"] == "Place" and place["name"] == "Harbor Hall"
    assert virtual == {"@type": "VirtualLocation", "url": JOIN}


def vevent(api: Api, event_id: int) -> t.Any:
    body = api.get(f"/events/{event_id}.ics").get_data()
    (found,) = icalendar.Calendar.from_ical(body).walk("VEVENT")
    return found


def test_the_feed_says_cancelled_and_where_to_join(api: Api) -> None:
    kept = api.create_event(title="Kept")
    gone = api.create_event(
        title="Gone", event_status="canceled", attendance_mode="online", online_url=JOIN
    )
    assert str(vevent(api, kept["id"])["STATUS"]) == "CONFIRMED"
    cancelled = vevent(api, gone["id"])
    assert str(cancelled["STATUS"]) == "CANCELLED"
    assert str(cancelled["URL"]) == gone["url"]
    assert str(cancelled["CONFERENCE"]) == JOIN
    assert cancelled["CONFERENCE"].params["VALUE"] == "URI"
    assert "CONFERENCE" not in vevent(api, kept["id"])
    feed = api.get("/events.ics", query_string=WINDOW).get_data()
    summaries = {
        str(item["SUMMARY"]): str(item["STATUS"])
        for item in icalendar.Calendar.from_ical(feed).walk("VEVENT")
    }
    assert summaries == {"Kept": "CONFIRMED", "Gone": "CANCELLED"}  # still in the feed


def test_a_status_change_is_an_update_in_the_change_feed_and_webhooks(
    api: Api, sibling_app: t.Callable[..., Application], app: Application
) -> None:
    hooks = api_for(sibling_app(webhook_allow_private=True), api)
    event = hooks.create_event(title="Concert")
    _, token = walk(hooks)
    subscription = subscribe(hooks, "http://127.0.0.1:9/hook", ["event.updated"])
    changed = hooks.patch(
        f"/events/{event['id']}",
        "administrator",
        json={"event_status": "canceled", "event_status_reason": "Ill singer"},
    )
    assert changed.status_code == 200
    entries, _ = walk(hooks, sync_token=token)
    assert seen(entries) == [("event", event["id"], "upsert")]
    queued = messages(app, subscription["id"])
    assert [m.type for m in queued] == ["event.updated"]
    record = payload(queued[0])["data"]["record"]
    assert (record["event_status"], record["event_status_reason"]) == ("canceled", "Ill singer")


# -- imports ----------------------------------------------------------------------------

ICS = (
    "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
    "BEGIN:VEVENT\r\nUID:gone@example.org\r\nDTSTART:20260612T193000Z\r\n"
    "DTEND:20260612T213000Z\r\nSUMMARY:Gone\r\nSTATUS:CANCELLED\r\nEND:VEVENT\r\n"
    "BEGIN:VEVENT\r\nUID:call@example.org\r\nDTSTART:20260613T193000Z\r\n"
    "DTEND:20260613T213000Z\r\nSUMMARY:Call\r\n"
    "CONFERENCE;VALUE=URI;FEATURE=VIDEO:https://meet.example.org/call\r\nEND:VEVENT\r\n"
    "END:VCALENDAR\r\n"
)


def test_an_ics_import_reads_cancelled_and_conference(
    api: Api, database_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LANGUAGE", "en")
    path = tmp_path / "status.ics"
    path.write_text(ICS)
    assert cli.main(["--database", database_url, "import", "--quiet", str(path)]) == 0
    events = {
        e["title"]: e
        for e in api.get("/events", "administrator", query_string=WINDOW).json["events"]
    }
    assert events["Gone"]["event_status"] == "canceled"  # kept, marked
    assert events["Call"]["attendance_mode"] == "online"
    assert events["Call"]["online_url"] == "https://meet.example.org/call"
    assert cli.main(["--database", database_url, "import", "--quiet", str(path)]) == 0
    path.write_text(ICS.replace("STATUS:CANCELLED\r\n", ""))
    assert cli.main(["--database", database_url, "import", "--quiet", str(path)]) == 0
    again = api.get("/events", "administrator", query_string=WINDOW).json["events"]
    assert {e["title"]: e["event_status"] for e in again} == {
        "Gone": "scheduled",
        "Call": "scheduled",
    }


def test_tec_status_fields_are_mapped() -> None:
    options = ImportOptions("UTC", SYSTEM_CLOCK)
    assert status_args(options, {"_tribe_events_status": "canceled"}) == {
        "event_status": "canceled"
    }
    meta = {
        "meta": {
            "_tribe_events_status": ["postponed"],
            "_tribe_events_status_reason": ["Rain"],
            "_tribe_events_is_virtual": ["yes"],
            "_tribe_virtual_events_type": ["hybrid"],
            "_tribe_events_virtual_url": [JOIN],
        }
    }
    assert status_args(options, meta) == {
        "event_status": "postponed",
        "event_status_reason": "Rain",
        "attendance_mode": "mixed",
        "online_url": JOIN,
    }
    rest = {"is_virtual": True, "virtual_url": JOIN, "tribe_events_status": "moved_online"}
    assert status_args(options, rest) == {
        "event_status": "moved_online",
        "attendance_mode": "online",
        "online_url": JOIN,
    }
    assert status_args(options, {"_tribe_events_status": "moved_online"}) == {}
    assert status_args(options, {"is_virtual": True, "virtual_url": "ftp://x"}) == {}
    own = {"event_status": "rescheduled", "attendance_mode": "mixed", "online_url": JOIN}
    assert status_args(options, own) == own


# -- the public pages ------------------------------------------------------------------


def test_pages_show_the_status_with_its_reason(api: Api) -> None:
    event = api.create_event(
        title="Open air",
        event_status="canceled",
        event_status_reason="Storm <strong>warning</strong>",
        attendance_mode="mixed",
        online_url=JOIN,
        venue={"venue": "Park"},
        **slot(2),
    )
    listing = page(api, "/events/list/")
    body = listing.get_data(as_text=True)
    assert shown_ids(listing) == [event["id"]]
    assert 'class="event event--canceled"' in body
    assert (
        '<strong>Canceled</strong> <span class="event__status-reason">Storm '
        "<strong>warning</strong></span>" in body
    )
    single = page(api, event["url"].removeprefix("http://localhost")).get_data(as_text=True)
    assert '<p class="event__status event__status--canceled" role="status">' in single
    assert f'<a href="{JOIN}" rel="external">Join online</a>' in single
    assert '"eventStatus":"https://schema.org/EventCancelled"' in single
    assert '"@type":"VirtualLocation"' in single
    api.create_event(title="Plein air", event_status="postponed", i18n_language="fr", **slot(3))
    french = page(api, "/fr/events/list/").get_data(as_text=True)
    assert "<strong>Reporté</strong>" in french
