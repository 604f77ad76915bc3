"""What one series write may copy into its occurrences (``repository.series_bounds``):
occurrences × (organizers + categories + tags) at most ``MAX_SERIES_LINKS``, occurrences
× (title + description + excerpt) at most ``MAX_SERIES_TEXT`` characters, and at most
``recurrence_max_occurrences`` occurrences; past any of them a write is refused with a
400 before any lock is taken, and a normal series is never refused.

Found when tried as an attacker would: every occurrence of a series is an event of its
own, so a series of 2,000 occurrences with 100 organizers, categories and tags each
wrote 600,000 links, and with a 700 KB description 1.4 GB of rows, while every other
writer waited.
"""

from __future__ import annotations

import datetime as dt
import typing as t

import pytest
from conftest import Api, api_for, assert_wp_error

from calendar_rest.app import Application
from calendar_rest.clock import ManualClock
from calendar_rest.models import Event, Organizer, Term
from calendar_rest.schemas.events import MAX_SERIES_LINKS, MAX_SERIES_TEXT

NOW = dt.datetime(2026, 3, 1, 12, 0, tzinfo=dt.timezone.utc)
HOURLY = "RRULE:FREQ=HOURLY;COUNT={}"
Json = dict[str, t.Any]


@pytest.fixture
def cal(api: Api, sibling_app: t.Callable[..., Application]) -> Api:
    """A client whose app's clock stands still at ``NOW``."""
    return api_for(sibling_app(clock=ManualClock(NOW)), api)


def links(count: int, prefix: str = "L") -> Json:
    """``count`` links in all: new organizers, categories and tags in turn."""
    kinds: Json = {"organizer": [], "categories": [], "tags": []}
    for number in range(count):
        kind = ("organizer", "categories", "tags")[number % 3]
        name = f"{prefix} {kind} {number}"
        kinds[kind].append({"organizer": name} if kind == "organizer" else name)
    return kinds


def series(occurrences: int, **fields: t.Any) -> Json:
    return {
        "title": "Drill",
        "start_date": "2026-03-02 08:00:00",
        "end_date": "2026-03-02 08:30:00",
        "recurrence": [HOURLY.format(occurrences)],
        **fields,
    }


def counts(app: Application) -> tuple[int, int, int]:
    with app.database.connection_context():
        return Event.select().count(), Organizer.select().count(), Term.select().count()


def refused(response: t.Any, limit: int, what: str) -> None:
    error = assert_wp_error(response, 400, "rest_too_many_items")
    assert error["data"] == {"status": 400, "param": "recurrence", "max": limit}
    assert "recurrence" in error["message"] and f"{limit} {what}" in error["message"]


def test_a_series_past_the_link_bound_is_refused_before_any_lock(
    cal: Api, write_scopes: list[str]
) -> None:
    before = counts(cal.app)
    body = series(2000, **links(MAX_SERIES_LINKS // 2000 + 1))
    refused(cal.post("/events", "editor", json=body), MAX_SERIES_LINKS, "links")
    assert write_scopes == [] and counts(cal.app) == before


def test_a_series_past_the_text_bound_is_refused_before_any_lock(
    cal: Api, write_scopes: list[str]
) -> None:
    before = counts(cal.app)
    text = "x" * (MAX_SERIES_TEXT // 2000 - len("Drill") + 1)
    refused(
        cal.post("/events", "editor", json=series(2000, description=text)),
        MAX_SERIES_TEXT,
        "characters",
    )
    refused(
        cal.post("/events", "editor", json=series(10, description="y" * (MAX_SERIES_TEXT // 10))),
        MAX_SERIES_TEXT,
        "characters",
    )
    assert write_scopes == [] and counts(cal.app) == before


def test_too_many_occurrences_are_refused_before_any_lock(
    cal: Api, write_scopes: list[str]
) -> None:
    error = assert_wp_error(
        cal.post("/events", "editor", json=series(2001)), 400, "rest_invalid_param"
    )
    assert list(error["data"]["params"]) == ["recurrence"]
    assert write_scopes == []


def test_the_bounds_themselves_are_allowed(cal: Api) -> None:
    per_row = MAX_SERIES_LINKS // 2000
    text = "z" * (MAX_SERIES_TEXT // 2000 - len("Drill"))
    response = cal.post(
        "/events", "administrator", json=series(2000, description=text, **links(per_row))
    )
    assert response.status_code == 201, response.get_data(as_text=True)
    created = response.json
    assert len(created["organizer"]) + len(created["categories"]) + len(created["tags"]) == per_row
    with cal.app.database.connection_context():
        assert Event.select().where(Event.series_master == created["id"]).count() == 1999


def test_a_normal_series_is_never_refused(cal: Api) -> None:
    """A daily series over the two years of the horizon, a dozen links, 10 KB of text."""
    body = {
        **series(1, description="<p>" + "Lorem ipsum dolor sit amet. " * 350 + "</p>"),
        "recurrence": ["RRULE:FREQ=DAILY"],
        **links(12, "daily"),
    }
    response = cal.post("/events", "editor", json=body)
    assert response.status_code == 201, response.get_data(as_text=True)
    listed = cal.get(
        f"/events/{response.json['id']}/occurrences",
        "editor",
        query_string={"start_date": "2026-01-01", "end_date": "2029-01-01"},
    )
    assert listed.json["total"] == 730


def test_series_wide_writes_past_the_bounds_are_refused_and_change_nothing(
    cal: Api, write_scopes: list[str]
) -> None:
    per_row = MAX_SERIES_LINKS // 1000  # a series of 1,000 at the bound
    created = cal.post("/events", "administrator", json=series(1000, **links(per_row)))
    assert created.status_code == 201, created.get_data(as_text=True)
    master = created.json["id"]
    occurrence = cal.get(f"/events/{master}/occurrences", "administrator").json["events"][1]
    categories = [term["id"] for term in created.json["categories"]]
    write_scopes.clear()
    before = counts(cal.app), cal.get(f"/events/{master}", "administrator").json
    for target, body, limit, what in (
        (master, {"categories": [*categories, "One more"]}, MAX_SERIES_LINKS, "links"),
        (occurrence["id"], {"categories": [*categories, "One more"]}, MAX_SERIES_LINKS, "links"),
        (master, {"recurrence": [HOURLY.format(1001)]}, MAX_SERIES_LINKS, "links"),
        (master, {"description": "w" * (MAX_SERIES_TEXT // 1000)}, MAX_SERIES_TEXT, "characters"),
    ):
        response = cal.patch(f"/events/{target}", "administrator", json={"scope": "all", **body})
        refused(response, limit, what)
    assert write_scopes == []
    assert (counts(cal.app), cal.get(f"/events/{master}", "administrator").json) == before
    # an occurrence alone copies nothing to the others: never refused
    alone = {"categories": [*categories, "Its own"], "description": "w" * 9000}
    response = cal.patch(f"/events/{occurrence['id']}", "administrator", json=alone)
    assert response.status_code == 200, response.get_data(as_text=True)


def test_a_stand_alone_event_made_a_long_series_past_the_bound_is_refused(
    cal: Api, write_scopes: list[str]
) -> None:
    per_row = MAX_SERIES_LINKS // 2000 + 1
    event = cal.post("/events", "editor", json={**series(1), "recurrence": [], **links(per_row)})
    assert event.status_code == 201, event.get_data(as_text=True)
    write_scopes.clear()
    response = cal.patch(
        f"/events/{event.json['id']}", "editor", json={"recurrence": [HOURLY.format(2000)]}
    )
    refused(response, MAX_SERIES_LINKS, "links")
    assert write_scopes == []
    shorter = cal.patch(
        f"/events/{event.json['id']}", "editor", json={"recurrence": [HOURLY.format(100)]}
    )
    assert shorter.status_code == 200, shorter.get_data(as_text=True)
