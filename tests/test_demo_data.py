"""The demo data is rich enough for every client to page, filter and search
(open-web.md §12), whatever day it is loaded on."""

from __future__ import annotations

import re
import typing as t

import pytest
from conftest import Api

from calendar_rest.app import Application
from calendar_rest.importing import demo

#: the first run of four ASCII letters that starts a word (§12's searchable title rule)
WORD_START_RUN = re.compile(r"(?<![A-Za-z0-9])[A-Za-z]{4,}")
EVENT_TIME_FIELDS = ("id", "title", "slug", "all_day", "start_date", "end_date")
UTC_FIELDS = ("utc_start_date", "utc_end_date")
DATE_TIME = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$")


@pytest.fixture
def demo_api(api: Api, app: Application) -> Api:
    """The demo loaded into the test database (beside the suite's own users)."""
    assert demo.load_demo(app.database).created
    return api


def listed(api: Api, collection: str, key: str, **query: t.Any) -> list[dict[str, t.Any]]:
    response = api.get(f"/{collection}", query_string={"per_page": 50, **query})
    assert response.status_code == 200, response.json
    return list(response.json[key])


def test_the_default_window_holds_between_4_and_99_published_events_for_everyone(
    demo_api: Api,
) -> None:
    api = demo_api
    anonymous = api.get("/events")
    admin = api.get("/events", "administrator")
    assert 4 <= anonymous.json["total"] <= 99
    assert int(anonymous.headers["X-WP-Total"]) == anonymous.json["total"]
    ids = {event["id"] for event in listed(api, "events", "events")}
    admin_ids = {
        event["id"]
        for event in api.get("/events", "administrator", query_string={"per_page": 50}).json[
            "events"
        ]
    }
    assert admin.json["total"] == anonymous.json["total"] and admin_ids == ids
    assert all(event["status"] == "publish" for event in listed(api, "events", "events"))


@pytest.mark.parametrize(
    ("collection", "key"),
    [
        ("venues", "venues"),
        ("organizers", "organizers"),
        ("categories", "categories"),
        ("tags", "tags"),
    ],
)
def test_every_record_type_is_listed_anonymously(demo_api: Api, collection: str, key: str) -> None:
    api = demo_api
    records = listed(api, collection, key)
    assert records, collection
    if collection in ("venues", "organizers"):
        assert all(record["status"] == "publish" for record in records)


def test_two_of_the_first_categories_differ_both_ways(demo_api: Api) -> None:
    api = demo_api
    categories = listed(api, "categories", "categories")[:50]
    events_of = {
        category["slug"]: {
            event["id"] for event in listed(api, "events", "events", categories=category["slug"])
        }
        for category in categories
    }
    differing = [
        (one, other)
        for one in events_of
        for other in events_of
        if events_of[one] - events_of[other] and events_of[other] - events_of[one]
    ]
    assert differing, events_of


def test_the_window_has_all_day_and_timed_events(demo_api: Api) -> None:
    api = demo_api
    kinds = {event["all_day"] for event in listed(api, "events", "events")}
    assert kinds == {True, False}


def test_every_title_starts_a_four_letter_word_that_search_finds(
    demo_api: Api,
) -> None:
    api = demo_api
    for event in listed(api, "events", "events"):
        run = WORD_START_RUN.search(event["title"])
        assert run, event["title"]
        found = listed(api, "events", "events", search=run.group())
        assert event["id"] in {item["id"] for item in found}, (event["title"], run.group())


def test_every_event_carries_the_fields_calendar_widgets_map(demo_api: Api) -> None:
    """FullCalendar and friends read these from list items, singles and write answers."""
    api = demo_api
    items = listed(api, "events", "events")
    single = api.get(f"/events/{items[0]['id']}").json
    created = api.post(
        "/events",
        "administrator",
        json={
            "title": "Widget check",
            "start_date": "2030-01-02 10:00:00",
            "end_date": "2030-01-02 11:00:00",
        },
    ).json
    updated = api.post(f"/events/{created['id']}", "administrator", json={"title": "Widget"}).json
    for body in [*items, single, created, updated]:
        assert all(name in body for name in EVENT_TIME_FIELDS + UTC_FIELDS), sorted(body)
        assert all(DATE_TIME.match(body[name]) for name in ("start_date", "end_date", *UTC_FIELDS))


def test_the_pages_of_the_demo_keep_site_md_budgets(demo_api: Api) -> None:
    """site.md §5: on the demo data a list page's HTML is under 60 KB before
    compression, the stylesheet under 20 KB, no web font is loaded, and every image
    says its size."""
    sizes = {}
    for path in ("/events/list/", "/events/month/", "/events/"):
        answer = demo_api.client.get(path, headers={"Accept": "text/html"})
        assert answer.status_code == 200, path
        body = answer.get_data(as_text=True)
        sizes[path] = len(answer.get_data())
        assert "@font-face" not in body and ".woff" not in body, path
        for image in re.findall(r"<img\b[^>]*>", body):
            assert "width=" in image and "height=" in image, image
        stylesheet = re.search(
            r'<link rel="stylesheet" href="http://localhost(/static/[^"]+)"', body
        )
        assert stylesheet, path
        css = demo_api.client.get(stylesheet[1]).get_data(as_text=True)
        assert len(css.encode()) < 20_000 and "@font-face" not in css
    assert sizes["/events/list/"] < 60_000, sizes
