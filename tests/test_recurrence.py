"""Recurring series (calendar.md §4): rules and their 400s, expansion (DST, COUNT,
EXDATE, RDATE, cap, horizon), reads, scoped edits and deletes, roll-forward,
visibility, search and the change feed."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
import time
import typing as t

import pytest
from conftest import Api, api_for, assert_wp_error

from calendar_rest.app import Application
from calendar_rest.cli.series import roll_forward
from calendar_rest.clock import ManualClock

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
Json = dict[str, t.Any]


@pytest.fixture
def cal(api: Api, sibling_app: t.Callable[..., Application]) -> Api:
    """A client whose app's clock stands still at ``NOW``."""
    return api_for(sibling_app(clock=ManualClock(NOW)), api)


def create(cal: Api, recurrence: t.Any, as_: str = "administrator", **fields: t.Any) -> Json:
    body = {
        "title": "Jazz Night",
        "start_date": "2026-03-02 18:00:00",
        "end_date": "2026-03-02 20:00:00",
        "timezone": "America/New_York",
        "recurrence": recurrence,
        **fields,
    }
    response = cal.post("/events", as_, json=body)
    assert response.status_code == 201, response.get_data(as_text=True)
    return t.cast(Json, response.json)


def occurrences(cal: Api, event_id: int, as_: str | None = "administrator", **query: t.Any) -> Json:
    params = {"start_date": "2020-01-01", "end_date": "2030-12-31", "per_page": 50, **query}
    response = cal.get(f"/events/{event_id}/occurrences", as_, query_string=params)
    assert response.status_code == 200, response.get_data(as_text=True)
    return t.cast(Json, response.json)


def starts(listing: Json | list[Json], key: str = "start_date") -> list[str]:
    events = listing["events"] if isinstance(listing, dict) else listing
    return [event[key] for event in events]


def bad_recurrence(cal: Api, recurrence: t.Any) -> str:
    body = {"title": "x", "start_date": "2026-06-01 10:00:00", "end_date": "2026-06-01 11:00:00"}
    response = cal.post("/events", "administrator", json={**body, "recurrence": recurrence})
    error = assert_wp_error(response, 400, "rest_invalid_param")
    assert list(error["data"]["params"]) == ["recurrence"]
    return t.cast(str, error["data"]["params"]["recurrence"])


# -- rules -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("recurrence", "message"),
    [
        (["RRULE:FREQ=SOMETIMES"], 'recurrence[0] "RRULE:FREQ=SOMETIMES": unknown FREQ'),
        ("RRULE:FREQ=DAILY", "recurrence must be an array of strings, or null."),
        ([1], "recurrence must be an array of strings, or null."),
        (
            ["EXRULE:FREQ=DAILY"],
            'recurrence[0] "EXRULE:FREQ=DAILY": only RRULE, RDATE and EXDATE lines are allowed',
        ),
        (
            ["RRULE:FREQ=DAILY", "RRULE:FREQ=WEEKLY"],
            'recurrence[1] "RRULE:FREQ=WEEKLY": only one RRULE is allowed',
        ),
        (["RRULE:FREQ=DAILY;COUNT=abc"], 'recurrence[0] "RRULE:FREQ=DAILY;COUNT=abc": invalid'),
        (["RRULE:FREQ=MONTHLY;BYMONTH=13"], "invalid value of BYMONTH"),
        (["RRULE:FREQ=DAILY;FOO=1"], "unknown rule part FOO"),
        (["RRULE:FREQ=DAILY;COUNT=2;UNTIL=20260701"], "COUNT and UNTIL cannot be used together"),
        (["RDATE:2026-06-10"], 'recurrence[0] "RDATE:2026-06-10": invalid date 2026-06-10'),
        (["RDATE;TZID=Mars/Base:20260610T100000"], "unknown TZID Mars/Base"),
        (["RDATE;VALUE=PERIOD:20260610T100000Z/PT1H"], "PERIOD values are not supported"),
        (["RRULE:INTERVAL=2"], "FREQ is required"),
    ],
)
def test_bad_rules_are_refused_naming_the_line(cal: Api, recurrence: t.Any, message: str) -> None:
    assert message in bad_recurrence(cal, recurrence)
    assert cal.get("/events", "administrator").json["total"] == 0


def test_the_spec_example_message_is_exact(cal: Api) -> None:
    body = {"title": "x", "start_date": "2026-06-01 10:00:00", "end_date": "2026-06-01 11:00:00"}
    response = cal.post(
        "/events", "administrator", json={**body, "recurrence": ["RRULE:FREQ=SOMETIMES"]}
    )
    assert response.json == {
        "code": "rest_invalid_param",
        "message": "Invalid parameter(s): recurrence",
        "data": {
            "status": 400,
            "params": {"recurrence": 'recurrence[0] "RRULE:FREQ=SOMETIMES": unknown FREQ'},
            "details": response.json["data"]["details"],
        },
    }


def test_lines_are_trimmed_upper_cased_and_a_floating_until_becomes_utc(cal: Api) -> None:
    master = create(
        cal, ["  rrule:FREQ=WEEKLY;COUNT=3 ", "exdate;TZID=America/New_York:20260309T180000"]
    )
    assert master["recurrence"] == [
        "RRULE:FREQ=WEEKLY;COUNT=3",
        "EXDATE;TZID=America/New_York:20260309T180000",
    ]
    until = create(cal, ["RRULE:FREQ=WEEKLY;UNTIL=20260316T180000"])
    assert until["recurrence"] == ["RRULE:FREQ=WEEKLY;UNTIL=20260316T220000Z"]
    assert len(occurrences(cal, until["id"])["events"]) == 3


def test_null_and_empty_mean_not_recurring(cal: Api) -> None:
    for value in (None, []):
        event = create(cal, value)
        assert (event["recurrence"], event["recurring_event_id"]) == ([], None)
        assert event["original_start_date"] is None


def test_the_cap_refuses_an_open_ended_minutely_rule_fast(cal: Api) -> None:
    began = time.monotonic()
    message = bad_recurrence(cal, ["RRULE:FREQ=MINUTELY"])
    assert time.monotonic() - began < 2
    assert (
        message
        == 'recurrence[0] "RRULE:FREQ=MINUTELY": more than 2000 occurrences before 2028-02-29'
    )


def test_importing_the_app_or_the_cli_does_not_load_dateutil() -> None:
    code = "import sys, calendar_rest.app, calendar_rest.cli; print('dateutil' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"


# -- expansion ---------------------------------------------------------------------------


def test_weekly_series_keep_their_wall_clock_across_dst(cal: Api) -> None:
    master = create(
        cal,
        ["RRULE:FREQ=WEEKLY;COUNT=40"],
        start_date="2026-02-26 18:00:00",
        end_date="2026-02-26 19:00:00",
    )
    listing = occurrences(cal, master["id"])
    events = {event["start_date"][:10]: event for event in listing["events"]}
    assert {event["start_date"][11:] for event in listing["events"]} == {"18:00:00"}
    assert events["2026-03-05"]["utc_start_date"] == "2026-03-05 23:00:00"  # EST
    assert events["2026-03-12"]["utc_start_date"] == "2026-03-12 22:00:00"  # EDT
    assert events["2026-10-29"]["utc_start_date"] == "2026-10-29 22:00:00"
    assert events["2026-11-05"]["utc_start_date"] == "2026-11-05 23:00:00"


def test_count_counts_before_exdate_and_rdate_takes_the_duration(cal: Api) -> None:
    master = create(
        cal,
        [
            "RRULE:FREQ=DAILY;COUNT=4",
            "EXDATE;TZID=America/New_York:20260602T100000",
            "RDATE:20260610T140000Z",
        ],
        start_date="2026-06-01 10:00:00",
        end_date="2026-06-01 11:30:00",
    )
    listing = occurrences(cal, master["id"])
    assert starts(listing) == [
        "2026-06-01 10:00:00",
        "2026-06-03 10:00:00",
        "2026-06-04 10:00:00",
        "2026-06-10 10:00:00",
    ]
    assert listing["events"][-1]["end_date"] == "2026-06-10 11:30:00"


def test_an_open_ended_monthly_series_exists_up_to_the_horizon(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=MONTHLY"])
    listing = occurrences(cal, master["id"])
    assert 24 <= listing["total"] <= 25
    last = listing["events"][-1]["start_date"]
    assert "2028-01" < last[:7] <= "2028-03"


def test_occurrences_have_dated_slugs_and_the_masters_fields(cal: Api) -> None:
    master = create(
        cal,
        ["RRULE:FREQ=DAILY;COUNT=2", "RDATE;TZID=America/New_York:20260302T210000"],
        categories=["Music"],
        venue={"venue": "Blue Hall"},
        organizer=[{"organizer": "Ann"}],
    )
    listing = occurrences(cal, master["id"])["events"]
    assert [event["slug"] for event in listing] == [
        "jazz-night",
        "jazz-night-2026-03-02-2100",
        "jazz-night-2026-03-03",
    ]
    for event in listing[1:]:
        assert event["recurring_event_id"] == master["id"]
        assert event["recurrence"] == master["recurrence"]
        assert event["categories"][0]["name"] == "Music"
        assert event["venue"]["venue"] == "Blue Hall"
        assert event["organizer"][0]["organizer"] == "Ann"
    assert master["original_start_date"] == "2026-03-02 18:00:00"
    assert listing[2]["original_start_date"] == "2026-03-03 18:00:00"
    single = cal.get(f"/events/{listing[2]['id']}", "administrator").json
    assert (single["recurring_event_id"], single["original_start_date"]) == (
        master["id"],
        "2026-03-03 18:00:00",
    )


# -- reads -------------------------------------------------------------------------------


def test_hide_subsequent_recurrences_keeps_the_next_one_and_counts_after_hiding(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=5"])
    lone = cal.post(
        "/events",
        "administrator",
        json={
            "title": "Lone",
            "start_date": "2026-03-04 09:00:00",
            "end_date": "2026-03-04 10:00:00",
        },
    ).json
    query = {"start_date": "2026-03-04", "end_date": "2026-12-31"}
    full = cal.get("/events", "administrator", query_string=query).json
    assert full["total"] == 4
    hidden = cal.get(
        "/events", "administrator", query_string={**query, "hide_subsequent_recurrences": "true"}
    )
    body = hidden.json
    assert [event["id"] for event in body["events"]][0] == lone["id"]
    assert body["events"][1]["start_date"] == "2026-03-04 18:00:00"
    assert body["total"] == 2 and hidden.headers["X-WP-Total"] == "2"
    assert "hide_subsequent_recurrences=true" in body["rest_url"]
    assert master["id"] not in [event["id"] for event in body["events"]]


def test_the_occurrences_route_lists_the_series_from_master_or_occurrence(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=WEEKLY;COUNT=3"])
    from_master = occurrences(cal, master["id"])
    other = from_master["events"][1]["id"]
    response = cal.get(
        f"/events/{other}/occurrences",
        "administrator",
        query_string={"start_date": "2020-01-01", "end_date": "2030-12-31", "per_page": 2},
    )
    assert [e["id"] for e in response.json["events"]] == [
        e["id"] for e in from_master["events"][:2]
    ]
    assert response.json["total"] == 3 and response.headers["X-WP-TotalPages"] == "2"
    assert f"/events/{other}/occurrences/" in response.json["rest_url"]
    assert "page=2" in response.json["next_rest_url"]
    lone = cal.create_event(title="Lone")
    assert [e["id"] for e in occurrences(cal, lone["id"], start_date="2000-01-01")["events"]] == [
        lone["id"]
    ]
    assert_wp_error(cal.get("/events/999999/occurrences"), 404, "rest-event-not-found")


def test_a_draft_series_is_invisible_to_anonymous_readers(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=3"], status="draft", title="Secret rehearsal")
    other = occurrences(cal, master["id"])["events"][1]["id"]
    window = {"start_date": "2020-01-01", "end_date": "2030-12-31"}
    assert cal.get("/events", query_string=window).json["total"] == 0
    assert cal.get("/events", query_string={**window, "search": "rehearsal"}).json["total"] == 0
    assert_wp_error(cal.get(f"/events/{other}"), 403, "event-not-accessible")
    assert_wp_error(cal.get(f"/events/{master['id']}/occurrences"), 403, "event-not-accessible")
    assert_wp_error(cal.get(f"/events/{other}/occurrences"), 403, "event-not-accessible")
    found = cal.get("/events", "administrator", query_string={**window, "search": "rehearsal"})
    assert found.json["total"] == 3


# -- edits -------------------------------------------------------------------------------


def test_ids_stay_across_reads_roll_forward_and_edits(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=WEEKLY"])
    ids = [e["id"] for e in occurrences(cal, master["id"], per_page=200)["events"]]
    assert [e["id"] for e in occurrences(cal, master["id"])["events"]] == ids[:50]
    patched = cal.patch(f"/events/{master['id']}", "administrator", json={"title": "Renamed"})
    assert patched.status_code == 200
    after = occurrences(cal, master["id"])["events"]
    assert [e["id"] for e in after] == ids[:50]
    assert {e["title"] for e in after} == {"Renamed"}


def test_an_exception_changes_one_occurrence_and_survives_series_edits(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=4"], description="Base text")
    listing = occurrences(cal, master["id"])["events"]
    third = listing[2]["id"]
    response = cal.patch(
        f"/events/{third}",
        "administrator",
        json={
            "title": "Special guest",
            "start_date": "2026-03-04 19:00:00",
            "end_date": "2026-03-04 21:00:00",
        },
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.json["id"] == third and response.json["title"] == "Special guest"
    assert response.json["original_start_date"] == "2026-03-04 18:00:00"
    cal.patch(
        f"/events/{master['id']}",
        "administrator",
        json={"title": "Jazz Night II", "description": "New text"},
    )
    after = {e["id"]: e for e in occurrences(cal, master["id"])["events"]}
    assert after[third]["title"] == "Special guest"
    assert after[third]["start_date"] == "2026-03-04 19:00:00"
    assert "New text" in after[third]["description"]
    assert after[listing[1]["id"]]["title"] == "Jazz Night II"
    assert after[master["id"]]["title"] == "Jazz Night II"


def test_series_fields_are_refused_with_scope_this(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=3"])
    other = occurrences(cal, master["id"])["events"][1]["id"]
    for field, value in (("status", "draft"), ("recurrence", ["RRULE:FREQ=DAILY;COUNT=9"])):
        response = cal.patch(f"/events/{other}", "administrator", json={field: value})
        error = assert_wp_error(response, 400, "rest_invalid_param")
        assert list(error["data"]["params"]) == [field]
    same = cal.patch(
        f"/events/{other}?scope=this",
        "administrator",
        json={"recurrence": master["recurrence"], "title": "Kept"},
    )
    assert same.status_code == 200 and same.json["title"] == "Kept"
    bad_scope = cal.patch(f"/events/{other}", "administrator", json={"scope": "some"})
    assert list(assert_wp_error(bad_scope, 400, "rest_invalid_param")["data"]["params"]) == [
        "scope"
    ]


def test_scope_all_on_an_occurrence_moves_the_whole_series(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=3"])
    listing = occurrences(cal, master["id"])["events"]
    response = cal.patch(
        f"/events/{listing[1]['id']}",
        "administrator",
        json={
            "scope": "all",
            "start_date": "2026-03-03 19:00:00",
            "end_date": "2026-03-03 21:00:00",
        },
    )
    assert response.status_code == 200 and response.json["id"] == master["id"]
    after = occurrences(cal, master["id"])["events"]
    assert [e["id"] for e in after] == [e["id"] for e in listing]
    assert starts(after) == ["2026-03-02 19:00:00", "2026-03-03 19:00:00", "2026-03-04 19:00:00"]
    assert after[1]["original_start_date"] == "2026-03-03 19:00:00"


def test_a_rule_change_keeps_ids_and_exceptions_whose_date_survives(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=6"])
    listing = occurrences(cal, master["id"])["events"]
    cal.patch(f"/events/{listing[2]['id']}", "administrator", json={"title": "Kept exception"})
    cal.patch(f"/events/{listing[3]['id']}", "administrator", json={"title": "Lost exception"})
    response = cal.patch(
        f"/events/{master['id']}",
        "administrator",
        json={"recurrence": ["RRULE:FREQ=DAILY;INTERVAL=2;COUNT=4"]},
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    after = occurrences(cal, master["id"])["events"]
    assert starts(after) == [
        "2026-03-02 18:00:00",
        "2026-03-04 18:00:00",
        "2026-03-06 18:00:00",
        "2026-03-08 18:00:00",
    ]
    assert [e["id"] for e in after[:3]] == [listing[0]["id"], listing[2]["id"], listing[4]["id"]]
    assert after[1]["title"] == "Kept exception"
    assert after[3]["id"] not in {e["id"] for e in after[:3]}
    assert cal.get(f"/events/{listing[3]['id']}", "administrator").status_code == 404


def test_a_split_starts_a_new_series_with_the_later_occurrences(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=5"])
    listing = occurrences(cal, master["id"])["events"]
    cal.patch(f"/events/{listing[4]['id']}", "administrator", json={"excerpt": "own"})
    response = cal.patch(
        f"/events/{listing[2]['id']}?scope=following", "administrator", json={"title": "Later"}
    )
    assert response.status_code == 200, response.get_data(as_text=True)
    new_master = response.json
    assert new_master["id"] == listing[2]["id"]
    assert new_master["recurrence"] == ["RRULE:FREQ=DAILY;COUNT=3"]
    assert new_master["recurring_event_id"] is None
    old = occurrences(cal, master["id"])
    assert [e["id"] for e in old["events"]] == [listing[0]["id"], listing[1]["id"]]
    assert old["events"][0]["recurrence"] == ["RRULE:FREQ=DAILY;UNTIL=20260304T225959Z"]
    new = occurrences(cal, new_master["id"])["events"]
    assert [e["id"] for e in new] == [e["id"] for e in listing[2:]]
    assert {e["title"] for e in new} == {"Later"}
    assert [e["recurring_event_id"] for e in new] == [None, new_master["id"], new_master["id"]]
    assert "own" in new[2]["excerpt"]


# -- deletes -----------------------------------------------------------------------------


def test_deleting_one_occurrence_adds_an_exdate(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=3"])
    listing = occurrences(cal, master["id"])["events"]
    response = cal.delete(f"/events/{listing[1]['id']}", "administrator")
    assert response.status_code == 200 and response.json["status"] == "trash"
    after = occurrences(cal, master["id"])["events"]
    assert [e["id"] for e in after] == [listing[0]["id"], listing[2]["id"]]
    assert after[0]["recurrence"][-1] == "EXDATE;TZID=America/New_York:20260303T180000"


def test_deleting_following_truncates_the_series(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=4"])
    listing = occurrences(cal, master["id"])["events"]
    response = cal.delete(f"/events/{listing[2]['id']}?scope=following", "administrator")
    assert response.status_code == 200 and response.json["id"] == listing[2]["id"]
    after = occurrences(cal, master["id"])["events"]
    assert [e["id"] for e in after] == [listing[0]["id"], listing[1]["id"]]
    assert after[0]["recurrence"] == ["RRULE:FREQ=DAILY;UNTIL=20260304T225959Z"]


@pytest.mark.parametrize("target", ["master", "occurrence"])
def test_deleting_the_whole_series(cal: Api, target: str) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=3"])
    listing = occurrences(cal, master["id"])["events"]
    path = (
        f"/events/{master['id']}" if target == "master" else f"/events/{listing[1]['id']}?scope=all"
    )
    assert cal.delete(path, "administrator").status_code == 200
    for event in listing:
        assert_wp_error(cal.get(f"/events/{event['id']}"), 403, "event-no-longer-available")
    window = {"start_date": "2020-01-01", "end_date": "2030-12-31"}
    assert cal.get("/events", "administrator", query_string=window).json["total"] == 0


def test_deleting_the_master_alone_promotes_the_next_occurrence(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=3"])
    listing = occurrences(cal, master["id"])["events"]
    response = cal.delete(f"/events/{master['id']}?scope=this", "administrator")
    assert response.status_code == 200 and response.json["status"] == "trash"
    heir = cal.get(f"/events/{listing[1]['id']}", "administrator").json
    assert heir["recurring_event_id"] is None
    assert heir["recurrence"][-1] == "EXDATE;TZID=America/New_York:20260302T180000"
    after = occurrences(cal, heir["id"])["events"]
    assert [e["id"] for e in after] == [listing[1]["id"], listing[2]["id"]]
    assert after[1]["recurring_event_id"] == heir["id"]


def test_recurrence_empty_turns_a_series_back_into_one_event(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=3"])
    listing = occurrences(cal, master["id"])["events"]
    response = cal.patch(f"/events/{master['id']}", "administrator", json={"recurrence": []})
    assert response.status_code == 200 and response.json["recurrence"] == []
    assert cal.get(f"/events/{listing[1]['id']}", "administrator").status_code == 404


def test_a_stand_alone_event_becomes_a_master(cal: Api) -> None:
    event = create(cal, [])
    response = cal.patch(
        f"/events/{event['id']}", "administrator", json={"recurrence": ["RRULE:FREQ=DAILY;COUNT=2"]}
    )
    assert response.status_code == 200 and response.json["recurrence"] == [
        "RRULE:FREQ=DAILY;COUNT=2"
    ]
    assert occurrences(cal, event["id"])["total"] == 2


# -- roll-forward, change feed -----------------------------------------------------------


def test_roll_forward_adds_new_dates_once_and_bumps_the_generation(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=MONTHLY"])
    before = occurrences(cal, master["id"], per_page=50)
    clock = cal.app.clock
    assert isinstance(clock, ManualClock)
    clock.advance(days=95)
    from calendar_rest.queries.lookups.site_state import generation

    with cal.app.database.connection_context():
        start = generation()
    assert roll_forward(cal.app.database, cal.app.settings, clock) == 4
    assert roll_forward(cal.app.database, cal.app.settings, clock) == 0
    with cal.app.database.connection_context():
        assert generation() == start + 2
    after = occurrences(cal, master["id"], per_page=50)
    assert after["total"] == before["total"] + 4
    ids = [e["id"] for e in before["events"]]
    assert [e["id"] for e in after["events"]][: len(ids)] == ids


def test_every_occurrence_is_reported_in_the_change_feed(cal: Api) -> None:
    master = create(cal, ["RRULE:FREQ=DAILY;COUNT=3"])
    listing = occurrences(cal, master["id"])["events"]
    first = cal.get("/changes", "administrator", query_string={"per_page": 50}).json
    assert {c["id"] for c in first["changes"] if c["type"] == "event"} == {e["id"] for e in listing}
    cal.patch(
        f"/events/{master['id']}",
        "administrator",
        json={"recurrence": ["RRULE:FREQ=DAILY;COUNT=2"]},
    )
    later = cal.get(
        "/changes", "administrator", query_string={"sync_token": first["sync_token"]}
    ).json["changes"]
    actions = {(c["id"], c["action"]) for c in later if c["type"] == "event"}
    assert actions == {(master["id"], "upsert"), (listing[2]["id"], "delete")}
