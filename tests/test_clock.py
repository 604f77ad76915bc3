"""The app reads the time from one injectable clock: moving it moves every "now".

Default windows, cached lists, scheduled statuses and modification stamps all follow
``create_app(clock=...)``, so these tests move time instead of sleeping.
"""

from __future__ import annotations

import datetime as dt
import typing as t

from conftest import Api, api_for

from calendar_rest.clock import ManualClock, SystemClock, utc_now

START = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)


def clocked(api: Api, sibling_app: t.Any, clock: ManualClock) -> Api:
    return api_for(sibling_app(clock=clock), api)


def test_the_default_window_starts_on_the_clocks_day(api: Api, sibling_app: t.Any) -> None:
    clock = ManualClock(START)
    client = clocked(api, sibling_app, clock)
    payload = {
        "title": "Spring fair",
        "start_date": "2026-03-10 10:00",
        "end_date": "2026-03-10 12:00",
    }
    assert client.post("/events", "administrator", json=payload).status_code == 201
    assert [e["title"] for e in client.get("/events").json["events"]] == ["Spring fair"]
    clock.advance(days=19)  # the fair is over: today's window no longer holds it
    listing = client.get("/events")  # the same URL, answered afresh for the new day
    assert listing.json["events"] == []
    assert "start_date=2026-03-20+00:00:00&end_date=2028-03-20+23:59:59" in listing.json["rest_url"]


def test_publication_dates_after_the_clock_are_scheduled(api: Api, sibling_app: t.Any) -> None:
    clock = ManualClock(START)
    client = clocked(api, sibling_app, clock)
    event = {"start_date": "2026-04-01 10:00", "end_date": "2026-04-01 12:00"}
    later = client.post(
        "/events",
        "administrator",
        json={**event, "title": "Later", "date_utc": "2026-03-02 00:00:00"},
    ).json
    now = client.post("/events", "administrator", json={**event, "title": "Now"}).json
    assert (later["status"], now["status"]) == ("future", "publish")
    assert now["date_utc"] == now["modified_utc"] == "2026-03-01 12:00:00"


def test_edits_are_stamped_with_the_clocks_time(api: Api, sibling_app: t.Any) -> None:
    clock = ManualClock(START)
    client = clocked(api, sibling_app, clock)
    created = client.post("/venues", "administrator", json={"venue": "Hall"}).json
    clock.advance(hours=5, seconds=7)
    edited = client.post(f"/venues/{created['id']}", "administrator", json={"city": "Lyon"}).json
    assert (created["modified_utc"], edited["modified_utc"]) == (
        "2026-03-01 12:00:00",
        "2026-03-01 17:00:07",
    )
    assert edited["date_utc"] == created["date_utc"]


def test_the_system_clock_is_the_default() -> None:
    before = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None, microsecond=0)
    assert before <= utc_now(SystemClock()) <= before + dt.timedelta(seconds=5)


def test_relative_dates_in_a_write_count_from_the_clock(api: Api, sibling_app: t.Any) -> None:
    client = clocked(api, sibling_app, ManualClock(START))
    payload = {"title": "Tomorrow", "start_date": "tomorrow 8pm", "end_date": "tomorrow 10pm"}
    event = client.post("/events", "administrator", json=payload).json
    assert (event["start_date"], event["end_date"]) == (
        "2026-03-02 20:00:00",
        "2026-03-02 22:00:00",
    )
