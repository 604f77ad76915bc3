"""A moved series moves its deleted dates and its exceptions with it (calendar.md
§4.4, §4.7; RFC 5545: ``EXDATE`` and ``RECURRENCE-ID`` name an instance by its start):
in the master's lines, in the occurrence list, in the feeds (EXDATE and RECURRENCE-ID
values, expanded by a client as the API lists the series) and in the change feed (a
deleted date never comes back). Moves: a new time, a new day, a new zone, all-day,
and a "this and following" split that moves the later part."""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from conftest import Api, api_for
from feed_helpers import json_instances, read_feed, stored_uids
from sync_helpers import walk

from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.dates import resolve_timezone
from calendar_rest.dates.recurrence import Anchor
from calendar_rest.dates.recurrence_moves import move_lines

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
PARIS = "Europe/Paris"
WINDOW = {"start_date": "2020-01-01", "end_date": "2030-12-31", "per_page": 50}
Json = dict[str, t.Any]


@pytest.fixture
def cal(api: Api, sibling_app: t.Callable[..., Application]) -> Api:
    """A client whose app's clock stands still at ``NOW``."""
    return api_for(sibling_app(clock=ManualClock(NOW)), api)


def create(cal: Api, recurrence: list[str], **fields: t.Any) -> list[Json]:
    """A Paris series at 19:00 from Monday 2 March 2026; its occurrences."""
    body = {
        "title": "Choir",
        "start_date": "2026-03-02 19:00:00",
        "end_date": "2026-03-02 21:00:00",
        "timezone": PARIS,
        "recurrence": recurrence,
        **fields,
    }
    response = cal.post("/events", "administrator", json=body)
    assert response.status_code == 201, response.get_data(as_text=True)
    return listing(cal, response.json["id"])


def listing(cal: Api, event_id: int) -> list[Json]:
    response = cal.get(f"/events/{event_id}/occurrences", query_string=WINDOW)
    assert response.status_code == 200, response.get_data(as_text=True)
    return t.cast(list[Json], response.json["events"])


def patch(cal: Api, event_id: int, scope: str, **body: t.Any) -> Json:
    response = cal.patch(f"/events/{event_id}?scope={scope}", "administrator", json=body)
    assert response.status_code == 200, response.get_data(as_text=True)
    return t.cast(Json, response.json)


def delete(cal: Api, event_id: int, scope: str = "this") -> None:
    response = cal.delete(f"/events/{event_id}?scope={scope}", "administrator")
    assert response.status_code == 200, response.get_data(as_text=True)


def slots(events: list[Json]) -> list[tuple[int, str, str | None]]:
    """Each occurrence's ID, start and original start."""
    return [(e["id"], e["start_date"], e["original_start_date"]) for e in events]


def feed_lines(cal: Api, path: str, **query: t.Any) -> list[str]:
    response = cal.get(path, query_string=query)
    assert response.status_code == 200, response.get_data(as_text=True)
    return response.get_data().replace(b"\r\n ", b"").decode().split("\r\n")


def assert_feeds_agree(cal: Api, master_id: int) -> None:
    """The archive feed and the series' own feed, expanded by a calendar client
    (recurring-ical-events), give the series' occurrences as the API lists them."""
    uids = stored_uids(cal.app)
    expected = json_instances(listing(cal, master_id), uids)
    for path, query in (("/events.ics", WINDOW), (f"/events/{master_id}.ics", {})):
        response = cal.get(path, query_string=query)
        assert response.status_code == 200, response.get_data(as_text=True)
        found = read_feed(response.get_data())
        assert [item for item in found if item.uid == uids[master_id]] == expected, path


def assert_never_back(cal: Api, token: str, deleted: set[int], live: list[Json]) -> None:
    """After ``token``, the change feed upserts the live occurrences only, under their
    IDs: no deleted date comes back, under its old ID or a new one."""
    later, _ = walk(cal, sync_token=token)
    upserts = {entry["id"] for entry in later if entry["action"] == "upsert"}
    assert not upserts & deleted
    assert upserts <= {event["id"] for event in live}


# -- a new time ----------------------------------------------------------------------------


@pytest.mark.parametrize("sent_to", ["master", "occurrence"])
def test_a_new_time_moves_the_deleted_date_and_it_stays_deleted(cal: Api, sent_to: str) -> None:
    series = create(cal, ["RRULE:FREQ=WEEKLY;COUNT=4"])
    master, deleted = series[0]["id"], series[1]["id"]
    delete(cal, deleted)
    _, token = walk(cal)
    target = series[0] if sent_to == "master" else series[2]
    day = target["start_date"][:10]
    answer = patch(
        cal, target["id"], "all", start_date=f"{day} 18:30:00", end_date=f"{day} 20:30:00"
    )
    assert answer["recurrence"] == [
        "RRULE:FREQ=WEEKLY;COUNT=4",
        "EXDATE;TZID=Europe/Paris:20260309T183000",
    ]
    after = listing(cal, master)
    assert slots(after) == [
        (series[0]["id"], "2026-03-02 18:30:00", "2026-03-02 18:30:00"),
        (series[2]["id"], "2026-03-16 18:30:00", "2026-03-16 18:30:00"),
        (series[3]["id"], "2026-03-23 18:30:00", "2026-03-23 18:30:00"),
    ]
    assert "EXDATE;TZID=Europe/Paris:20260309T183000" in feed_lines(cal, "/events.ics", **WINDOW)
    assert_feeds_agree(cal, master)
    assert_never_back(cal, token, {deleted}, after)


def test_exceptions_keep_their_own_changes_and_move_their_original_start(cal: Api) -> None:
    series = create(cal, ["RRULE:FREQ=WEEKLY;COUNT=4"])
    master, renamed, moved = series[0]["id"], series[1]["id"], series[2]["id"]
    delete(cal, series[3]["id"])
    _, token = walk(cal)
    patch(cal, renamed, "this", title="Guest night")
    patch(
        cal,
        moved,
        "this",
        title="Late",
        start_date="2026-03-16 21:00:00",
        end_date="2026-03-16 23:00:00",
    )
    patch(cal, master, "all", start_date="2026-03-02 18:30:00", end_date="2026-03-02 20:30:00")
    after = {event["id"]: event for event in listing(cal, master)}
    assert (after[renamed]["title"], after[renamed]["start_date"]) == (
        "Guest night",
        "2026-03-09 18:30:00",
    )
    assert (after[moved]["title"], after[moved]["start_date"]) == ("Late", "2026-03-16 21:00:00")
    assert after[moved]["original_start_date"] == "2026-03-16 18:30:00"
    assert list(after) == [master, renamed, moved]
    text = feed_lines(cal, f"/events/{master}.ics")
    assert [line for line in text if line.startswith("RECURRENCE-ID")] == [
        "RECURRENCE-ID;TZID=Europe/Paris:20260309T183000",
        "RECURRENCE-ID;TZID=Europe/Paris:20260316T183000",
    ]
    assert "EXDATE;TZID=Europe/Paris:20260323T183000" in text
    assert_feeds_agree(cal, master)
    assert_never_back(cal, token, {series[3]["id"]}, list(after.values()))


def test_utc_values_stay_utc_and_follow_the_wall_clock_across_dst(cal: Api) -> None:
    """19:00 in Paris is 18:00Z before 29 March and 17:00Z after; every value keeps
    its instance, so ``UNTIL`` keeps the last one and the RDATE keeps its ID."""
    series = create(
        cal,
        [
            "RRULE:FREQ=WEEKLY;UNTIL=20260406T170000Z",
            "EXDATE:20260309T180000Z,20260330T170000Z",
            "RDATE;TZID=America/New_York:20260408T130000",
        ],
    )
    assert len(series) == 5
    master = series[0]["id"]
    _, token = walk(cal)
    answer = patch(
        cal, master, "all", start_date="2026-03-02 19:45:00", end_date="2026-03-02 21:45:00"
    )
    assert answer["recurrence"] == [
        "RRULE:FREQ=WEEKLY;UNTIL=20260406T174500Z",
        "EXDATE:20260309T184500Z,20260330T174500Z",
        "RDATE;TZID=Europe/Paris:20260408T194500",
    ]
    after = listing(cal, master)
    assert [event["id"] for event in after] == [event["id"] for event in series]
    assert {event["start_date"][11:] for event in after} == {"19:45:00"}
    assert_feeds_agree(cal, master)
    assert_never_back(cal, token, set(), after)


def test_a_deleted_date_in_a_dst_gap_stays_deleted(cal: Api) -> None:
    """02:30 does not exist in Paris on 29 March 2026: that occurrence starts at 03:30,
    and its EXDATE (03:30) names the rule's 02:30 instance, the same instant."""
    series = create(
        cal,
        ["RRULE:FREQ=DAILY;COUNT=4"],
        start_date="2026-03-27 02:30:00",
        end_date="2026-03-27 03:00:00",
    )
    master, gap = series[0]["id"], series[2]["id"]
    assert series[2]["start_date"] == "2026-03-29 03:30:00"
    delete(cal, gap)
    _, token = walk(cal)
    patch(cal, master, "all", title="Night watch")
    assert "2026-03-29" not in {event["start_date"][:10] for event in listing(cal, master)}
    answer = patch(
        cal, master, "all", start_date="2026-03-27 02:45:00", end_date="2026-03-27 03:15:00"
    )
    assert answer["recurrence"][1] == "EXDATE;TZID=Europe/Paris:20260329T034500"
    after = listing(cal, master)
    assert [event["start_date"] for event in after] == [
        "2026-03-27 02:45:00",
        "2026-03-28 02:45:00",
        "2026-03-30 02:45:00",
    ]
    assert_feeds_agree(cal, master)
    assert_never_back(cal, token, {gap}, after)


# -- a new day, a new zone, all-day --------------------------------------------------------


def test_a_new_day_moves_every_date_of_the_series(cal: Api) -> None:
    series = create(
        cal,
        [
            "RRULE:FREQ=WEEKLY;UNTIL=20260323T180000Z",
            "RDATE;TZID=Europe/Paris:20260311T190000",
        ],
    )
    master, deleted = series[0]["id"], series[1]["id"]  # Monday 9 March
    delete(cal, deleted)
    _, token = walk(cal)
    answer = patch(
        cal, master, "all", start_date="2026-03-03 19:00:00", end_date="2026-03-03 21:00:00"
    )
    assert answer["recurrence"] == [
        "RRULE:FREQ=WEEKLY;UNTIL=20260324T180000Z",
        "RDATE;TZID=Europe/Paris:20260312T190000",
        "EXDATE;TZID=Europe/Paris:20260310T190000",
    ]
    after = listing(cal, master)
    kept = [event for event in series if event["id"] != deleted]
    assert [event["id"] for event in after] == [event["id"] for event in kept]
    assert [event["start_date"][:10] for event in after] == [
        "2026-03-03",
        "2026-03-12",
        "2026-03-17",
        "2026-03-24",
    ]
    assert_feeds_agree(cal, master)
    assert_never_back(cal, token, {deleted}, after)


def test_a_new_zone_keeps_the_wall_clock_and_the_deleted_date(cal: Api) -> None:
    series = create(cal, ["RRULE:FREQ=WEEKLY;COUNT=3"])
    master, deleted = series[0]["id"], series[1]["id"]
    delete(cal, deleted)
    _, token = walk(cal)
    answer = patch(cal, master, "all", timezone="America/New_York")
    assert answer["recurrence"] == [
        "RRULE:FREQ=WEEKLY;COUNT=3",
        "EXDATE;TZID=America/New_York:20260309T190000",
    ]
    after = listing(cal, master)
    assert [(e["id"], e["utc_start_date"]) for e in after] == [
        (master, "2026-03-03 00:00:00"),
        (series[2]["id"], "2026-03-16 23:00:00"),  # EDT from 8 March
    ]
    text = feed_lines(cal, f"/events/{master}.ics")
    assert "EXDATE;TZID=America/New_York:20260309T190000" in text
    assert_feeds_agree(cal, master)
    assert_never_back(cal, token, {deleted}, after)


def test_all_day_and_back_keep_the_deleted_date(cal: Api) -> None:
    series = create(cal, ["RRULE:FREQ=WEEKLY;COUNT=3"])
    master, deleted = series[0]["id"], series[1]["id"]
    delete(cal, deleted)
    _, token = walk(cal)
    whole_days = patch(cal, master, "all", all_day=True)
    assert whole_days["recurrence"][1] == "EXDATE;VALUE=DATE:20260309"
    assert [e["id"] for e in listing(cal, master)] == [master, series[2]["id"]]
    assert_feeds_agree(cal, master)
    timed = patch(
        cal,
        master,
        "all",
        all_day=False,
        start_date="2026-03-02 20:00:00",
        end_date="2026-03-02 22:00:00",
    )
    assert timed["recurrence"][1] == "EXDATE;TZID=Europe/Paris:20260309T200000"
    after = listing(cal, master)
    assert slots(after) == [
        (master, "2026-03-02 20:00:00", "2026-03-02 20:00:00"),
        (series[2]["id"], "2026-03-16 20:00:00", "2026-03-16 20:00:00"),
    ]
    assert_feeds_agree(cal, master)
    assert_never_back(cal, token, {deleted}, after)


# -- splits, and lines sent with the move --------------------------------------------------


def test_a_split_that_moves_the_later_part_moves_its_deleted_dates(cal: Api) -> None:
    series = create(cal, ["RRULE:FREQ=WEEKLY;COUNT=5"])
    ids = [event["id"] for event in series]
    delete(cal, ids[1])
    delete(cal, ids[3])
    _, token = walk(cal)
    new = patch(
        cal, ids[2], "following", start_date="2026-03-16 18:30:00", end_date="2026-03-16 20:30:00"
    )
    assert new["recurrence"] == [
        "RRULE:FREQ=WEEKLY;COUNT=3",
        "EXDATE;TZID=Europe/Paris:20260323T183000",
    ]
    old = listing(cal, ids[0])
    assert old[0]["recurrence"] == [
        "RRULE:FREQ=WEEKLY;UNTIL=20260316T175959Z",
        "EXDATE;TZID=Europe/Paris:20260309T190000",
    ]
    assert slots(old) == [(ids[0], "2026-03-02 19:00:00", "2026-03-02 19:00:00")]
    later = listing(cal, ids[2])
    assert slots(later) == [
        (ids[2], "2026-03-16 18:30:00", "2026-03-16 18:30:00"),
        (ids[4], "2026-03-30 18:30:00", "2026-03-30 18:30:00"),
    ]
    assert_feeds_agree(cal, ids[0])
    assert_feeds_agree(cal, ids[2])
    assert_never_back(cal, token, {ids[1], ids[3]}, old + later)


def test_lines_sent_with_the_move_are_taken_as_given(cal: Api) -> None:
    series = create(cal, ["RRULE:FREQ=WEEKLY;COUNT=3"])
    master = series[0]["id"]
    delete(cal, series[1]["id"])
    sent = ["RRULE:FREQ=WEEKLY;COUNT=3", "EXDATE;TZID=Europe/Paris:20260316T183000"]
    answer = patch(
        cal,
        master,
        "all",
        start_date="2026-03-02 18:30:00",
        end_date="2026-03-02 20:30:00",
        recurrence=sent,
    )
    assert answer["recurrence"] == sent
    assert [e["start_date"] for e in listing(cal, master)] == [
        "2026-03-02 18:30:00",
        "2026-03-09 18:30:00",
    ]


# -- the lines alone -----------------------------------------------------------------------


def test_move_lines_keeps_each_values_form_and_changes_nothing_unmoved() -> None:
    paris = resolve_timezone(PARIS)
    old = Anchor(dt.datetime(2026, 3, 2, 19), dt.datetime(2026, 3, 2, 21), paris)
    lines = [
        "RRULE:FREQ=DAILY;UNTIL=20260331",
        'EXDATE;X-NOTE="a,b";TZID=Europe/Paris:20260303T190000,20260304T190000',
        "rdate:20260320T180000Z",
    ]
    assert move_lines(lines, old, old, PARIS) == lines
    later = Anchor(dt.datetime(2026, 3, 2, 20), dt.datetime(2026, 3, 2, 22), paris)
    assert move_lines(lines, old, later, PARIS) == [
        "RRULE:FREQ=DAILY;UNTIL=20260331",
        'EXDATE;X-NOTE="a,b";TZID=Europe/Paris:20260303T200000,20260304T200000',
        "RDATE:20260320T190000Z",
    ]
    next_day = Anchor(dt.datetime(2026, 3, 3, 19), dt.datetime(2026, 3, 3, 21), paris)
    assert move_lines(lines, old, next_day, PARIS) == [
        "RRULE:FREQ=DAILY;UNTIL=20260401",
        'EXDATE;X-NOTE="a,b";TZID=Europe/Paris:20260304T190000,20260305T190000',
        "RDATE:20260321T180000Z",
    ]
    whole_days = Anchor(dt.datetime(2026, 3, 2), dt.datetime(2026, 3, 2, 23, 59, 59), paris, True)
    assert move_lines(lines, old, whole_days, PARIS) == [
        "RRULE:FREQ=DAILY;UNTIL=20260331",
        'EXDATE;X-NOTE="a,b";VALUE=DATE:20260303,20260304',
        "RDATE;VALUE=DATE:20260320",
    ]
